"""The PrincipalMemory aggregate: every change to one principal's beliefs is an event here.

State stays small — what the resolver needs per belief — because aggregate snapshots
store the whole state; statements and evidence live in events and projections. What
the aggregate holds per belief, and the reads its invariants make of it, are the belief
table's (memory_es/domain/belief_table.py); how a snapshot packs it is
memory_es/domain/packed_columns.py's.
"""

from __future__ import annotations

from bisect import insort
from copy import copy
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from eventsourcing.domain import Aggregate, event
from eventsourcing.domain import Snapshot as AggregateSnapshot

from memory_es.domain.belief_table import (
    NAMES,
    OUTDATED,
    TEXT_COLUMNS,
    BeliefTable,
    pack_table,
    unpack_table,
)
from memory_es.domain.packed_columns import TextColumn, join_ids
from memory_es.domain.values import (
    DECAY_RETIREMENT,
    Authority,
    Status,
    principal_aggregate_id,
)


@dataclass(frozen=True)
class FormedBelief:
    """A belief as formation decides it, declared once: the value consolidation builds,
    the stored shape of ``PrincipalMemory.BeliefFormed`` (which inherits these fields)
    and what the belief table takes a row from. Instants are ISO-8601 UTC text, as in
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


class PrincipalMemory(BeliefTable, Aggregate):
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

        def apply(self, aggregate: Any) -> None:
            aggregate._add_belief(self)

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

        def apply(self, aggregate: Any) -> None:
            gone = set(self.turn_ids)
            for belief_id in self.kept:
                aggregate._drop_sources(belief_id, gone)

    # Version 2 holds the beliefs in columns; version 1 snapshots held a dict of dicts
    # (belief_id -> compact view) and are upcast on load (upcast_v1_v2). Version 3 adds
    # the lifecycle state: pinned ids, deactivated ids with their prior status, and the
    # run ids whose usage is recorded (upcast_v2_v3). Version 4 adds the ids the decay
    # sweep retired, which new evidence revives (upcast_v3_v4). Version 5 holds each
    # row's sources as one string of ids and stores the text columns packed and the
    # lookups' orders (upcast_v4_v5; a version 4 snapshot's lookups are built on first use).
    class_version = 5

    class Snapshot(AggregateSnapshot):
        @classmethod
        def take(cls, aggregate: Any) -> Any:
            snapshot = super().take(aggregate)
            snapshot.state.pop(OUTDATED, None)
            vars(aggregate).pop(OUTDATED, None)  # this snapshot is of the current shape
            pack_table(aggregate, snapshot.state)
            return snapshot

        def mutate(self, _: None) -> Any:
            aggregate = super().mutate(None)
            unpack_table(vars(aggregate))
            return aggregate

    @staticmethod
    def create_id(tenant: str, principal: str) -> UUID:
        return principal_aggregate_id(principal=principal, tenant=tenant)

    @event(Created)
    def __init__(self, tenant: str, principal: str) -> None:
        self.tenant = tenant
        self.principal = principal
        self._start_table()

    @staticmethod
    def upcast_v4_v5(state: dict[str, Any]) -> None:
        """A version 4 snapshot's text columns are plain lists, each row's sources a list
        of ids (joined here); it stored no orders, so the lookups are built by sorting on
        first use. (A state already packed is left as it is.) The aggregate is marked
        so that its next save snapshots it (es_internals.SnapshotsFromMemory): each cold
        load until then would upcast and sort again (~0.4 s at 100k beliefs)."""
        state[OUTDATED] = True
        sources = state.get("belief_sources")
        if sources is not None:
            state["belief_sources"] = [
                ids if isinstance(ids, str) else join_ids(ids) for ids in sources
            ]
        for column in TEXT_COLUMNS:
            if column in state:
                state[column] = TextColumn(state[column])

    @staticmethod
    def upcast_v3_v4(state: dict[str, Any]) -> None:
        """A version 3 snapshot records no retirement reason: none of its retired beliefs
        is revivable, so new evidence forms such a statement anew, as it did then."""
        state["forgotten_ids"] = []

    @staticmethod
    def upcast_v2_v3(state: dict[str, Any]) -> None:
        """A version 2 snapshot predates the lifecycle: nothing pinned, deactivated or cited."""
        state["pinned_ids"] = []
        state["deactivated"] = {}
        state["usage_runs"] = []

    @staticmethod
    def upcast_v1_v2(state: dict[str, Any]) -> None:
        """A version 1 snapshot's dict of belief views becomes the table, in the same order."""
        views: dict[str, dict[str, Any]] = state.pop("beliefs", {})
        rows = list(views.values())
        state["belief_ids"] = list(views)
        state["belief_keys"] = [v["key"] for v in rows]
        state["belief_normalized"] = [v["norm"] for v in rows]
        state["belief_polarities"] = [v["pol"] for v in rows]
        state["belief_authorities"] = [v["auth"] for v in rows]
        state["belief_valid_from"] = [v["vf"] for v in rows]
        state["belief_seqs"] = [v["seq"] for v in rows]
        state["belief_sources"] = [list(v["src"]) for v in rows]
        state["belief_portable"] = [v["port"] for v in rows]
        for column, field_name in (
            ("belief_types", "type"),
            ("belief_statuses", "status"),
            ("belief_sessions", "sess"),
            ("belief_projects", "proj"),
        ):
            codes: dict[str, int] = {}
            state[column] = [codes.setdefault(v[field_name], len(codes)) for v in rows]
            state[NAMES[column]] = list(codes)  # a dict keeps first-seen order

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
        self._add_sources(belief_id, source_event_ids)

    @event(BeliefCorroborated)
    def corroborate_belief(
        self, belief_id: str, confidence: float, status: str, at: str, policy: str
    ) -> None:
        self._revive(belief_id, Status(status))

    @event(BeliefSuperseded)
    def supersede_belief(
        self, belief_id: str, successor_id: str, valid_to: str, policy: str
    ) -> None:
        self._retire(belief_id, Status.SUPERSEDED)

    @event(ConflictLinked)
    def link_conflict(self, belief_id: str, partner_id: str, at: str, policy: str) -> None:
        """The existing belief is now disputed: a state change with a fresh position."""

    @event(ConfirmationRequested)
    def request_confirmation(self, belief_id: str, partner_id: str, at: str) -> None:
        """The user is asked which of two conflicting statements holds."""

    @event(BeliefRejected)
    def reject_belief(self, belief_id: str, at: str, policy: str) -> None:
        self._retire(belief_id, Status.REJECTED)

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
        self._retire(belief_id, Status.RETIRED)
        if reason == DECAY_RETIREMENT and not self.is_forgotten(belief_id):
            insort(self.forgotten_ids, belief_id)

    @event(BeliefRevived)
    def revive_belief(
        self, belief_id: str, confidence: float, status: str, at: str, policy: str
    ) -> None:
        if self.is_forgotten(belief_id):
            self.forgotten_ids.remove(belief_id)
        self._revive(belief_id, Status(status))

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
        self._set_authority(belief_id, Authority.USER)
        self._revive(belief_id, Status.ACTIVE)

    @event(BeliefDeactivated)
    def deactivate_belief(self, belief_id: str, reason: str, at: str, policy: str) -> None:
        row = self._row(belief_id)
        self.deactivated[belief_id] = self._status(row)
        self._retire(belief_id, Status.INACTIVE)

    @event(BeliefReactivated)
    def reactivate_belief(self, belief_id: str, status: str, at: str, policy: str) -> None:
        self.deactivated.pop(belief_id, None)
        self._revive(belief_id, Status(status))

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
        insort(self.pinned_ids, belief_id)

    @event(BeliefUnpinned)
    def unpin_belief(self, belief_id: str, at: str) -> None:
        self.pinned_ids.remove(belief_id)
