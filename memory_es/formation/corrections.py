"""Corrections said the way people say them: "Actually it's the 12th, not the 10th".

The clause walk reads a sentence ending "X, not Y" as a correction when X and Y have the
same shape — both a day, a date, a month, a weekday, a time or a count, or both a name —
(``memory_es.formation.patterns.corrections.read_correction``): "My teacher is Lucila,
not Lucía" and "I start on June 22, not June 15" as much as "it's the 12th, not the
10th", whose subject is only "it" ("I prefer tea, not coffee" is no correction: its
values have no shape in common, and its own rule reads it).
Such a correction names no subject, so it cannot be resolved by the resolver's subject
key; ``resolve_corrections`` finds what it corrects: the newest live belief the session
can see (this session's own proposals first, then the stored beliefs) whose statement
says Y (token-bounded, "10th" matching "10") and not already X. The correction becomes
that belief with Y replaced by X — same type, subjects, key and authority — so the
resolver supersedes the belief it corrects (equal authority, later source) and the stale
value never renders in current-state recall. A correction that finds nothing forms
nothing: without a subject it says nothing on its own.

Pure: the caller passes the beliefs (``CorrectionTarget``) it read.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from memory_es.domain.values import (
    SUBJECT_KEY_SEPARATOR,
    Authority,
    BeliefType,
    normalize_statement,
)
from memory_es.formation.extractor import Proposal
from memory_es.formation.hazards import candidate_hazard
from memory_es.formation.patterns.corrections import ORDINAL as _ORDINAL
from memory_es.formation.patterns.corrections import restate, restatement_overlap
from memory_es.formation.patterns.corrections import shape as _shape
from memory_es.formation.patterns.switches import object_classes
from memory_es.retrieval.tokenizer import STOPWORDS, lexemes, stem


@dataclass(frozen=True)
class CorrectionTarget:
    """A stored belief a correction may correct, as formation reads it."""

    statement: str
    belief_type: str
    subjects: tuple[str, ...]
    key: str
    authority: int
    polarity: bool


def _pattern(words: str) -> re.Pattern[str]:
    """Token-bounded, case-insensitive; "10th" also matches a bare "10" and back."""
    parts = []
    for word in words.split():
        m = _ORDINAL.match(word)
        digits = m.group(1) if m else word if word.isdigit() else None
        parts.append(rf"{digits}(?:st|nd|rd|th)?" if digits is not None else re.escape(word))
    return re.compile(r"(?<![\w])" + r"\s+".join(parts) + r"(?![\w])", re.I)


_NAME_TAIL = re.compile(r"(?:\s+(?:[A-Z][\w'-]*|\d[\w-]*)(?:\.[\w'-]+)*)+")
_ARTICLE_BEFORE = re.compile(r"\b(?:a|an)\s+$")


def _substitute(statement: str, was: str, now: str) -> str | None:
    pattern = _pattern(was)
    m = pattern.search(statement)
    if m is None or _pattern(now).search(statement):
        return None
    found = m.group(0)
    replacement = now
    start, end = m.start(), m.end()
    if _shape(was.split()) == "name":
        # A name stands for its whole name: "Harbor" of "Harbor Credit Union" replaces
        # all of it ("User banks with Alder Bank."), "iPhone" of "an iPhone 12" too.
        tail = _NAME_TAIL.match(statement, end)
        if tail is not None:
            end = tail.end()
        lead = _ARTICLE_BEFORE.search(statement[:start])
        if lead is not None:
            start = lead.start()
            replacement = ("an " if re.match(r"(?i)^[aeiou]", now) else "a ") + now
        return statement[:start] + replacement + statement[end:]
    digits = _ORDINAL.match(now)
    if digits and found.isdigit():
        replacement = digits.group(1)  # "May 10" corrected by "the 12th" reads "May 12"
    elif now.isdigit() and not found.isdigit():
        ordinal = _ORDINAL.match(found)
        if ordinal:
            replacement = now + found[len(ordinal.group(1)) :]
    return statement[: m.start()] + replacement + statement[m.end() :]


def _authority(proposal: Proposal, target: int) -> Authority:
    """A correction stands at the authority of what it corrects, never above its own
    (a remembered correction of a user's statement is AFFIRMED: it conflicts)."""
    own = proposal.authority if proposal.authority is not None else Authority.USER
    return min(Authority(target), own)


def _switch_key(proposal: Proposal, target_key: str) -> str:
    own = proposal.key or (proposal.subjects[0].casefold() if proposal.subjects else "")
    parts = dict.fromkeys(p for p in (*own.split(SUBJECT_KEY_SEPARATOR), target_key) if p)
    return SUBJECT_KEY_SEPARATOR.join(parts)


def _switch_target(statement: str, kind: str) -> bool:
    """A belief a switch within ``kind`` replaces: about the user, naming that class."""
    return statement.startswith("User ") and kind in object_classes(statement)


def resolve_corrections(
    proposals: Sequence[Proposal],
    stored: Callable[[], Sequence[CorrectionTarget]],
) -> list[Proposal]:
    """Each correction proposal replaced by the corrected belief, or dropped when it
    corrects nothing; a switch said without its old value keyed on what it replaces
    (patterns/switches.py); ``stored`` (newest first) is read only when one needs it."""
    out: list[Proposal] = []
    targets: Sequence[CorrectionTarget] | None = None
    for proposal in proposals:
        if proposal.switches is not None:
            kind = proposal.switches
            if targets is None:
                targets = stored()
            for target in _structured_first(targets):
                if (
                    target.polarity
                    and target.belief_type == proposal.belief_type.value
                    and _switch_target(target.statement, kind)
                    and normalize_statement(target.statement)
                    != normalize_statement(proposal.statement)
                ):
                    proposal = replace(proposal, key=_switch_key(proposal, target.key))
                    break
            out.append(replace(proposal, switches=None))
            continue
        if proposal.corrects is None:
            out.append(proposal)
            continue
        was, now = proposal.corrects
        if not was:
            if targets is None:
                targets = stored()
            corrected = _restated(proposal, now, out, targets)
            if corrected is not None and candidate_hazard(corrected.statement) is None:
                out.append(replace(corrected, corrects=None, context=""))
            continue
        corrected = None
        for earlier in reversed(out):  # this session's own, newest first
            if earlier.source.turn_id == proposal.source.turn_id and earlier.statement.startswith(
                "User said:"
            ):
                continue  # the sentence that says the change, not the old state
            statement = _substitute(earlier.statement, was, now)
            if statement is not None and earlier.polarity:
                corrected = replace(
                    earlier, statement=statement, source=proposal.source, more_sources=()
                )
                break
        if corrected is None:
            if targets is None:
                targets = stored()
            for target in _structured_first(targets):
                statement = _substitute(target.statement, was, now)
                if statement is not None and target.polarity:
                    corrected = replace(
                        proposal,
                        statement=statement,
                        belief_type=BeliefType(target.belief_type),
                        subjects=_subjects(target.subjects, was, now),
                        key=target.key,
                        authority=_authority(proposal, target.authority),
                        corrects=None,
                    )
                    break
        # The corrected statement passes the same screen every proposal passed
        # (memory_es/formation/hazards): a correction never writes a secret in.
        if corrected is not None and candidate_hazard(corrected.statement) is None:
            out.append(replace(corrected, corrects=None, context=""))
    return out


def _subjects(subjects: tuple[str, ...], was: str, now: str) -> tuple[str, ...]:
    """The corrected belief's subjects, a replaced name replaced in them too."""
    if _shape(was.split()) != "name":
        return subjects
    return tuple(_substitute(s, was, now) or s for s in subjects)


# Irregular forms a restatement and what it restates may say the same verb in.
_LEMMAS = {"paid": "pay", "pays": "pay", "paying": "pay", "gets": "get", "got": "get"}


def _topic(text: str) -> set[str]:
    words = (w for w in lexemes(text) if w not in STOPWORDS and not any(c.isdigit() for c in w))
    return {stem(_LEMMAS.get(w, w)) for w in words}


def _restated(
    proposal: Proposal,
    value: str,
    session: Sequence[Proposal],
    stored: Sequence[CorrectionTarget],
) -> Proposal | None:
    """A value put right without the old one ("Actually they pay me on the 10th"): the
    newest belief about the same thing (it shares the sentence's content words) that
    says one value of the same kind, with ``value`` in its place; None without one."""
    sentence = proposal.statement.removeprefix("Correction: ")
    topic = _topic(sentence) - _topic(value)
    needed = restatement_overlap(sentence)
    for earlier in reversed(session):
        if earlier.source.turn_id == proposal.source.turn_id or not earlier.polarity:
            continue
        statement = restate(earlier.statement, value)
        if statement is not None and len(topic & _topic(earlier.statement)) >= needed:
            return replace(earlier, statement=statement, source=proposal.source, more_sources=())
    for target in _structured_first(stored):
        if not target.polarity:
            continue
        statement = restate(target.statement, value)
        if statement is not None and len(topic & _topic(target.statement)) >= needed:
            return replace(
                proposal,
                statement=statement,
                belief_type=BeliefType(target.belief_type),
                subjects=target.subjects,
                key=target.key,
                authority=_authority(proposal, target.authority),
                corrects=None,
            )
    return None


def _structured_first(targets: Sequence[CorrectionTarget]) -> list[CorrectionTarget]:
    """Newest first, a sentence-level line ("User said: ...") after every structured
    belief: the belief the line stood beside is what is corrected, and the line goes
    with it when it is superseded (``readings_carrying``)."""
    return sorted(targets, key=lambda t: t.statement.startswith("User said:"))
