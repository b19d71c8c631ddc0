"""Established facts and the remember tool: statements that enter formation at AFFIRMED.

An established fact is a conclusion the agent reached in a session, with the turns that
support it. It becomes a candidate only when its provenance holds: a non-empty list of
source event ids, every one a trusted user turn of the session's own principal in that
session (a foreign, untrusted or unknown id refuses the whole fact). The remember tool's
statement is its own evidence: a trusted ``tool`` turn recorded in the session, read like
a user's own turn (the same rules, screening, corrections and resolver) at the tool's
authority, so "I live in Faro." forms "User lives in Faro." and meets "User lives in
Oslo."; only text no rule reads directly forms word for word, as a fact.
Pure: the caller passes the session's turns and the reading of one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from memory_es.domain.values import Authority, BeliefType, Role
from memory_es.formation.extractor import Proposal, SourceTurn
from memory_es.formation.hazards import candidate_hazard
from memory_es.formation.patterns.morphology import base_form


@dataclass(frozen=True)
class EstablishedFact:
    statement: str
    source_event_ids: tuple[str, ...]
    # AFFIRMED: an established fact, or the remember tool at memory trust. USER only for
    # ``remember --from-user`` (a statement the user made to memory directly), backed by
    # the tool turn that records it; the establish-facts API cannot ask for it.
    authority: Authority = Authority.AFFIRMED


# Roles whose trusted turns may back an established fact. A user turn is the user's
# word; a tool turn is the remember tool recording a statement at memory trust.
EVIDENCE_ROLES = frozenset({Role.USER.value, Role.TOOL.value})

_WORD = re.compile(r"[A-Za-z0-9][\w'&.-]*")


def subject_of(statement: str) -> str:
    """The seed's stable subject: the first capitalized entity span, ignoring a word that
    only opens the sentence; the first three words when the statement names no entity."""
    words = [w.rstrip(".,;:!?'\"") for w in _WORD.findall(statement)]
    words = [w for w in words if w]
    i = 0
    while i < len(words):
        if words[i][:1].isupper() and words[i] != "I":
            j = i
            while j + 1 < len(words) and words[j + 1][:1].isupper() and words[j + 1] != "I":
                j += 1
            if i == 0 and j == 0:
                i = 1  # a capital that only opens the sentence
                continue
            return " ".join(words[i : j + 1])
        i += 1
    return " ".join(words[:3])


def as_sentence(statement: str) -> str:
    text = " ".join(statement.split()).strip()
    if not text:
        return ""
    text = text[:1].upper() + text[1:]
    return text.rstrip(".!?;:, ") + "."


# How formation reads one turn as the user's own words: the extractor over it.
TurnReader = Callable[[SourceTurn], Sequence[Proposal]]

# An agent keeps what it learnt in the third person ("The user lives in Faro.", "User's
# sister is Ingrid", "the user no longer drinks coffee"): said back in the first person,
# the user's own words, so the rules read it as they read a turn.
_ADVERBS = (
    r"(?:(?:no longer|not|never|always|also|really|usually|still|now|often|just|"
    r"recently|currently|actually|sometimes|rarely|mostly) )*"
)
_USER_SUBJECT = re.compile(
    rf"\b(?:the |The )?(?-i:[Uu])ser (?P<adv>{_ADVERBS})"
    r"(?!(?:and|or|who|that|which|with|of|in|on|at|to|for)\b)(?P<verb>[a-z]+(?:n't)?)(?![\w'])"
)
_USER_POSSESSIVE = re.compile(r"\b(?:the |The )?(?-i:[Uu])ser's\b")
_USER_PRONOUNS = (
    (re.compile(r"\btheir\b"), "my"),
    (re.compile(r"\bthemselves\b"), "myself"),
)
_FIRST_PERSON = re.compile(r"\b(?:(?-i:I)|me|my|mine|myself|we|our|us)\b", re.I)
_SENTENCE_START = re.compile(r"(^|[.!?]\s+)(my|i)\b")


def first_person(text: str) -> str:
    """``text`` with its third-person user said in the first person: "The user prefers
    tea." -> "I prefer tea.", "User's dog is Rex." -> "My dog is Rex."; text that names
    no user comes back as it is (the pronouns "their", "themselves" become the user's
    only after the user is a sentence's subject)."""
    if not re.search(r"(?i)\buser\b", text):
        return text

    def subject(m: re.Match[str]) -> str:
        verb = m["verb"]
        negated = verb.endswith("n't")
        verb = verb.removesuffix("n't")
        said = "do" if verb == "does" else base_form(verb) if verb.endswith("s") else verb
        if negated:
            said = "am not" if said == "am" else f"{said}n't"
        return f"{_SUBJECT_MARK}I {m['adv']}{said}"

    said = _USER_SUBJECT.sub(subject, _USER_POSSESSIVE.sub("my", text))
    said = "".join(_own_pronouns(sentence) for sentence in _SENTENCES.split(said))
    return _SENTENCE_START.sub(lambda m: m[1] + m[2].capitalize(), said)


# Where a sentence's user subject was said back as "I": "their" after it is the user's
# ("the user walks their dog"), before it or in a sentence with none it is someone
# else's ("the user's friends love their dog").
_SUBJECT_MARK = "\x00"
_SENTENCES = re.compile(r"(?<=[.!?;])(?=\s)")


def _own_pronouns(sentence: str) -> str:
    before, mark, after = sentence.partition(_SUBJECT_MARK)
    if not mark:
        return sentence
    for pattern, replacement in _USER_PRONOUNS:
        after = pattern.sub(replacement, after)
    return before + after.replace(_SUBJECT_MARK, "")


def remembered_readings(
    fact: EstablishedFact, turn: SourceTurn, read: TurnReader
) -> list[Proposal]:
    """The remember tool's turn read as the user would have said it (an agent's third
    person said back in the first: ``first_person``), each reading at the fact's
    authority (AFFIRMED, USER with ``--from-user``), standing on the tool turn. The
    direct readings are what was asked to be kept; only a first-person text with none
    forms the readings more guess than statement (an episode, a residue line:
    normalized as a turn's would be, never the verbatim "I ..."), raised to the fact's
    authority because the user (or the agent) asked for it to be kept. A statement about
    the world that no rule reads directly ("The staging database is called Orion.") is
    already a statement: it forms word for word (``established_proposals``)."""
    said = replace(turn, role=Role.USER.value, text=first_person(turn.text))
    readings = list(read(said))
    direct = [p for p in readings if p.authority is not Authority.INFERRED]
    if not direct and not _FIRST_PERSON.search(said.text):
        return []  # a statement about the world ("The staging database is Orion.")
    return [replace(p, source=turn, authority=fact.authority) for p in direct or readings]


def established_proposals(
    facts: Sequence[EstablishedFact],
    turns: Sequence[SourceTurn],
    read: TurnReader | None = None,
) -> tuple[list[Proposal], int]:
    """(admitted proposals at their authority, refused fact count) for one session's
    facts; with ``read``, a fact backed by the remember tool's turn alone forms its
    ``remembered_readings``."""
    by_id = {t.turn_id: t for t in turns}
    admitted: list[Proposal] = []
    refused = 0
    for fact in facts:
        statement = as_sentence(fact.statement)
        sources = [by_id.get(i) for i in fact.source_event_ids]
        if (
            not statement
            or candidate_hazard(statement) is not None  # a key, or an order: never a fact
            or not fact.source_event_ids
            or any(s is None or not s.trusted or s.role not in EVIDENCE_ROLES for s in sources)
        ):
            refused += 1
            continue
        backing = sorted((s for s in sources if s is not None), key=lambda s: (s.seq, s.turn_id))
        newest = backing[-1]
        if read is not None and len(backing) == 1 and newest.role == Role.TOOL.value:
            readings = remembered_readings(fact, newest, read)
            if readings:
                admitted.extend(readings)
                continue
        admitted.append(
            Proposal(
                statement=statement,
                belief_type=BeliefType.FACT,
                subjects=(subject_of(statement),),
                polarity=True,
                source=newest,
                authority=fact.authority,
                more_sources=tuple(backing[:-1]),
            )
        )
    return admitted, refused
