"""The PrincipalMemory aggregate: every change to one principal's beliefs is an event here.

State stays small — what its invariants need, not one row per belief — because an
aggregate snapshot stores the whole state and every process that touches the principal
loads it: its identity and the run ids whose usage is recorded (one event per run).
What the resolver and the lifecycle read of its beliefs comes from the read model at the
aggregate's version, with the command's pending events on top
(memory_es/services/read_model_beliefs.py); statements and evidence live in events and
projections.
"""

from __future__ import annotations

from copy import copy
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from eventsourcing.domain import Aggregate, event
from eventsourcing.domain import Snapshot as AggregateSnapshot

from memory_es.domain.values import principal_aggregate_id

# Set on an aggregate loaded from a snapshot of an older class version: snapshot it on
# its next save (es_internals.SnapshotsFromMemory). Never stored.
OUTDATED = "snapshot_outdated"
# What version 1-5 snapshots held of the belief table (version 6 holds none of it): the
# columns, their packed forms, the lookups' orders, the lists of names, and the
# lifecycle's ids (pinned, deactivated, retired by decay), all now in the read model.
_BELIEF_TABLE_STATE = (
    "beliefs",
    "belief_ids",
    "belief_types",
    "belief_keys",
    "belief_normalized",
    "belief_polarities",
    "belief_authorities",
    "belief_statuses",
    "belief_valid_from",
    "belief_sessions",
    "belief_seqs",
    "belief_sources",
    "belief_projects",
    "belief_portable",
    "type_names",
    "status_names",
    "session_ids",
    "project_names",
    "packed_columns",
    "integer_columns",
    "lookup_orders",
    "_derived_state",
    "pinned_ids",
    "deactivated",
    "forgotten_ids",
)


@dataclass(frozen=True)
class FormedBelief:
    """A belief as formation decides it, declared once: the value consolidation builds,
    the stored shape of ``PrincipalMemory.BeliefFormed`` (which inherits these fields)
    and what the read model takes a belief's row from. Instants are ISO-8601 UTC text, as in
    every event."""

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
    # Index-only words from the source turn the statement does not carry (formation@4);
    # recall matches them, nothing renders them. Version 1 events had none.
    context: str = ""

    def event_fields(self) -> dict[str, Any]:
        """The belief's own fields, lists copied (an event also carries the library's)."""
        return {name: copy(getattr(self, name)) for name in FORMED_FIELDS}


FORMED_FIELDS: tuple[str, ...] = tuple(FormedBelief.__dataclass_fields__)


class PrincipalMemory(Aggregate):
    """One principal's memory; the event classes below are the belief event catalogue."""

    class Created(Aggregate.Created):
        tenant: str
        principal: str

    class BeliefFormed(FormedBelief, Aggregate.Event):
        """A belief formed (fields: :class:`FormedBelief`)."""

        class_version = 2

        @staticmethod
        def upcast_v1_v2(state: dict[str, Any]) -> None:
            state["context"] = ""

    class BeliefReinforced(Aggregate.Event):
        """Duplicate evidence: a quiet change (no new store position)."""

        belief_id: str
        source_event_ids: list[str]
        source_session_id: str
        at: str
        policy: str

    class BeliefCorroborated(Aggregate.Event):
        """An inference's new evidence (after its ``BeliefReinforced``): its confidence
        on that evidence, and its status — ACTIVE once at the inferred maximum. Quiet."""

        belief_id: str
        confidence: float
        status: str
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

    class SessionsRederived(Aggregate.Event):
        """The re-derivation record (``memory rederive``): these sessions were
        re-consolidated from their turns under ``policy`` (formation version and the
        extractor's identity, ``formation_key``) in the same transaction, with the
        beliefs it formed, retired (reason ``rederived:<version>``), superseded and left
        unchanged. Changes no belief; a re-derivation interrupted before its save wrote
        nothing, so running it again resumes where it stopped."""

        policy: str
        session_ids: list[str]
        formed: int
        retired: int
        superseded: int
        unchanged: int
        at: str

    # -- lifecycle (memory_es/lifecycle/) ------------------------------------

    class BeliefDecayed(Aggregate.Event):
        """The decay sweep lowered an idle inference's confidence: a quiet change (the
        belief keeps its store position; nothing a session shows has changed)."""

        belief_id: str
        confidence: float  # the confidence after the step
        at: str
        policy: str

    class BeliefRetired(Aggregate.Event):
        """Confidence fell below the floor: out of current recall, validity closed at
        ``valid_to``, a fresh store position (a change the correction lines report)."""

        belief_id: str
        confidence: float
        valid_to: str
        reason: str
        policy: str

    class BeliefRevived(Aggregate.Event):
        """New evidence for a statement the decay sweep retired (after its
        ``BeliefReinforced``): the same belief is live again at the confidence its
        evidence earns, its validity reopened; a fresh store position (it is back)."""

        belief_id: str
        confidence: float
        status: str
        at: str
        policy: str

    class DecaySwept(Aggregate.Event):
        """The audit of one decay sweep over this principal; changes no belief."""

        at: str
        decayed: int
        retired: int
        policy: str

    class UsageRecorded(Aggregate.Event):
        """One run's citations (keyed on ``run_id``: a repeat records nothing): cited
        beliefs gain ``cited_delta`` utility and a fresh last use, returned-but-uncited
        ones lose ``uncited_delta``; confidence and evidence never move. ``ambiguous``
        are short ids that fit several returned beliefs and credit nothing."""

        run_id: str
        session_id: str
        cited: list[str]
        uncited: list[str]
        ambiguous: list[str]
        cited_delta: float
        uncited_delta: float
        at: str

    class ConflictConfirmed(Aggregate.Event):
        """The user settled a conflict: this belief holds at USER authority and the link
        to each partner is closed (each partner is superseded by its own event)."""

        belief_id: str
        partner_ids: list[str]
        importance: int  # recomputed: USER authority, an evidence-backed state update
        at: str
        policy: str

    class BeliefDeactivated(Aggregate.Event):
        """Reversible: out of the active surface (L1 ``auto_decay:v1``, ``session_end``)."""

        belief_id: str
        reason: str
        at: str
        policy: str

    class BeliefReactivated(Aggregate.Event):
        """The same belief back in its prior status; a new lifecycle interval starts."""

        belief_id: str
        status: str
        at: str
        policy: str

    class BeliefPinned(Aggregate.Event):
        """Protected from every automatic action (decay, L1, session end)."""

        belief_id: str
        at: str

    class BeliefUnpinned(Aggregate.Event):
        belief_id: str
        at: str

    class MemoryForgotten(Aggregate.Event):
        """The erasure record (``memory forget``): what was forgotten, by id, and why —
        never its text (whose keys the same command destroys: memory_es/forgetting.py).
        ``scope`` is turn, session or principal and ``target`` its id. Each belief whose
        every source was forgotten is retired by its own ``BeliefRetired`` (reason
        ``forgotten``) before this event; each one in ``kept`` has other evidence and
        loses only the forgotten turns from its sources."""

        scope: str
        target: str
        turn_ids: list[str]
        session_ids: list[str]
        retracted: list[str]
        kept: list[str]
        reason: str
        at: str

    # Version 6 holds no belief: the read model does (issue 30). Versions 1-5 held the
    # belief table (1 a dict of views, 2 columns, 3 the lifecycle's ids, 4 the ids decay
    # retired, 5 the columns packed with the lookups' orders): each upcaster below keeps
    # what the next version held beyond the table, and upcast_v5_v6 drops the table.
    class_version = 6

    class Snapshot(AggregateSnapshot):
        @classmethod
        def take(cls, aggregate: Any) -> Any:
            snapshot = super().take(aggregate)
            snapshot.state.pop(OUTDATED, None)
            vars(aggregate).pop(OUTDATED, None)  # this snapshot is of the current shape
            return snapshot

    @staticmethod
    def create_id(tenant: str, principal: str) -> UUID:
        return principal_aggregate_id(principal=principal, tenant=tenant)

    @event(Created)
    def __init__(self, tenant: str, principal: str) -> None:
        self.tenant = tenant
        self.principal = principal
        self.usage_runs: list[str] = []  # the runs whose usage is recorded

    @staticmethod
    def upcast_v5_v6(state: dict[str, Any]) -> None:
        """The belief table leaves the state (the read model holds what the resolver
        reads of it); the aggregate is marked so that its next save snapshots it, as
        each cold load until then would read and upcast the old snapshot whole."""
        for name in _BELIEF_TABLE_STATE:
            state.pop(name, None)
        state[OUTDATED] = True

    @staticmethod
    def upcast_v4_v5(state: dict[str, Any]) -> None:
        """Version 5 packed the table version 4 held: nothing beyond it changed."""

    @staticmethod
    def upcast_v3_v4(state: dict[str, Any]) -> None:
        """Version 4 added the ids decay retired, to the table version 6 drops."""

    @staticmethod
    def upcast_v2_v3(state: dict[str, Any]) -> None:
        """A version 2 snapshot predates the lifecycle: no usage recorded."""
        state["usage_runs"] = []

    @staticmethod
    def upcast_v1_v2(state: dict[str, Any]) -> None:
        """Version 2 held version 1's table in columns: nothing beyond it changed."""

    def usage_recorded(self, run_id: str) -> bool:
        return run_id in self.usage_runs

    # -- events --------------------------------------------------------------------------

    def form_belief(self, belief: FormedBelief) -> None:
        self.trigger_event(self.BeliefFormed, **belief.event_fields())

    @event(BeliefReinforced)
    def reinforce_belief(
        self,
        belief_id: str,
        source_event_ids: list[str],
        source_session_id: str,
        at: str,
        policy: str,
    ) -> None:
        """More evidence for a belief: its sources are the read model's."""

    @event(BeliefCorroborated)
    def corroborate_belief(
        self, belief_id: str, confidence: float, status: str, at: str, policy: str
    ) -> None:
        """An inference's confidence on its new evidence (the read model's)."""

    @event(BeliefSuperseded)
    def supersede_belief(
        self, belief_id: str, successor_id: str, valid_to: str, policy: str
    ) -> None:
        """Replaced by its successor (its status is the read model's)."""

    @event(ConflictLinked)
    def link_conflict(self, belief_id: str, partner_id: str, at: str, policy: str) -> None:
        """The existing belief is now disputed: a state change with a fresh position."""

    @event(ConfirmationRequested)
    def request_confirmation(self, belief_id: str, partner_id: str, at: str) -> None:
        """The user is asked which of two conflicting statements holds."""

    @event(BeliefRejected)
    def reject_belief(self, belief_id: str, at: str, policy: str) -> None:
        """The durable rejection (the read model's status; nothing restated forms it)."""

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

    @event(SessionsRederived)
    def record_rederivation(
        self,
        policy: str,
        session_ids: list[str],
        formed: int,
        retired: int,
        superseded: int,
        unchanged: int,
        at: str,
    ) -> None:
        """The record of one re-derivation; changes no belief."""

    # -- lifecycle events (the decisions are made in memory_es/lifecycle/) -------------

    @event(BeliefDecayed)
    def decay_belief(self, belief_id: str, confidence: float, at: str, policy: str) -> None:
        """Confidence lives in the read model; the aggregate's view is unchanged."""

    @event(BeliefRetired)
    def retire_belief(
        self, belief_id: str, confidence: float, valid_to: str, reason: str, policy: str
    ) -> None:
        """Out of current recall (the read model keeps whether decay retired it)."""

    @event(BeliefRevived)
    def revive_belief(
        self, belief_id: str, confidence: float, status: str, at: str, policy: str
    ) -> None:
        """Live again on new evidence (the read model's status)."""

    @event(DecaySwept)
    def record_decay_sweep(self, at: str, decayed: int, retired: int, policy: str) -> None:
        """The audit of one sweep; changes no belief."""

    @event(UsageRecorded)
    def record_usage(
        self,
        run_id: str,
        session_id: str,
        cited: list[str],
        uncited: list[str],
        ambiguous: list[str],
        cited_delta: float,
        uncited_delta: float,
        at: str,
    ) -> None:
        self.usage_runs.append(run_id)

    @event(ConflictConfirmed)
    def confirm_conflict(
        self, belief_id: str, partner_ids: list[str], importance: int, at: str, policy: str
    ) -> None:
        """The user's answer: USER authority, active (the read model's)."""

    @event(BeliefDeactivated)
    def deactivate_belief(self, belief_id: str, reason: str, at: str, policy: str) -> None:
        """Out of the active surface (the read model keeps the status it had)."""

    @event(BeliefReactivated)
    def reactivate_belief(self, belief_id: str, status: str, at: str, policy: str) -> None:
        """Back in its prior status (the read model's)."""

    def record_forgetting(
        self,
        *,
        scope: str,
        target: str,
        turn_ids: list[str],
        session_ids: list[str],
        retracted: list[str],
        kept: list[str],
        reason: str,
        at: str,
    ) -> None:
        self.trigger_event(
            self.MemoryForgotten,
            scope=scope,
            target=target,
            turn_ids=turn_ids,
            session_ids=session_ids,
            retracted=retracted,
            kept=kept,
            reason=reason,
            at=at,
        )

    @event(BeliefPinned)
    def pin_belief(self, belief_id: str, at: str) -> None:
        """Protected (the read model's pin)."""

    @event(BeliefUnpinned)
    def unpin_belief(self, belief_id: str, at: str) -> None:
        """No longer protected."""
