"""The PrincipalMemory aggregate: every change to one principal's beliefs is an event here.

State stays small — what the resolver needs per belief — because aggregate snapshots
store the whole state; statements and evidence live in events and projections. The
beliefs are held as a table in columns (one list per field, one row per belief in
formation order): compact in a snapshot, cheap to encode and decode. Lookups by
statement and by subject are derived from the table when first needed and never
stored, so a proposal meets only the beliefs the resolver's rules can match.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from eventsourcing.domain import Aggregate, event
from eventsourcing.domain import Snapshot as AggregateSnapshot

from memory_es.domain.resolver import Evidence, Existing
from memory_es.domain.values import (
    LIVE_STATUSES,
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

    # Version 2 holds the beliefs in columns; version 1 snapshots held a dict of dicts
    # (belief_id -> compact view) and are upcast on load (upcast_v1_v2).
    class_version = 2

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
        rows = set(lookups.by_statement.get(incoming.normalized, ()))
        for part in subject_keys(incoming.subject_key):
            rows.update(lookups.live_by_subject.get((incoming.belief_type, part), ()))
        return [self._existing(row) for row in sorted(rows)]

    def status_of(self, belief_id: str) -> Status | None:
        row = self._derived().row_of.get(belief_id)
        return None if row is None else Status(self._status(row))

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
            lookups = _Lookups()
            for row in range(len(self.belief_ids)):
                lookups.add(row, self._row_entries(row), live=self._status(row) in _LIVE)
            derived.lookups = lookups
        return derived.lookups

    def _row_entries(self, row: int) -> tuple[str, list[tuple[str, str]]]:
        """The row's statement and its (type, subject) lookup keys."""
        kind = self._type(row)
        return self.belief_normalized[row], [
            (kind, part) for part in subject_keys(self.belief_keys[row])
        ]

    def _retire(self, belief_id: str, status: Status) -> None:
        derived = self._derived()
        row = derived.row_of[belief_id]
        was_live = self._status(row) in _LIVE
        self.belief_statuses[row] = self._code("belief_statuses", status.value)
        if derived.lookups is not None and was_live:
            derived.lookups.unlive(row, self._row_entries(row))

    def _code(self, column: str, name: str) -> int:
        """The index of ``name`` in the column's list of names, appended when new."""
        codes = self._derived().codes[_NAMES[column]]
        code = codes.get(name)
        if code is None:
            code = codes[name] = len(codes)
            getattr(self, _NAMES[column]).append(name)
        return code

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
        derived = self._derived()
        values = (
            self._code("belief_types", belief_type),
            subject_key,
            normalized,
            polarity,
            authority,
            self._code("belief_statuses", status),
            valid_from,
            self._code("belief_sessions", source_session_id),
            source_seq,
            list(source_event_ids),
            self._code("belief_projects", project),
            portable,
        )
        row = derived.row_of.get(belief_id)
        if row is not None:
            # An id formed again keeps its place with the new values, as a dict key
            # would; its lookup entries are replaced.
            if derived.lookups is not None:
                derived.lookups.remove(row, self._row_entries(row))
            for column, value in zip(self._columns(), values, strict=True):
                column[row] = value
        else:
            row = derived.row_of[belief_id] = len(self.belief_ids)
            self.belief_ids.append(belief_id)
            for column, value in zip(self._columns(), values, strict=True):
                column.append(value)
        if derived.lookups is not None:
            derived.lookups.add(row, self._row_entries(row), live=status in _LIVE)

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


@dataclass
class _Lookups:
    """Rows by statement (every status) and live rows by (type, subject part)."""

    by_statement: dict[str, list[int]] = field(default_factory=dict)
    live_by_subject: dict[tuple[str, str], list[int]] = field(default_factory=dict)

    def add(self, row: int, entries: tuple[str, list[tuple[str, str]]], *, live: bool) -> None:
        statement, subjects = entries
        self.by_statement.setdefault(statement, []).append(row)
        if live:
            for key in subjects:
                self.live_by_subject.setdefault(key, []).append(row)

    def unlive(self, row: int, entries: tuple[str, list[tuple[str, str]]]) -> None:
        for key in entries[1]:
            rows = self.live_by_subject.get(key)
            if rows is not None and row in rows:
                rows.remove(row)

    def remove(self, row: int, entries: tuple[str, list[tuple[str, str]]]) -> None:
        self.unlive(row, entries)
        rows = self.by_statement.get(entries[0])
        if rows is not None and row in rows:
            rows.remove(row)


@dataclass
class _Derived:
    row_of: dict[str, int]
    codes: dict[str, dict[str, int]]  # list of names -> name -> index
    lookups: _Lookups | None = None
