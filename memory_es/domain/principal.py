"""The PrincipalMemory aggregate: every change to one principal's beliefs is an event here.

State stays small — what the resolver needs per belief — because aggregate snapshots
store the whole state; statements and evidence live in events and projections. The
beliefs are held as a table in columns (one list per field, one row per belief in
formation order). A snapshot (version 5) stores each text column as one string, its
values joined by a separator no value holds, and the resolver's lookups as two sorted
orders of rows: a cold load decodes a handful of long strings instead of a million short
ones, splits a column only when something first reads it, and looks a statement or a
subject up by bisection instead of building dicts over every belief.
"""

from __future__ import annotations

import json
from bisect import bisect_left, bisect_right, insort
from collections.abc import Callable, Iterable
from copy import copy
from dataclasses import dataclass
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
# Version 5 snapshots: the text columns, each packed as one string (``_pack``), under
# PACKED; the lookups' sorted orders of rows under ORDERS. A loaded aggregate keeps a
# column packed until something reads it (PrincipalMemory.__getattr__).
PACKED = "packed_columns"
ORDERS = "lookup_orders"
_PACKED_COLUMNS = (
    "belief_ids",
    "belief_keys",
    "belief_normalized",
    "belief_valid_from",
    "belief_sources",
)
# Between the values of a packed column: a newline, which JSON writes in two bytes (a
# control character takes six) and no normalized statement or subject key holds (their
# white space is collapsed); a column whose values hold one anyway is stored as a plain
# list (_pack). A row's source ids are joined by a space, which no id holds (ids are
# generated; a row whose ids would hold a space or a newline is kept as JSON: _join_ids).
_SEP = "\n"
_ID_SEP = " "
# A subject-lookup entry is a row and the index of one of its subject parts.
_PART_BITS = 16
_PART_MASK = (1 << _PART_BITS) - 1
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
    # sweep retired, which new evidence revives (upcast_v3_v4). Version 5 holds each
    # row's sources as one string of ids and stores the text columns packed and the
    # lookups' orders (upcast_v4_v5; a version 4 snapshot's lookups are built on first use).
    class_version = 5

    class Snapshot(AggregateSnapshot):
        @classmethod
        def take(cls, aggregate: Any) -> Any:
            snapshot = super().take(aggregate)
            state = snapshot.state
            state.pop(_DERIVED, None)  # the derived lookups are rebuilt, their orders kept
            lookups = aggregate._lookups()  # built now if no command needed them yet
            state[ORDERS] = {
                "statements": list(lookups.statements),
                "subjects": list(lookups.subjects),
            }
            rows = len(aggregate.belief_types)
            packed = dict(state.pop(PACKED, None) or {})  # columns never read stay packed
            for column in _PACKED_COLUMNS:
                if column in state:
                    packed[column] = _pack(state.pop(column), rows)
            state[PACKED] = packed
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
        self.belief_sources: list[str] = []  # each row's sorted ids, joined by _ID_SEP
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

    def __getattr__(self, name: str) -> Any:
        """A column a version 5 snapshot left packed, split when first read (only names
        missing from the instance get here)."""
        packed: dict[str, Any] | None = self.__dict__.get(PACKED)
        if packed is None or name not in packed:
            raise AttributeError(name)
        packed = dict(packed)  # the loaded snapshot's dict is not ours to change
        column = _unpack(packed.pop(name), len(self.belief_types))
        self.__dict__[PACKED] = packed
        self.__dict__[name] = column
        return column

    @staticmethod
    def upcast_v4_v5(state: dict[str, Any]) -> None:
        """A version 4 snapshot's columns are plain lists (kept so: a column need not be
        packed) with each row's sources a list of ids, joined here; it stored no orders,
        so the lookups are built by sorting on first use. (A state already packed is
        left as it is.)"""
        sources = state.get("belief_sources")
        if sources is not None:
            state["belief_sources"] = [
                ids if isinstance(ids, str) else _join_ids(ids) for ids in sources
            ]

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
        statements = lookups.statements
        normalized = self.belief_normalized
        start = bisect_left(statements, incoming.normalized, key=normalized.__getitem__)
        end = bisect_right(statements, incoming.normalized, start, key=normalized.__getitem__)
        rows = set(statements[start:end])
        kind = self._derived().codes["type_names"].get(incoming.belief_type)
        if kind is not None:
            live = {code for code, name in enumerate(self.status_names) if name in _LIVE}
            statuses = self.belief_statuses
            for part in _subject_parts(incoming.subject_key):
                for entry in self._subject_range(lookups, chr(kind) + part):
                    row = entry >> _PART_BITS
                    if statuses[row] in live:
                        rows.add(row)
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
        return len(_split_ids(self.belief_sources[self._derived().row_of[belief_id]]))

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
                "src": _split_ids(self.belief_sources[row]),
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
                source_event_ids=frozenset(_split_ids(self.belief_sources[row])),
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

    # -- derived lookups (rows by id and codes by name: built on first use, never stored;
    #    the lookups' orders: stored in version 5 snapshots, else sorted on first use) ----

    def _derived(self) -> _Derived:
        derived: _Derived | None = self.__dict__.get(_DERIVED)
        if derived is None:
            derived = _Derived(
                row_of=dict(zip(self.belief_ids, range(len(self.belief_ids)), strict=True)),
                codes={
                    names: {name: code for code, name in enumerate(getattr(self, names))}
                    for names in _NAMES.values()
                },
            )
            self.__dict__[_DERIVED] = derived
        return derived

    def _lookups(self) -> _Lookups:
        """Rows sorted by statement, and subject entries (row, part) sorted by type and
        subject part; equal keys in row order. Every status: the subject lookup keeps
        the live rows only when read, so retiring or reviving a belief changes no order."""
        derived = self._derived()
        if derived.lookups is None:
            stored: dict[str, list[int]] | None = self.__dict__.pop(ORDERS, None)
            if stored is not None:
                derived.lookups = _Lookups(stored["statements"], stored["subjects"])
            else:
                # A replay without a version 5 snapshot: sorted once (stable: row order
                # within a key), then kept up by each formation.
                normalized = self.belief_normalized
                statements = sorted(range(len(normalized)), key=normalized.__getitem__)
                entries = [
                    row << _PART_BITS | part
                    for row, key in enumerate(self.belief_keys)
                    for part in range(len(_subject_list(key)))
                ]
                entries.sort(key=self._subject_entry_key)
                derived.lookups = _Lookups(statements, entries)
        return derived.lookups

    def _subject_entry_key(self, entry: int) -> str:
        """An entry's sort key: its type code as a character, then its subject part."""
        row = entry >> _PART_BITS
        parts = _subject_list(self.belief_keys[row])
        return chr(self.belief_types[row]) + parts[entry & _PART_MASK]

    def _subject_range(self, lookups: _Lookups, key: str) -> list[int]:
        entries, of = lookups.subjects, self._subject_entry_key
        start = bisect_left(entries, key, key=of)
        return entries[start : bisect_right(entries, key, start, key=of)]

    def _index_row(self, lookups: _Lookups, row: int) -> None:
        """The row's place in both orders: after the rows of its keys formed before it."""
        _insert_in_order(lookups.statements, row, 0, self.belief_normalized.__getitem__)
        for part in range(len(_subject_list(self.belief_keys[row]))):
            entry = row << _PART_BITS | part
            _insert_in_order(lookups.subjects, entry, _PART_BITS, self._subject_entry_key)

    def _unindex_row(self, lookups: _Lookups, row: int) -> None:
        lookups.statements.remove(row)
        parts = range(len(_subject_list(self.belief_keys[row])))
        for entry in [row << _PART_BITS | part for part in parts]:
            lookups.subjects.remove(entry)

    def _retire(self, belief_id: str, status: Status) -> None:
        row = self._derived().row_of[belief_id]
        self.belief_statuses[row] = self._code("belief_statuses", status.value)

    def _revive(self, belief_id: str, status: Status) -> None:
        """Back to a live status: the subject lookup offers it again."""
        row = self._derived().row_of[belief_id]
        self.belief_statuses[row] = self._code("belief_statuses", status.value)

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
            _join_ids(b.source_event_ids),
            self._code("belief_projects", b.project),
            b.portable,
        )
        # Orders a snapshot stored are taken up before the table changes (kept current
        # from here on); without them the lookups are sorted when first needed.
        lookups = self._lookups() if ORDERS in self.__dict__ else derived.lookups
        row = derived.row_of.get(b.belief_id)
        if row is not None:
            # An id formed again keeps its place with the new values, as a dict key
            # would; its lookup entries are replaced.
            if lookups is not None:
                self._unindex_row(lookups, row)
            for column, value in zip(self._columns(), values, strict=True):
                column[row] = value
        else:
            row = derived.row_of[b.belief_id] = len(self.belief_ids)
            self.belief_ids.append(b.belief_id)
            for column, value in zip(self._columns(), values, strict=True):
                column.append(value)
        if lookups is not None:
            self._index_row(lookups, row)

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
        known = _split_ids(self.belief_sources[row])
        self.belief_sources[row] = _join_ids(sorted(set(known) | set(source_event_ids)))

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


@dataclass
class _Lookups:
    """Rows sorted by statement, and subject entries (``row << _PART_BITS | part``)
    sorted by type code and subject part; equal keys in row order."""

    statements: list[int]
    subjects: list[int]


def _insert_in_order(order: list[int], item: int, shift: int, key: Callable[[int], str]) -> None:
    """``item`` into ``order`` among the items of its key, by row (``item >> shift``): a
    new belief's row is the last, so it goes after them all."""
    value = key(item)
    start = bisect_left(order, value, key=key)
    end = bisect_right(order, value, start, key=key)
    order.insert(bisect_left(order, item >> shift, start, end, key=lambda i: i >> shift), item)


def _subject_parts(key: str) -> Iterable[str]:
    """subject_keys(key), without building a set for the usual single subject."""
    if SUBJECT_KEY_SEPARATOR in key:
        return subject_keys(key)
    return (key,) if key else ()


def _subject_list(key: str) -> tuple[str, ...]:
    """The subject parts in a fixed order: what a subject entry's part index counts."""
    if SUBJECT_KEY_SEPARATOR in key:
        return tuple(sorted(subject_keys(key)))
    return (key,) if key else ()


def _join_ids(ids: Iterable[str]) -> str:
    ids = list(ids)
    if any(_ID_SEP in i or _SEP in i for i in ids) or (ids and ids[0].startswith("[")):
        return json.dumps(ids)  # never a raw newline: JSON escapes it
    return _ID_SEP.join(ids)


def _split_ids(joined: str) -> list[str]:
    if joined.startswith("["):
        ids: list[str] = json.loads(joined)
        return ids
    return joined.split(_ID_SEP) if joined else []


def _pack(column: list[str], rows: int) -> str | list[str]:
    """A text column as one string, or the list itself if a value holds the separator."""
    joined = _SEP.join(column)
    return joined if joined.count(_SEP) == max(rows - 1, 0) else list(column)


def _unpack(packed: str | list[str], rows: int) -> list[str]:
    if isinstance(packed, list):
        return packed
    return packed.split(_SEP) if rows else []


@dataclass
class _Derived:
    row_of: dict[str, int]
    codes: dict[str, dict[str, int]]  # list of names -> name -> index
    lookups: _Lookups | None = None
