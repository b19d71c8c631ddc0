"""The PrincipalMemory aggregate: every change to one principal's beliefs is an event here.

State stays small — what the resolver needs per belief — because aggregate snapshots
store the whole state; statements and evidence live in events and projections. The
beliefs are held as a table in columns (one list per field, one row per belief in
formation order): compact in a snapshot, cheap to encode and decode. Lookups by
statement and by subject are derived from the table when first needed and never
stored, so a proposal meets only the beliefs the resolver's rules can match.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections.abc import Iterable
from copy import copy
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from eventsourcing.domain import Aggregate, event
from eventsourcing.domain import Snapshot as AggregateSnapshot

from memory_es.domain.resolver import Evidence, Existing
from memory_es.domain.values import (
    DECAY_RETIREMENT,
    LIVE_STATUSES,
    SUBJECT_KEY_SEPARATOR,
    Authority,
    Status,
    principal_aggregate_id,
    subject_keys,
)

_LIVE = frozenset(s.value for s in LIVE_STATUSES)
# Derived lookups live under this attribute; snapshots leave it out (PrincipalMemory.Snapshot).
_DERIVED = "_derived_state"
# The columns that hold an index into a list of names, and that list.
_NAMES = {
    "belief_types": "type_names",
    "belief_statuses": "status_names",
    "belief_sessions": "session_ids",
    "belief_projects": "project_names",
}


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

    # -- lifecycle (issue 15: memory_es/lifecycle/) ------------------------------------

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

    # Version 2 holds the beliefs in columns; version 1 snapshots held a dict of dicts
    # (belief_id -> compact view) and are upcast on load (upcast_v1_v2). Version 3 adds
    # the lifecycle state: pinned ids, deactivated ids with their prior status, and the
    # run ids whose usage is recorded (upcast_v2_v3). Version 4 adds the ids the decay
    # sweep retired, which new evidence revives (upcast_v3_v4).
    class_version = 4

    class Snapshot(AggregateSnapshot):
        @classmethod
        def take(cls, aggregate: Any) -> Any:
            snapshot = super().take(aggregate)
            snapshot.state.pop(_DERIVED, None)  # derived lookups are rebuilt, not stored
            return snapshot

    @staticmethod
    def create_id(tenant: str, principal: str) -> UUID:
        return principal_aggregate_id(principal, tenant)

    @event(Created)
    def __init__(self, tenant: str, principal: str) -> None:
        self.tenant = tenant
        self.principal = principal
        # The belief table: row i of every column is the i-th belief formed. Plain JSON
        # types, for snapshots. A value many rows repeat (type, status, session, project)
        # is held once in a list of names; the row holds its index there (_NAMES).
        self.belief_ids: list[str] = []
        self.belief_types: list[int] = []
        self.belief_keys: list[str] = []
        self.belief_normalized: list[str] = []
        self.belief_polarities: list[bool] = []
        self.belief_authorities: list[int] = []
        self.belief_statuses: list[int] = []
        self.belief_valid_from: list[str] = []
        self.belief_sessions: list[int] = []
        self.belief_seqs: list[int] = []
        self.belief_sources: list[list[str]] = []
        self.belief_projects: list[int] = []
        self.belief_portable: list[bool] = []
        self.type_names: list[str] = []
        self.status_names: list[str] = []
        self.session_ids: list[str] = []
        self.project_names: list[str] = []
        # The lifecycle (version 3): pinned ids (sorted); deactivated ids with the status
        # each had before; the run ids whose usage is recorded (one event per run).
        self.pinned_ids: list[str] = []
        self.deactivated: dict[str, str] = {}
        self.usage_runs: list[str] = []
        # Version 4: the ids the decay sweep retired (sorted) and not revived since; a
        # retirement for another reason (re-derivation) is not forgetting.
        self.forgotten_ids: list[str] = []

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
            state[_NAMES[column]] = list(codes)  # a dict keeps first-seen order

    # -- reads the resolver needs ------------------------------------------------------

    def existing(self) -> list[Existing]:
        """Every belief, in formation order."""
        return [self._existing(row) for row in range(len(self.belief_ids))]

    def candidates(self, incoming: Evidence) -> list[Existing]:
        """The beliefs the resolver's rules can match for ``incoming``, in formation order:
        every belief with its statement (rejection, same source, duplicate) and every live
        belief of its type sharing a subject (conflict, contradiction). ``resolve`` reaches
        the same decision on these as on ``existing()``: each rule only ever matches
        beliefs of these kinds, and their order is kept."""
        lookups = self._lookups()
        rows = set(lookups.statements.rows(incoming.normalized))
        kind = self._derived().codes["type_names"].get(incoming.belief_type)
        by_subject = lookups.live_by_subject.get(kind) if kind is not None else None
        if by_subject is not None:
            for part in subject_keys(incoming.subject_key):
                rows.update(by_subject.rows(part))
        return [self._existing(row) for row in sorted(rows)]

    def status_of(self, belief_id: str) -> Status | None:
        row = self._derived().row_of.get(belief_id)
        return None if row is None else Status(self._status(row))

    def type_and_key(self, belief_id: str) -> tuple[str, str]:
        row = self._derived().row_of[belief_id]
        return self._type(row), self.belief_keys[row]

    def authority_of(self, belief_id: str) -> Authority | None:
        row = self._derived().row_of.get(belief_id)
        return None if row is None else Authority(self.belief_authorities[row])

    def evidence_of(self, belief_id: str) -> int:
        """How many source events back the belief."""
        return len(self.belief_sources[self._derived().row_of[belief_id]])

    def is_pinned(self, belief_id: str) -> bool:
        return belief_id in self.pinned_ids

    def is_forgotten(self, belief_id: str) -> bool:
        """Retired by the decay sweep (and not revived since): new evidence revives it."""
        at = bisect_left(self.forgotten_ids, belief_id)
        return at < len(self.forgotten_ids) and self.forgotten_ids[at] == belief_id

    def prior_status(self, belief_id: str) -> Status | None:
        """The status a deactivated belief had; None when it is not deactivated."""
        prior = self.deactivated.get(belief_id)
        return None if prior is None else Status(prior)

    def usage_recorded(self, run_id: str) -> bool:
        return run_id in self.usage_runs

    @property
    def beliefs(self) -> dict[str, dict[str, Any]]:
        """The compact view of every belief by id (for inspection; built on each call)."""
        return {
            bid: {
                "type": self._type(row),
                "key": self.belief_keys[row],
                "norm": self.belief_normalized[row],
                "pol": self.belief_polarities[row],
                "auth": self.belief_authorities[row],
                "status": self._status(row),
                "vf": self.belief_valid_from[row],
                "sess": self._session(row),
                "seq": self.belief_seqs[row],
                "src": list(self.belief_sources[row]),
                "proj": self._project(row),
                "port": self.belief_portable[row],
            }
            for row, bid in enumerate(self.belief_ids)
        }

    def _existing(self, row: int) -> Existing:
        status = self._status(row)
        return Existing(
            belief_id=self.belief_ids[row],
            evidence=Evidence(
                belief_type=self._type(row),
                subject_key=self.belief_keys[row],
                normalized=self.belief_normalized[row],
                polarity=self.belief_polarities[row],
                authority=Authority(self.belief_authorities[row]),
                instant=self.belief_valid_from[row],
                session_id=self._session(row),
                seq=self.belief_seqs[row],
                source_event_ids=frozenset(self.belief_sources[row]),
                project=self._project(row),
                portable=self.belief_portable[row],
            ),
            live=status in _LIVE,
            rejected=status == Status.REJECTED.value,
            retired=status == Status.RETIRED.value and self.is_forgotten(self.belief_ids[row]),
        )

    def _type(self, row: int) -> str:
        return self.type_names[self.belief_types[row]]

    def _status(self, row: int) -> str:
        return self.status_names[self.belief_statuses[row]]

    def _session(self, row: int) -> str:
        return self.session_ids[self.belief_sessions[row]]

    def _project(self, row: int) -> str:
        return self.project_names[self.belief_projects[row]]

    # -- derived lookups (never stored: built from the table on first use) -------------

    def _derived(self) -> _Derived:
        derived: _Derived | None = self.__dict__.get(_DERIVED)
        if derived is None:
            derived = _Derived(
                row_of={bid: row for row, bid in enumerate(self.belief_ids)},
                codes={
                    names: {name: code for code, name in enumerate(getattr(self, names))}
                    for names in _NAMES.values()
                },
            )
            self.__dict__[_DERIVED] = derived
        return derived

    def _lookups(self) -> _Lookups:
        derived = self._derived()
        if derived.lookups is None:
            # Built once per process (the first proposal after a cold load), so its cost
            # counts at 100k beliefs: see _RowIndex.
            lookups = _Lookups(statements=_RowIndex.of(self.belief_normalized))
            live = {code for code, name in enumerate(self.status_names) if name in _LIVE}
            by_type = lookups.live_by_subject
            rows = zip(self.belief_statuses, self.belief_types, self.belief_keys, strict=True)
            for row, (status, kind, key) in enumerate(rows):
                if status in live:
                    by_subject = by_type.get(kind)
                    if by_subject is None:
                        by_subject = by_type[kind] = _RowIndex()
                    for part in _subject_parts(key):
                        by_subject.add(part, row)
            derived.lookups = lookups
        return derived.lookups

    def _row_entries(self, row: int) -> _Entries:
        """The row's statement, type code and subject parts: its lookup keys."""
        return (
            self.belief_normalized[row],
            self.belief_types[row],
            tuple(_subject_parts(self.belief_keys[row])),
        )

    def _retire(self, belief_id: str, status: Status) -> None:
        derived = self._derived()
        row = derived.row_of[belief_id]
        was_live = self._status(row) in _LIVE
        self.belief_statuses[row] = self._code("belief_statuses", status.value)
        if derived.lookups is not None and was_live:
            derived.lookups.unlive(row, self._row_entries(row))

    def _revive(self, belief_id: str, status: Status) -> None:
        """Back to a live status: its live lookup entries return."""
        derived = self._derived()
        row = derived.row_of[belief_id]
        was_live = self._status(row) in _LIVE
        self.belief_statuses[row] = self._code("belief_statuses", status.value)
        if derived.lookups is not None and not was_live:
            derived.lookups.relive(row, self._row_entries(row))

    def _code(self, column: str, name: str) -> int:
        """The index of ``name`` in the column's list of names, appended when new."""
        codes = self._derived().codes[_NAMES[column]]
        code = codes.get(name)
        if code is None:
            code = codes[name] = len(codes)
            getattr(self, _NAMES[column]).append(name)
        return code

    # -- events --------------------------------------------------------------------------

    def form_belief(self, belief: FormedBelief) -> None:
        self.trigger_event(self.BeliefFormed, **belief.event_fields())

    def _add_belief(self, b: FormedBelief) -> None:
        """The belief table takes the formed belief's row (BeliefFormed.apply)."""
        derived = self._derived()
        values = (
            self._code("belief_types", b.belief_type),
            b.subject_key,
            b.normalized,
            b.polarity,
            b.authority,
            self._code("belief_statuses", b.status),
            b.valid_from,
            self._code("belief_sessions", b.source_session_id),
            b.source_seq,
            list(b.source_event_ids),
            self._code("belief_projects", b.project),
            b.portable,
        )
        row = derived.row_of.get(b.belief_id)
        if row is not None:
            # An id formed again keeps its place with the new values, as a dict key
            # would; its lookup entries are replaced.
            if derived.lookups is not None:
                derived.lookups.remove(row, self._row_entries(row))
            for column, value in zip(self._columns(), values, strict=True):
                column[row] = value
        else:
            row = derived.row_of[b.belief_id] = len(self.belief_ids)
            self.belief_ids.append(b.belief_id)
            for column, value in zip(self._columns(), values, strict=True):
                column.append(value)
        if derived.lookups is not None:
            derived.lookups.add(row, self._row_entries(row), live=b.status in _LIVE)

    @event(BeliefReinforced)
    def reinforce_belief(
        self,
        belief_id: str,
        source_event_ids: list[str],
        source_session_id: str,
        at: str,
        policy: str,
    ) -> None:
        row = self._derived().row_of[belief_id]
        self.belief_sources[row] = sorted(set(self.belief_sources[row]) | set(source_event_ids))

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
        row = self._derived().row_of[belief_id]
        self.belief_authorities[row] = int(Authority.USER)
        self._revive(belief_id, Status.ACTIVE)

    @event(BeliefDeactivated)
    def deactivate_belief(self, belief_id: str, reason: str, at: str, policy: str) -> None:
        row = self._derived().row_of[belief_id]
        self.deactivated[belief_id] = self._status(row)
        self._retire(belief_id, Status.INACTIVE)

    @event(BeliefReactivated)
    def reactivate_belief(self, belief_id: str, status: str, at: str, policy: str) -> None:
        self.deactivated.pop(belief_id, None)
        self._revive(belief_id, Status(status))

    @event(BeliefPinned)
    def pin_belief(self, belief_id: str, at: str) -> None:
        insort(self.pinned_ids, belief_id)

    @event(BeliefUnpinned)
    def unpin_belief(self, belief_id: str, at: str) -> None:
        self.pinned_ids.remove(belief_id)

    def _columns(self) -> tuple[list[Any], ...]:
        """The table's columns after belief_ids, in the order form_belief fills them."""
        return (
            self.belief_types,
            self.belief_keys,
            self.belief_normalized,
            self.belief_polarities,
            self.belief_authorities,
            self.belief_statuses,
            self.belief_valid_from,
            self.belief_sessions,
            self.belief_seqs,
            self.belief_sources,
            self.belief_projects,
            self.belief_portable,
        )


# A row's lookup keys: its statement, its type code and its subject parts.
_Entries = tuple[str, int, tuple[str, ...]]


@dataclass
class _RowIndex:
    """Rows by key, in formation order. A key with one row (most of them) holds it as a
    bare int: building the index then allocates no list per row, and lists are what the
    cyclic garbage collector walks (at 100k beliefs that halved the build)."""

    first: dict[str, int] = field(default_factory=dict)
    several: dict[str, list[int]] = field(default_factory=dict)  # every row, if more than one

    @classmethod
    def of(cls, keys: list[str]) -> _RowIndex:
        """The index of a column: dicts of first and last rows built at C speed; only
        keys whose first and last rows differ get their list of rows."""
        rows = range(len(keys))
        first = dict(zip(reversed(keys), reversed(rows), strict=True))
        last = dict(zip(keys, rows, strict=True))
        index = cls(first)
        repeated = {key for key, row in last.items() if first[key] != row}
        if repeated:
            for row, key in enumerate(keys):
                if key in repeated:
                    index.several.setdefault(key, []).append(row)
        return index

    def rows(self, key: str) -> list[int]:
        several = self.several.get(key)
        if several is not None:
            return several
        first = self.first.get(key)
        return [] if first is None else [first]

    def add(self, key: str, row: int) -> None:
        first = self.first.setdefault(key, row)
        if first != row:
            several = self.several.get(key)
            if several is None:
                self.several[key] = sorted((first, row))
            else:
                insort(several, row)
            self.first[key] = min(first, row)

    def discard(self, key: str, row: int) -> None:
        rows = [r for r in self.rows(key) if r != row]
        if rows:
            self.first[key] = rows[0]
        else:
            self.first.pop(key, None)
        if len(rows) > 1:
            self.several[key] = rows
        else:
            self.several.pop(key, None)


@dataclass
class _Lookups:
    """Rows by statement (every status) and live rows by type code, then subject part."""

    statements: _RowIndex
    live_by_subject: dict[int, _RowIndex] = field(default_factory=dict)

    def add(self, row: int, entries: _Entries, *, live: bool) -> None:
        self.statements.add(entries[0], row)
        if live:
            self.relive(row, entries)

    def relive(self, row: int, entries: _Entries) -> None:
        _, kind, parts = entries
        by_subject = self.live_by_subject.setdefault(kind, _RowIndex())
        for part in parts:
            by_subject.add(part, row)

    def unlive(self, row: int, entries: _Entries) -> None:
        _, kind, parts = entries
        by_subject = self.live_by_subject.get(kind)
        if by_subject is not None:
            for part in parts:
                by_subject.discard(part, row)

    def remove(self, row: int, entries: _Entries) -> None:
        self.unlive(row, entries)
        self.statements.discard(entries[0], row)


def _subject_parts(key: str) -> Iterable[str]:
    """subject_keys(key), without building a set for the usual single subject."""
    if SUBJECT_KEY_SEPARATOR in key:
        return subject_keys(key)
    return (key,) if key else ()


@dataclass
class _Derived:
    row_of: dict[str, int]
    codes: dict[str, dict[str, int]]  # list of names -> name -> index
    lookups: _Lookups | None = None
