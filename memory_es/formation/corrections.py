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

from memory_es.domain.values import Authority, BeliefType
from memory_es.formation.extractor import Proposal
from memory_es.formation.hazards import candidate_hazard
from memory_es.formation.patterns.corrections import ORDINAL as _ORDINAL


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


def _substitute(statement: str, was: str, now: str) -> str | None:
    pattern = _pattern(was)
    m = pattern.search(statement)
    if m is None or _pattern(now).search(statement):
        return None
    found = m.group(0)
    replacement = now
    digits = _ORDINAL.match(now)
    if digits and found.isdigit():
        replacement = digits.group(1)  # "May 10" corrected by "the 12th" reads "May 12"
    elif now.isdigit() and not found.isdigit():
        ordinal = _ORDINAL.match(found)
        if ordinal:
            replacement = now + found[len(ordinal.group(1)) :]
    return statement[: m.start()] + replacement + statement[m.end() :]


def resolve_corrections(
    proposals: Sequence[Proposal],
    stored: Callable[[], Sequence[CorrectionTarget]],
) -> list[Proposal]:
    """Each correction proposal replaced by the corrected belief, or dropped when it
    corrects nothing; ``stored`` (newest first) is read only when a correction needs it."""
    out: list[Proposal] = []
    targets: Sequence[CorrectionTarget] | None = None
    for proposal in proposals:
        if proposal.corrects is None:
            out.append(proposal)
            continue
        was, now = proposal.corrects
        corrected = None
        for earlier in reversed(out):  # this session's own, newest first
            statement = _substitute(earlier.statement, was, now)
            if statement is not None and earlier.polarity:
                corrected = replace(
                    earlier, statement=statement, source=proposal.source, more_sources=()
                )
                break
        if corrected is None:
            if targets is None:
                targets = stored()
            for target in targets:
                statement = _substitute(target.statement, was, now)
                if statement is not None and target.polarity:
                    corrected = replace(
                        proposal,
                        statement=statement,
                        belief_type=BeliefType(target.belief_type),
                        subjects=target.subjects,
                        key=target.key,
                        authority=Authority(target.authority),
                        corrects=None,
                    )
                    break
        # The corrected statement passes the same screen every proposal passed
        # (memory_es/formation/hazards): a correction never writes a secret in.
        if corrected is not None and candidate_hazard(corrected.statement) is None:
            out.append(replace(corrected, corrects=None, context=""))
    return out
