"""Conflicts awaiting confirmation, and settling one the user answered.

A lower-authority contradiction commits flagged and linked both ways (the resolver;
gate.memory.conflict_surfaced) and asks for confirmation. It awaits an answer while both ends of a
link
are live. Confirming a belief settles every open link it has: the confirmed belief holds
at USER authority (the user said so), each live partner is superseded by it, and both
ends of each link are closed — all events on the principal's aggregate.
"""

from __future__ import annotations

from dataclasses import dataclass

from memory_es.domain.belief_reads import BeliefReads
from memory_es.domain.principal import PrincipalMemory
from memory_es.domain.values import LIVE_STATUSES, Authority
from memory_es.lifecycle.importance import importance
from memory_es.policy import formation_policy
from memory_es.projections.base import RecallIndex
from memory_es.projections.records import BeliefRecord

_LIVE = frozenset(s.value for s in LIVE_STATUSES)


@dataclass(frozen=True)
class PendingConflict:
    """A live belief with open conflict links to live partners."""

    belief: BeliefRecord
    partners: tuple[BeliefRecord, ...]

    def as_dict(self) -> dict[str, object]:
        def row(b: BeliefRecord) -> dict[str, object]:
            return {
                "belief_id": b.belief_id,
                "short_id": b.short_id,
                "statement": b.statement,
                "authority": Authority(b.authority).name.lower(),
                "status": b.status,
                "valid_from": b.valid_from,
            }

        return {**row(self.belief), "partners": [row(p) for p in self.partners]}


def open_partners(index: RecallIndex, record: BeliefRecord) -> tuple[BeliefRecord, ...]:
    """The live partners of ``record``'s conflict links (none unless it is live itself)."""
    if record.status not in _LIVE:
        return ()
    partners = (index.get(p) for p in record.conflicts_with)
    return tuple(p for p in partners if p is not None and p.status in _LIVE)


def pending(index: RecallIndex, principal: str) -> list[PendingConflict]:
    """Every belief of ``principal`` awaiting confirmation, in store-position order."""
    out = []
    for record in index.beliefs(principal):
        if record.conflicts_with:
            partners = open_partners(index, record)
            if partners:
                out.append(PendingConflict(record, partners))
    return out


def confirm(
    principal: PrincipalMemory,
    reads: BeliefReads,
    belief_id: str,
    partner_ids: list[str],
    *,
    at: str,
) -> None:
    """The events of settling ``belief_id``'s conflicts with ``partner_ids`` (live ones)."""
    policy = formation_policy()
    belief_type, key = reads.type_and_key(belief_id)
    principal.confirm_conflict(
        belief_id=belief_id,
        partner_ids=sorted(partner_ids),
        # An evidence-backed update of current state, now at USER authority.
        importance=importance(
            belief_type=belief_type,
            subject_key=key,
            authority=int(Authority.USER),
            updates_state=True,
        ),
        at=at,
        policy=policy,
    )
    for partner_id in sorted(partner_ids):
        if reads.status_of(partner_id) in LIVE_STATUSES:
            principal.supersede_belief(
                belief_id=partner_id, successor_id=belief_id, valid_to=at, policy=policy
            )
