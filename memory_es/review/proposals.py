"""Proposals as values, and the pure rules that plan them and check them on approval.

A plan names its members' exact pre-state (each member's store position and evidence
count as read), their evidence, the relation evidence that grouped them, the effects
approval would apply (as the principal's events), how derived views are handled, and the
policy version. Nothing here writes: the handlers (memory_es/review/handlers.py) do.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from memory_es.domain.values import LIVE_STATUSES, short_id
from memory_es.lifecycle.importance import LOW
from memory_es.projections.records import BeliefRecord
from memory_es.review import alignment
from memory_es.review.ledger import CONSOLIDATION, PROMOTION, SUPERSESSION

POLICY = "review@1"
CONSOLIDATED = "consolidated:v1"  # the deactivation reason of a consolidation's redundant members
PROMOTED = "promoted:v1"  # ... and of the working notes a promotion replaced
DURABLE_KIND = "fact"  # what a promoted working note becomes

DERIVED_VIEWS = [
    "recall index: follows the effect events (rebuildable from the log)",
    "session snapshots and recall traces that showed a member keep it (never rewritten)",
    "vector rows: the recall index's own; no summary or replacement text is written",
]


@dataclass(frozen=True)
class Plan:
    kind: str
    members: tuple[str, ...]
    pre_state: dict[str, list[int]]
    evidence: dict[str, list[str]]
    relation_evidence: list[dict[str, Any]]
    effects: list[dict[str, Any]]
    reason: str
    derived_views: list[str] = field(default_factory=lambda: list(DERIVED_VIEWS))


@dataclass(frozen=True)
class Proposal:
    """A proposal as the ledger holds it; ``as_dict`` is its JSON (``review list --json``)."""

    id: str
    kind: str
    state: str
    members: tuple[str, ...]
    reason: str
    pre_state: dict[str, list[int]]
    evidence: dict[str, list[str]]
    relation_evidence: list[dict[str, Any]]
    effects: list[dict[str, Any]]
    derived_views: list[str]
    policy: str
    opened_at: str
    decided_at: str | None
    decision: str | None  # why it was declined or refused
    operation: dict[str, Any] | None

    @classmethod
    def from_state(cls, state: Mapping[str, Any]) -> Proposal:
        return cls(
            id=state["id"],
            kind=state["kind"],
            state=state["state"],
            members=tuple(state["members"]),
            reason=state["reason"],
            pre_state=dict(state["pre_state"]),
            evidence=dict(state["evidence"]),
            relation_evidence=list(state["relation_evidence"]),
            effects=list(state["effects"]),
            derived_views=list(state["derived_views"]),
            policy=state["policy"],
            opened_at=state["opened_at"],
            decided_at=state["decided_at"],
            decision=state["decision"],
            operation=state["operation"],
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "state": self.state,
            "members": list(self.members),
            "reason": self.reason,
            "decision": self.decision,
            "pre_state": self.pre_state,
            "evidence": self.evidence,
            "relation_evidence": self.relation_evidence,
            "effects": self.effects,
            "derived_views": self.derived_views,
            "policy": self.policy,
            "opened_at": self.opened_at,
            "decided_at": self.decided_at,
            "operation": self.operation,
        }


def pre_state(members: Iterable[BeliefRecord]) -> dict[str, list[int]]:
    return {m.belief_id: [m.position, m.evidence_count] for m in members}


def plan_cluster(
    members: Sequence[BeliefRecord], similarities: Mapping[tuple[str, str], float]
) -> Plan | None:
    """What a reviewer may be asked about a cluster of near-duplicates: promotion when
    the members one of them carries entirely (every name, number, date and content word:
    alignment.covering_subset) are working notes from more than one session;
    consolidation of those members otherwise; supersession when two of one type and
    subject differ and their times are comparable; else nothing (the relations stand,
    the beliefs stay apart)."""
    ids = tuple(sorted(m.belief_id for m in members))
    relation_evidence = [
        {"belief_id": a, "related_id": b, "similarity": s}
        for (a, b), s in sorted(similarities.items())
        if a in ids and b in ids
    ]
    chosen = alignment.covering_subset(members)
    kept = None
    if chosen is not None:
        # The cluster's members the keeper stands for; the rest stay related, apart.
        kept, members = chosen
        ids = tuple(sorted(m.belief_id for m in members))
        relation_evidence = [
            r for r in relation_evidence if r["belief_id"] in ids and r["related_id"] in ids
        ]
    evidence = {m.belief_id: sorted(m.source_event_ids) for m in members}
    windows = {m.source_session_id for m in members}
    if kept is not None and len(windows) > 1 and all(m.importance == LOW for m in members):
        # Recurring working-note evidence across independent windows (sessions): a
        # durable belief stated as the survivor, on the union of evidence. The effect
        # names the survivor, never its text (the text stays in sealed belief events).
        union = sorted({i for m in members for i in m.source_event_ids})
        effects: list[dict[str, Any]] = [
            {
                "event": "BeliefFormed",
                "belief_id": "",  # the id is given at approval
                "from": kept.belief_id,
                "belief_type": DURABLE_KIND,
                "source_event_ids": union,
            },
            *(
                {"event": "BeliefDeactivated", "belief_id": m.belief_id, "reason": PROMOTED}
                for m in sorted(members, key=lambda r: r.position)
            ),
        ]
        reason = (
            f"a working note recurring in {len(windows)} sessions: promote [m:{kept.short_id}]"
            f" to a durable {DURABLE_KIND} on {len(union)} pieces of evidence"
        )
        return Plan(
            PROMOTION, ids, pre_state(members), evidence, relation_evidence, effects, reason
        )
    if kept is not None:
        adds = [
            m
            for m in members
            if m.belief_id != kept.belief_id
            and not set(m.source_event_ids) <= set(kept.source_event_ids)
        ]
        effects = []
        for m in sorted(members, key=lambda r: r.position):
            if m.belief_id == kept.belief_id:
                continue
            new_sources = sorted(set(m.source_event_ids) - set(kept.source_event_ids))
            if new_sources:
                effects.append(
                    {
                        "event": "BeliefReinforced",
                        "belief_id": kept.belief_id,
                        "source_event_ids": new_sources,
                        "source_session_id": m.source_session_id,
                        "at": m.last_evidence_at,  # the evidence's time, never approval's
                        "from": m.belief_id,
                    }
                )
            effects.append(
                {"event": "BeliefDeactivated", "belief_id": m.belief_id, "reason": CONSOLIDATED}
            )
        names = sorted(alignment.specifics(kept.statement))
        reason = (
            f"{len(ids)} near-duplicates; keep [m:{kept.short_id}] (it carries every name,"
            f" number and date: {', '.join(names) or 'none'}), {len(adds)} member(s) add evidence"
        )
        return Plan(
            CONSOLIDATION, ids, pre_state(members), evidence, relation_evidence, effects, reason
        )
    order = alignment.supersession_order(members)
    if order is not None:
        old, new = order
        effects = [
            {
                "event": "BeliefSuperseded",
                "belief_id": old.belief_id,
                "successor_id": new.belief_id,
                "valid_to": new.valid_from,
            }
        ]
        reason = (
            f"[m:{new.short_id}] (evidence {new.last_evidence_at}) may supersede"
            f" [m:{old.short_id}] (evidence {old.last_evidence_at}): same {old.belief_type}"
            " and subject, different specifics"
        )
        return Plan(
            SUPERSESSION, ids, pre_state(members), evidence, relation_evidence, effects, reason
        )
    return None


def moved(proposal: Proposal, current: Mapping[str, BeliefRecord | None]) -> str | None:
    """One line naming what moved since the pre-state was read (None: nothing moved)."""
    for belief_id in proposal.members:
        record = current.get(belief_id)
        position, evidence_count = proposal.pre_state[belief_id]
        if record is None:
            return f"belief {belief_id} is no longer in the read model"
        ref = f"[m:{short_id(belief_id)}]"
        if record.status not in LIVE_STATUSES:
            return f"{ref} is {record.status} now (it was live at position {position})"
        if record.position != position:
            return f"{ref} moved: position {position} -> {record.position}"
        if record.evidence_count != evidence_count:
            return f"{ref} gained evidence: {evidence_count} -> {record.evidence_count} pieces"
    return None


def rewording(proposal: Proposal, operations: Iterable[Mapping[str, Any]]) -> str | None:
    """A consolidation whose evidence an approved one already consolidated is only a
    rewording of the same evidence: refused (None: it brings new evidence)."""
    if proposal.kind != CONSOLIDATION:
        return None
    union = {i for ids in proposal.evidence.values() for i in ids}
    for operation in operations:
        if operation.get("kind") != CONSOLIDATION:
            continue
        if union <= set(operation.get("evidence_union", ())):
            return (
                f"no new evidence since operation {operation['operation_id']}: consolidating"
                " the same evidence again would only reword it"
            )
    return None
