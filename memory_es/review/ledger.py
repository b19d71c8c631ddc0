"""The ReviewLedger aggregate: one principal's L2 review work (RFC 002), event-sourced,
and the source each of its sessions was bound to (the evidence declaration snapshot).

Kept apart from ``PrincipalMemory`` on purpose: nothing here is a belief or changes one.
It holds the near-duplicate relations alignment found, the proposals (consolidation,
supersession, promotion) with the exact pre-state they were read at, and each decision:
approved (with its maintenance operation record), declined (with why) or refused (with
the one line naming what moved). The effects of an approval are the principal's own
events (``BeliefReinforced``, ``BeliefDeactivated``, ``BeliefSuperseded``,
``BeliefFormed``), saved with ``ProposalApproved`` in one transaction; the ledger alone
never changes what recall returns. Pure: times and ids come in as arguments.

State is small (proposals and relations are bounded by alignment's caps) and plain JSON,
so an aggregate snapshot stores it as it is. The read model does not project these
events (memory_es/projections/projector.py reads only the topics it handles).
"""

from __future__ import annotations

from typing import Any
from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.domain import Aggregate, event

from memory_es.domain.values import principal_aggregate_id

PENDING, APPROVED, DECLINED, REFUSED = "pending", "approved", "declined", "refused"
STATES = (PENDING, APPROVED, DECLINED, REFUSED)
CONSOLIDATION, SUPERSESSION, PROMOTION = "consolidation", "supersession", "promotion"
KINDS = (CONSOLIDATION, SUPERSESSION, PROMOTION)
_NAMESPACE = uuid5(NAMESPACE_URL, "memory-es:review-ledger")


def ledger_id(tenant: str, principal: str) -> UUID:
    """The ledger of a principal: derived from its memory's id, so no lookup is needed."""
    return uuid5(_NAMESPACE, str(principal_aggregate_id(tenant=tenant, principal=principal)))


class ReviewLedger(Aggregate):
    class Created(Aggregate.Created):
        tenant: str
        principal: str

    @staticmethod
    def create_id(tenant: str, principal: str) -> UUID:
        return ledger_id(tenant, principal)

    @event(Created)
    def __init__(self, tenant: str, principal: str) -> None:
        self.tenant = tenant
        self.principal = principal
        self.proposals: dict[str, dict[str, Any]] = {}
        self.relations: dict[str, float] = {}  # "low-id high-id" -> similarity
        self.aligned_through = 0  # the highest belief position alignment has checked
        # Sessions bound to a declared source: the declaration in force then, as a dict
        # (memory_es/evidence/declarations.py). Unbound sessions are the built-in source.
        self.session_sources: dict[str, dict[str, Any]] = {}
        # Turns recorded through a declared source (turn id -> declaration), the sessions
        # holding any, and each belief's declaration snapshot written with its close.
        self.turn_sources: dict[str, dict[str, Any]] = {}
        self.sourced_sessions: dict[str, bool] = {}
        self.belief_sources: dict[str, dict[str, Any]] = {}

    # -- source evidence (memory_es/evidence/) ------------------------------------------

    class SessionSourceBound(Aggregate.Event):
        """A session's turns are evidence of this source, under the declaration in
        force now (a snapshot: a later re-declaration does not change it)."""

        session_id: str
        declaration: dict[str, Any]
        at: str

    @event(SessionSourceBound)
    def bind_session_source(self, session_id: str, declaration: dict[str, Any], at: str) -> None:
        self.session_sources[session_id] = dict(declaration)

    class TurnSourceBound(Aggregate.Event):
        """One turn was recorded through a declared source (``session say --source``,
        MCP ``record_source_turn``): the declaration in force when it was recorded."""

        session_id: str
        turn_id: str
        declaration: dict[str, Any]
        at: str

    @event(TurnSourceBound)
    def bind_turn_source(
        self, session_id: str, turn_id: str, declaration: dict[str, Any], at: str
    ) -> None:
        # A ledger saved (or aggregate-snapshotted) before turn bindings existed has none.
        self.__dict__.setdefault("turn_sources", {})[turn_id] = dict(declaration)
        self.__dict__.setdefault("sourced_sessions", {})[session_id] = True

    class BeliefSourcesSnapshotted(Aggregate.Event):
        """The declaration each belief a close formed was written under (``belief id ->
        declaration``), saved with the close: a rebuild reads this, never the registry."""

        session_id: str
        declarations: dict[str, dict[str, Any]]
        at: str

    @event(BeliefSourcesSnapshotted)
    def snapshot_belief_sources(
        self, session_id: str, declarations: dict[str, dict[str, Any]], at: str
    ) -> None:
        held = self.__dict__.setdefault("belief_sources", {})
        for belief_id, declaration in declarations.items():
            held[belief_id] = dict(declaration)

    def turn_source(self, turn_id: str) -> dict[str, Any] | None:
        found: dict[str, Any] | None = self.__dict__.get("turn_sources", {}).get(turn_id)
        return found

    def belief_source(self, belief_id: str) -> dict[str, Any] | None:
        found: dict[str, Any] | None = self.__dict__.get("belief_sources", {}).get(belief_id)
        return found

    def session_sourced(self, session_id: str) -> bool:
        """Whether any of the session's evidence came through a declared source."""
        return session_id in self.session_sources or bool(
            self.__dict__.get("sourced_sessions", {}).get(session_id)
        )

    # -- alignment ---------------------------------------------------------------------

    class RelationRecorded(Aggregate.Event):
        """Two live beliefs say nearly the same thing (bounded lexical evidence)."""

        belief_id: str
        related_id: str
        similarity: float
        policy: str
        at: str

    @event(RelationRecorded)
    def record_relation(
        self, belief_id: str, related_id: str, similarity: float, policy: str, at: str
    ) -> None:
        self.relations[relation_key(belief_id, related_id)] = similarity

    class AlignmentChecked(Aggregate.Event):
        """Every belief up to ``through_position`` has had its bounded check."""

        through_position: int
        checked: int
        at: str

    @event(AlignmentChecked)
    def record_alignment(self, through_position: int, checked: int, at: str) -> None:
        self.aligned_through = max(self.aligned_through, through_position)

    # -- proposals ---------------------------------------------------------------------

    class ProposalOpened(Aggregate.Event):
        """A proposal: its members' exact pre-state (``belief id -> [position, evidence
        count]``), their evidence (``belief id -> source turn ids``), the relation
        evidence, the effects approval would apply, how derived views are handled, why,
        and the policy version. Changes no belief."""

        proposal_id: str
        kind: str
        members: list[str]
        pre_state: dict[str, list[int]]
        evidence: dict[str, list[str]]
        relation_evidence: list[dict[str, Any]]
        effects: list[dict[str, Any]]
        derived_views: list[str]
        reason: str
        policy: str
        at: str

    @event(ProposalOpened)
    def open_proposal(
        self,
        proposal_id: str,
        kind: str,
        members: list[str],
        pre_state: dict[str, list[int]],
        evidence: dict[str, list[str]],
        relation_evidence: list[dict[str, Any]],
        effects: list[dict[str, Any]],
        derived_views: list[str],
        reason: str,
        policy: str,
        at: str,
    ) -> None:
        self.proposals[proposal_id] = {
            "id": proposal_id,
            "kind": kind,
            "state": PENDING,
            "members": list(members),
            "pre_state": dict(pre_state),
            "evidence": dict(evidence),
            "relation_evidence": list(relation_evidence),
            "effects": list(effects),
            "derived_views": list(derived_views),
            "reason": reason,
            "policy": policy,
            "opened_at": at,
            "revised_at": None,
            "decided_at": None,
            "decision": None,
            "operation": None,
        }

    class ProposalRevised(Aggregate.Event):
        """The cluster of a pending proposal grew: one proposal per cluster, re-read."""

        proposal_id: str
        members: list[str]
        pre_state: dict[str, list[int]]
        evidence: dict[str, list[str]]
        relation_evidence: list[dict[str, Any]]
        effects: list[dict[str, Any]]
        reason: str
        at: str

    @event(ProposalRevised)
    def revise_proposal(
        self,
        proposal_id: str,
        members: list[str],
        pre_state: dict[str, list[int]],
        evidence: dict[str, list[str]],
        relation_evidence: list[dict[str, Any]],
        effects: list[dict[str, Any]],
        reason: str,
        at: str,
    ) -> None:
        self.proposals[proposal_id].update(
            members=list(members),
            pre_state=dict(pre_state),
            evidence=dict(evidence),
            relation_evidence=list(relation_evidence),
            effects=list(effects),
            reason=reason,
            revised_at=at,
        )

    class ProposalApproved(Aggregate.Event):
        """Approved: the maintenance operation record (identity, proposal, affected
        beliefs, pre-state, what it created, compensation, effects it cannot roll back).
        The effects are the principal's events in the same transaction."""

        proposal_id: str
        operation: dict[str, Any]
        at: str

    @event(ProposalApproved)
    def approve(self, proposal_id: str, operation: dict[str, Any], at: str) -> None:
        self._decide(proposal_id, APPROVED, None, at)["operation"] = dict(operation)

    class ProposalDeclined(Aggregate.Event):
        proposal_id: str
        reason: str
        at: str

    @event(ProposalDeclined)
    def decline(self, proposal_id: str, reason: str, at: str) -> None:
        self._decide(proposal_id, DECLINED, reason, at)

    class ProposalRefused(Aggregate.Event):
        """Approval refused: what moved since the pre-state was read (one line), or why
        the effects may not apply (a rewording without new evidence)."""

        proposal_id: str
        reason: str
        at: str

    @event(ProposalRefused)
    def refuse(self, proposal_id: str, reason: str, at: str) -> None:
        self._decide(proposal_id, REFUSED, reason, at)

    def _decide(self, proposal_id: str, state: str, reason: str | None, at: str) -> dict[str, Any]:
        proposal = self.proposals[proposal_id]
        proposal.update(state=state, decision=reason, decided_at=at)
        return proposal

    # -- reads -------------------------------------------------------------------------

    def pending(self) -> list[dict[str, Any]]:
        return [p for p in self.proposals.values() if p["state"] == PENDING]

    def approved_operations(self) -> list[dict[str, Any]]:
        return [p["operation"] for p in self.proposals.values() if p["state"] == APPROVED]

    def related_pairs(self) -> list[tuple[str, str]]:
        return [tuple(key.split(" ", 1)) for key in sorted(self.relations)]  # type: ignore[misc]


def relation_key(a: str, b: str) -> str:
    low, high = sorted((a, b))
    return f"{low} {high}"
