"""The PrincipalMemory aggregate: every change to one principal's beliefs is an event here.

State stays small — what the resolver needs per belief — because aggregate snapshots
store the whole ``__dict__``; statements and evidence live in events and projections.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from eventsourcing.domain import Aggregate, event

from memory_es.domain.resolver import Evidence, Existing
from memory_es.domain.values import (
    LIVE_STATUSES,
    Authority,
    Status,
    principal_aggregate_id,
)


class PrincipalMemory(Aggregate):
    """One principal's memory; the event classes below are the belief event catalogue."""

    class Created(Aggregate.Created):
        tenant: str
        principal: str

    class BeliefFormed(Aggregate.Event):
        belief_id: str
        statement: str
        normalized: str
        belief_type: str
        subjects: list[str]
        subject_key: str
        polarity: bool
        authority: int
        confidence: float
        status: str
        project: str
        portable: bool
        source_event_ids: list[str]
        source_session_id: str
        source_seq: int
        valid_from: str
        formed_at: str
        policy: str
        supersedes: str | None
        conflicts_with: str | None

    class BeliefReinforced(Aggregate.Event):
        """Duplicate evidence: a quiet change (no new store position)."""

        belief_id: str
        source_event_ids: list[str]
        source_session_id: str
        at: str
        policy: str

    class BeliefSuperseded(Aggregate.Event):
        belief_id: str
        successor_id: str
        valid_to: str
        policy: str

    class ConflictLinked(Aggregate.Event):
        belief_id: str
        partner_id: str
        at: str
        policy: str

    class ConfirmationRequested(Aggregate.Event):
        belief_id: str
        partner_id: str
        at: str

    class BeliefRejected(Aggregate.Event):
        """Durable user rejection: the belief leaves recall and never forms again."""

        belief_id: str
        at: str
        policy: str

    class ConsolidationRecorded(Aggregate.Event):
        session_id: str
        trigger: str
        policy: str
        extractor: str
        counts: dict[str, int]
        at: str

    @staticmethod
    def create_id(tenant: str, principal: str) -> UUID:
        return principal_aggregate_id(principal, tenant)

    @event(Created)
    def __init__(self, tenant: str, principal: str) -> None:
        self.tenant = tenant
        self.principal = principal
        # belief_id -> compact resolver view (see _view); plain JSON types for snapshots.
        self.beliefs: dict[str, dict[str, Any]] = {}

    # -- reads the resolver needs ------------------------------------------------------

    def existing(self) -> list[Existing]:
        return [
            Existing(
                belief_id=bid,
                evidence=_evidence(v),
                live=Status(v["status"]) in LIVE_STATUSES,
                rejected=v["status"] == Status.REJECTED.value,
            )
            for bid, v in self.beliefs.items()
        ]

    def status_of(self, belief_id: str) -> Status | None:
        v = self.beliefs.get(belief_id)
        return None if v is None else Status(v["status"])

    # -- events --------------------------------------------------------------------------

    @event(BeliefFormed)
    def form_belief(
        self,
        belief_id: str,
        statement: str,
        normalized: str,
        belief_type: str,
        subjects: list[str],
        subject_key: str,
        polarity: bool,
        authority: int,
        confidence: float,
        status: str,
        project: str,
        portable: bool,
        source_event_ids: list[str],
        source_session_id: str,
        source_seq: int,
        valid_from: str,
        formed_at: str,
        policy: str,
        supersedes: str | None,
        conflicts_with: str | None,
    ) -> None:
        self.beliefs[belief_id] = {
            "type": belief_type,
            "key": subject_key,
            "norm": normalized,
            "pol": polarity,
            "auth": authority,
            "status": status,
            "vf": valid_from,
            "sess": source_session_id,
            "seq": source_seq,
            "src": list(source_event_ids),
            "proj": project,
            "port": portable,
        }

    @event(BeliefReinforced)
    def reinforce_belief(
        self,
        belief_id: str,
        source_event_ids: list[str],
        source_session_id: str,
        at: str,
        policy: str,
    ) -> None:
        view = self.beliefs[belief_id]
        view["src"] = sorted(set(view["src"]) | set(source_event_ids))

    @event(BeliefSuperseded)
    def supersede_belief(
        self, belief_id: str, successor_id: str, valid_to: str, policy: str
    ) -> None:
        self.beliefs[belief_id]["status"] = Status.SUPERSEDED.value

    @event(ConflictLinked)
    def link_conflict(self, belief_id: str, partner_id: str, at: str, policy: str) -> None:
        """The existing belief is now disputed: a state change with a fresh position."""

    @event(ConfirmationRequested)
    def request_confirmation(self, belief_id: str, partner_id: str, at: str) -> None:
        """The user is asked which of two conflicting statements holds."""

    @event(BeliefRejected)
    def reject_belief(self, belief_id: str, at: str, policy: str) -> None:
        self.beliefs[belief_id]["status"] = Status.REJECTED.value

    @event(ConsolidationRecorded)
    def record_consolidation(
        self,
        session_id: str,
        trigger: str,
        policy: str,
        extractor: str,
        counts: dict[str, int],
        at: str,
    ) -> None:
        """The audit of one formation run; changes no belief."""


def _evidence(v: dict[str, Any]) -> Evidence:
    return Evidence(
        belief_type=v["type"],
        subject_key=v["key"],
        normalized=v["norm"],
        polarity=v["pol"],
        authority=Authority(v["auth"]),
        instant=v["vf"],
        session_id=v["sess"],
        seq=v["seq"],
        source_event_ids=frozenset(v["src"]),
        project=v["proj"],
        portable=v["port"],
    )
