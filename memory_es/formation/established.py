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


def remembered_readings(
    fact: EstablishedFact, turn: SourceTurn, read: TurnReader
) -> list[Proposal]:
    """The remember tool's turn read as the user would have said it: each direct
    reading at the fact's authority (AFFIRMED, USER with ``--from-user``), standing on
    the tool turn. A reading that is more guess than statement (INFERRED: an episode,
    a residue line) is not what the user asked to keep: none is returned for it, and a
    text with no direct reading forms word for word (``established_proposals``)."""
    said = replace(turn, role=Role.USER.value)
    return [
        replace(p, source=turn, authority=fact.authority)
        for p in read(said)
        if p.authority is not Authority.INFERRED
    ]


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
