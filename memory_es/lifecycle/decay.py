"""The decay sweep (seed 000, "Forgetting is decay over unused beliefs").

Decay is a sweep, not a read-time discount. It selects live inferences (authority
INFERRED: AFFIRMED and USER beliefs are never eligible) that are PROVISIONAL or below
the maximum inferred confidence, idle at least their type's tau (idle since the later of
their last evidence and their last use, so a citation resists decay without renewing
truth), unpinned, and not touched within one sweep interval — the guard against decaying
a belief twice in a window. They are read least recently evidenced first, bounded by
``formation.decay.max_per_sweep``. Each loses ``decay.step``; one that falls below
``decay.floor_confidence`` retires with ``valid_to`` at the sweep instant.

A decay is a quiet change (the belief keeps its store position); a retirement takes a
fresh one, which is what the correction lines select on. Both are events on the
principal's aggregate; neither touches a session, so no session's idle boundary moves.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from memory_es.domain.belief_reads import BeliefReads
from memory_es.domain.principal import PrincipalMemory
from memory_es.domain.values import DECAY_RETIREMENT, LIVE_STATUSES, Authority
from memory_es.formation.consolidation import INFERRED_MAX_CONFIDENCE
from memory_es.policy import formation_policy
from memory_es.ports import iso
from memory_es.profiles import MemoryProfile
from memory_es.projections.base import RecallIndex
from memory_es.projections.candidates import LIFECYCLE_PAGE, LifecycleQuery
from memory_es.projections.records import BeliefRecord


@dataclass(frozen=True)
class Decay:
    """One eligible belief and what the sweep does to it."""

    belief_id: str
    principal: str  # "tenant/principal"
    before: float
    after: float
    retire: bool


@dataclass
class DecayReport:
    at: str
    enabled: bool
    dry_run: bool
    eligible: int = 0
    decayed: list[str] = field(default_factory=list)
    retired: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        return {
            "at": self.at,
            "enabled": self.enabled,
            "eligible": self.eligible,
            "decayed": len(self.decayed),
            "retired": len(self.retired),
            "decayed_ids": list(self.decayed),
            "retired_ids": list(self.retired),
        }


def tau_days(profile: MemoryProfile, belief_type: str) -> float:
    taus = profile.retrieval.decay_tau_days
    value: float = getattr(taus, belief_type, min(taus.model_dump().values()))
    return value


def eligible(index: RecallIndex, profile: MemoryProfile, now: datetime) -> list[Decay]:
    """The sweep's window at ``now``: at most ``max_per_sweep`` decisions, least recently
    evidenced first. A read of the index; it decides and writes nothing."""
    knobs = profile.formation.decay
    shortest = min(profile.retrieval.decay_tau_days.model_dump().values())
    interval = timedelta(seconds=profile.formation.scheduled_interval_seconds)
    query = LifecycleQuery(
        max_authority=int(Authority.INFERRED),
        provisional_or_below=INFERRED_MAX_CONFIDENCE,
        idle_before=iso(now - timedelta(days=shortest)),
        touched_before=iso(now - interval),
        limit=min(LIFECYCLE_PAGE, knobs.max_per_sweep),
    )
    out: list[Decay] = []
    for record in index.lifecycle_rows(query):
        if len(out) == knobs.max_per_sweep:
            break
        if record.idle_since <= iso(now - timedelta(days=tau_days(profile, record.belief_type))):
            out.append(_decide(record, profile))
    return out


def _decide(record: BeliefRecord, profile: MemoryProfile) -> Decay:
    knobs = profile.formation.decay
    after = round(max(0.0, record.confidence - knobs.step), 6)
    return Decay(
        belief_id=record.belief_id,
        principal=record.principal,
        before=record.confidence,
        after=after,
        retire=after < knobs.floor_confidence,
    )


def apply(
    principal: PrincipalMemory, reads: BeliefReads, decays: list[Decay], *, at: str
) -> tuple[list[str], list[str]]:
    """The events of one principal's share of a sweep: (decayed ids, retired ids). A belief
    no longer live or since pinned (on the aggregate, the write side) is passed over."""
    policy = formation_policy()
    decayed: list[str] = []
    retired: list[str] = []
    for d in decays:
        if reads.status_of(d.belief_id) not in LIVE_STATUSES or reads.is_pinned(d.belief_id):
            continue
        if reads.authority_of(d.belief_id) is not Authority.INFERRED:
            continue
        if d.retire:
            principal.retire_belief(
                belief_id=d.belief_id,
                confidence=d.after,
                valid_to=at,
                reason=DECAY_RETIREMENT,
                policy=policy,
            )
            retired.append(d.belief_id)
        else:
            principal.decay_belief(belief_id=d.belief_id, confidence=d.after, at=at, policy=policy)
            decayed.append(d.belief_id)
    if decayed or retired:
        principal.record_decay_sweep(
            at=at, decayed=len(decayed), retired=len(retired), policy=policy
        )
    return decayed, retired
