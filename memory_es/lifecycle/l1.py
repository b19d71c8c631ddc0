"""L1: reversible automated deactivation (RFC 002), pins, and reactivation.

Off by default (``lifecycle.l1.enabled``); while off, ``maintenance run`` reports what it
would deactivate — the dry run first. It deactivates a belief only when every condition
holds: it is active; its importance is at or below ``lifecycle.l1.importance_floor``
(initially only low); its retention expired (idle, and in its lifecycle interval, at
least ``retention_days``); it is not pinned; it is not session-tier (that waits for its
session's end); and it has no unresolved inbound relation (a live conflict partner).
Each deactivation is a ``BeliefDeactivated`` event with reason ``auto_decay:v1``.

``session_end`` is a separate deterministic lifecycle event: when the caller ends a
closed session, its session-tier beliefs — inferences resting on a single piece of
evidence, the turn of that session they formed from — are deactivated with reason
``session_end``, under the same protections.

A deactivated belief is the same belief, recoverable: ``reactivate`` restores its prior
status and starts a new lifecycle interval; nothing new is stated. A pin protects a
belief from every automatic action (decay, L1, session end).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from memory_es.domain.belief_reads import BeliefReads
from memory_es.domain.principal import PrincipalMemory
from memory_es.domain.values import LIVE_STATUSES, Authority, Status
from memory_es.lifecycle.conflicts import open_partners
from memory_es.policy import formation_policy
from memory_es.ports import iso
from memory_es.profiles import MemoryProfile
from memory_es.projections.base import RecallIndex
from memory_es.projections.candidates import LIFECYCLE_PAGE, LIVE, LifecycleQuery
from memory_es.projections.records import BeliefRecord

AUTO_DECAY = "auto_decay:v1"
SESSION_END = "session_end"


@dataclass
class L1Report:
    enabled: bool
    dry_run: bool  # True when nothing was (or would have been) written
    candidates: list[str] = field(default_factory=list)
    deactivated: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        return {
            "enabled": self.enabled,
            "dry_run": self.dry_run,
            "reason": AUTO_DECAY,
            "candidates": len(self.candidates),
            "deactivated": len(self.deactivated),
            "candidate_ids": list(self.candidates),
        }


def session_tier(record: BeliefRecord) -> bool:
    """An inference resting on one piece of evidence (the turn it formed from): never
    corroborated, so it belongs to its session."""
    return record.authority <= Authority.INFERRED and record.evidence_count <= 1


def l1_candidates(index: RecallIndex, profile: MemoryProfile, now: datetime) -> list[BeliefRecord]:
    """What L1 may deactivate at ``now``, least recently evidenced first, bounded."""
    knobs = profile.lifecycle.l1
    expired = iso(now - timedelta(days=knobs.retention_days))
    query = LifecycleQuery(
        statuses=(Status.ACTIVE,),
        max_importance=knobs.importance_floor,
        idle_before=expired,
        interval_before=expired,
        limit=min(LIFECYCLE_PAGE, knobs.max_per_sweep),
    )
    out: list[BeliefRecord] = []
    for record in index.lifecycle_rows(query):
        if len(out) == knobs.max_per_sweep:
            break
        if not session_tier(record) and not open_partners(index, record):
            out.append(record)
    return out


def session_end_candidates(
    index: RecallIndex, principal: str, session_id: str
) -> list[BeliefRecord]:
    query = LifecycleQuery(
        statuses=LIVE,
        principal=principal,
        source_session=session_id,
        max_authority=int(Authority.INFERRED),
        max_evidence=1,
    )
    return [r for r in index.lifecycle_rows(query) if not open_partners(index, r)]


def deactivate(
    principal: PrincipalMemory, reads: BeliefReads, belief_ids: list[str], *, reason: str, at: str
) -> list[str]:
    """The events; a belief no longer live or since pinned (the write side) is passed over."""
    policy = formation_policy()
    done = []
    for belief_id in belief_ids:
        if reads.status_of(belief_id) in LIVE_STATUSES and not reads.is_pinned(belief_id):
            principal.deactivate_belief(belief_id=belief_id, reason=reason, at=at, policy=policy)
            done.append(belief_id)
    return done
