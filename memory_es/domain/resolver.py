"""The resolver: how an incoming candidate meets what the principal already believes.

Rule order (seed): same source, duplicate, conflict, contradiction. Authority ranks
USER > AFFIRMED > INFERRED; at equal authority, time orders — the incoming instant is
the newest source event's time, the existing one its ``valid_from``. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from memory_es.domain.values import Authority


class Outcome(StrEnum):
    NEW = "new"
    SAME_SOURCE = "same_source"
    DUPLICATE = "duplicate"
    CONFLICT = "conflict"
    CONTRADICTION = "contradiction"


@dataclass(frozen=True)
class Evidence:
    """What the resolver needs to know about one belief, incoming or existing."""

    belief_type: str
    subject_key: str
    normalized: str
    polarity: bool
    authority: Authority
    instant: str  # ISO-8601 UTC; lexical order is time order
    session_id: str
    seq: int  # position of the newest source turn inside its session
    source_event_ids: frozenset[str]
    project: str
    portable: bool  # visible from every project (a portable type, or formed at user scope)


@dataclass(frozen=True)
class Existing:
    belief_id: str
    evidence: Evidence
    live: bool


@dataclass(frozen=True)
class Decision:
    outcome: Outcome
    existing_id: str | None = None


def is_later(incoming: Evidence, existing: Evidence) -> bool:
    """True when time (or source order within one session) puts incoming after existing."""
    if incoming.session_id == existing.session_id:
        return incoming.seq > existing.seq
    return incoming.instant > existing.instant


def resolve(incoming: Evidence, beliefs: Iterable[Existing]) -> Decision:
    candidates = list(beliefs)
    # 1. Same source: these turns already formed this statement (any status). A replay
    #    of old evidence must not form it again, nor revive what replaced it.
    for b in candidates:
        if (
            b.evidence.normalized == incoming.normalized
            and incoming.source_event_ids
            and incoming.source_event_ids <= b.evidence.source_event_ids
        ):
            return Decision(Outcome.SAME_SOURCE, b.belief_id)
    live = [
        b
        for b in candidates
        if b.live and (b.evidence.project == incoming.project or b.evidence.portable)
    ]
    # 2. Duplicate: the same statement is already believed; reinforce it.
    for b in live:
        if b.evidence.normalized == incoming.normalized:
            return Decision(Outcome.DUPLICATE, b.belief_id)
    # 3/4. Same type and subject, different statement: conflict or contradiction.
    for b in live:
        ev = b.evidence
        if ev.belief_type != incoming.belief_type or ev.subject_key != incoming.subject_key:
            continue
        if incoming.authority < ev.authority:
            return Decision(Outcome.CONFLICT, b.belief_id)
        if incoming.authority > ev.authority or is_later(incoming, ev):
            return Decision(Outcome.CONTRADICTION, b.belief_id)
        return Decision(Outcome.CONFLICT, b.belief_id)
    return Decision(Outcome.NEW)
