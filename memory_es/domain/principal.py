"""The PrincipalMemory aggregate: every change to one principal's beliefs is an event here.

State stays small — what the resolver needs per belief — because aggregate snapshots
store the whole state; statements and evidence live in events and projections. The
beliefs are held as a table in columns (one list per field, one row per belief in
formation order). A version 5 snapshot is shaped for a cold load: each text column is
stored in chunks of rows, each chunk one string (TextColumn), and the resolver's lookups
are stored as three sorted orders of rows (by id, by statement, by type and subject),
each the base64 of an integer array. A load then decodes a few hundred long strings
instead of a million short ones and no list of integers; a command splits only the
chunks it reads and finds a belief, a statement or a subject by bisection, where the
version 4 state built dicts over every belief first.
"""

from __future__ import annotations

import base64
import json
import sys
from array import array
from bisect import bisect_left, bisect_right, insort
from collections.abc import Callable, Iterable, Iterator
from copy import copy
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from eventsourcing.domain import Aggregate, event
from eventsourcing.domain import Snapshot as AggregateSnapshot

from memory_es.domain.resolver import (
    Evidence,
    Existing,
    changed_words,
    names_object,
    retracted_objects,
    tells_of_change,
)
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
# Version 5 snapshots: the text columns (TextColumn), packed in chunks, under PACKED; the
# lookups' sorted orders of rows under ORDERS.
PACKED = "packed_columns"
ORDERS = "lookup_orders"
# Set on an aggregate loaded from an older snapshot (upcast_v4_v5): snapshot it on its
# next save. Never stored.
OUTDATED = "snapshot_outdated"
# ... and the integer (and boolean) columns, each the base64 of an array (_pack_ints).
INTEGERS = "integer_columns"
_INTEGER_COLUMNS = (
    "belief_types",
    "belief_polarities",
    "belief_authorities",
    "belief_statuses",
    "belief_sessions",
    "belief_seqs",
    "belief_projects",
    "belief_portable",
)
_BOOLEAN_COLUMNS = frozenset({"belief_polarities", "belief_portable"})
_TEXT_COLUMNS = (
    "belief_ids",
    "belief_keys",
    "belief_normalized",
    "belief_valid_from",
    "belief_sources",
)
# Between the values of a packed chunk: a newline, which JSON writes in two bytes (a
# control character takes six) and no normalized statement or subject key holds (their
# white space is collapsed); a column whose values hold one anyway is stored as a plain
# list (TextColumn.packed). A row's source ids are joined by a space, which no id holds
# (ids are generated; a row whose ids would hold either is kept as JSON: _join_ids).
_SEP = "\n"
_ID_SEP = " "
# A text column's chunk: this many rows, packed as one string until one of them is read.
_CHUNK_BITS = 10
_CHUNK = 1 << _CHUNK_BITS
_CHUNK_MASK = _CHUNK - 1
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
                row = aggregate._row(belief_id)
                known = _split_ids(aggregate.belief_sources[row])
                aggregate.belief_sources[row] = _join_ids([i for i in known if i not in gone])

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
            state.pop(OUTDATED, None)
            vars(aggregate).pop(OUTDATED, None)  # this snapshot is of the current shape
            lookups = aggregate._lookups()  # built now if no command needed them yet
            state[ORDERS] = lookups.packed()
            # Chunks no row was read from are stored as they were loaded.
            state[PACKED] = {column: state.pop(column).packed() for column in _TEXT_COLUMNS}
            state[INTEGERS] = {column: _pack_ints(state.pop(column)) for column in _INTEGER_COLUMNS}
            return snapshot

        def mutate(self, _: None) -> Any:
            aggregate = super().mutate(None)
            state = vars(aggregate)
            for column, stored in state.pop(PACKED, {}).items():
                state[column] = TextColumn.from_packed(stored)
            for column, packed in state.pop(INTEGERS, {}).items():
                values = _unpack_ints(packed)
                state[column] = list(map(bool, values)) if column in _BOOLEAN_COLUMNS else values
            return aggregate

    @staticmethod
    def create_id(tenant: str, principal: str) -> UUID:
        return principal_aggregate_id(principal=principal, tenant=tenant)

    @event(Created)
    def __init__(self, tenant: str, principal: str) -> None:
        self.tenant = tenant
        self.principal = principal
        # The belief table: row i of every column is the i-th belief formed. Plain JSON
        # types, for snapshots, but text (TextColumn: packed in chunks in a snapshot). A
        # value many rows repeat (type, status, session, project) is held once in a list
        # of names; the row holds its index there (_NAMES).
        self.belief_ids = TextColumn()
        self.belief_types: list[int] = []
        self.belief_keys = TextColumn()
        self.belief_normalized = TextColumn()
        self.belief_polarities: list[bool] = []
        self.belief_authorities: list[int] = []
        self.belief_statuses: list[int] = []
        self.belief_valid_from = TextColumn()
        self.belief_sessions: list[int] = []
        self.belief_seqs: list[int] = []
        self.belief_sources = TextColumn()  # each row's sorted ids, joined by _ID_SEP
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
                ids if isinstance(ids, str) else _join_ids(ids) for ids in sources
            ]
        for column in _TEXT_COLUMNS:
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
        live = {code for code, name in enumerate(self.status_names) if name in _LIVE}
        statuses = self.belief_statuses
        if kind is not None:
            for part in _subject_parts(incoming.subject_key):
                for entry in self._subject_range(lookups, chr(kind) + part):
                    row = entry >> _PART_BITS
                    if statuses[row] in live:
                        rows.add(row)
        objects = retracted_objects(incoming)
        if objects:
            # A retraction reaches every live positive belief naming what it retracts,
            # of any type: rare enough for a scan of the statements.
            polarities, norms = self.belief_polarities, self.belief_normalized
            for row, status in enumerate(statuses):
                if status in live and polarities[row] and names_object(norms[row], objects):
                    rows.add(row)
        return [self._existing(row) for row in sorted(rows)]

    def readings_carrying(self, belief_id: str, successor_normalized: str) -> list[str]:
        """The live positive inferences standing on one of ``belief_id``'s source turns
        that name a value it stated and its successor does not ("bristol" of "User lives
        in Bristol." for "User lives in Leeds."): the residue and sentence-level lines of
        the same turn, which carry the old state and go with it."""
        row = self._row(belief_id)
        if not self.belief_polarities[row]:
            return []  # a retraction replaced by another carries no old state
        values = changed_words(self.belief_normalized[row], successor_normalized)
        sources = set(_split_ids(self.belief_sources[row]))
        if not values or not sources:
            return []
        live = {code for code, name in enumerate(self.status_names) if name in _LIVE}
        out: list[str] = []
        for other, status in enumerate(self.belief_statuses):
            if (
                other != row
                and status in live
                and self.belief_polarities[other]
                and self.belief_authorities[other] == int(Authority.INFERRED)
                and names_object(self.belief_normalized[other], values)
                and not tells_of_change(self.belief_normalized[other])
                and sources.intersection(_split_ids(self.belief_sources[other]))
            ):
                out.append(self.belief_ids[other])
        return out

    def status_of(self, belief_id: str) -> Status | None:
        row = self._find_row(belief_id)
        return None if row is None else Status(self._status(row))

    def type_and_key(self, belief_id: str) -> tuple[str, str]:
        row = self._row(belief_id)
        return self._type(row), self.belief_keys[row]

    def authority_of(self, belief_id: str) -> Authority | None:
        row = self._find_row(belief_id)
        return None if row is None else Authority(self.belief_authorities[row])

    def evidence_of(self, belief_id: str) -> int:
        """How many source events back the belief."""
        return len(_split_ids(self.belief_sources[self._row(belief_id)]))

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
        keys, norms = list(self.belief_keys), list(self.belief_normalized)
        valid_from, sources = list(self.belief_valid_from), list(self.belief_sources)
        return {
            bid: {
                "type": self._type(row),
                "key": keys[row],
                "norm": norms[row],
                "pol": self.belief_polarities[row],
                "auth": self.belief_authorities[row],
                "status": self._status(row),
                "vf": valid_from[row],
                "sess": self._session(row),
                "seq": self.belief_seqs[row],
                "src": _split_ids(sources[row]),
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

    # -- derived lookups (codes by name: built on first use, never stored; the lookups'
    #    orders: stored in version 5 snapshots, else sorted on first use) ---------------

    def _derived(self) -> _Derived:
        derived: _Derived | None = self.__dict__.get(_DERIVED)
        if derived is None:
            derived = _Derived(
                codes={
                    names: {name: code for code, name in enumerate(getattr(self, names))}
                    for names in _NAMES.values()
                },
            )
            self.__dict__[_DERIVED] = derived
        return derived

    def _find_row(self, belief_id: str) -> int | None:
        """The belief's row: by bisection of the id order when the lookups are there (a
        version 5 snapshot stores them), else from a dict of every id (a replay that
        has not needed the lookups yet, which then need not sort them)."""
        derived = self._derived()
        lookups = derived.lookups
        if lookups is None and ORDERS in self.__dict__:
            lookups = self._lookups()
        if lookups is not None:
            ids, of = lookups.ids, self.belief_ids.__getitem__
            at = bisect_left(ids, belief_id, key=of)
            return ids[at] if at < len(ids) and of(ids[at]) == belief_id else None
        if derived.row_of is None:
            rows = range(len(self.belief_ids))
            derived.row_of = dict(zip(self.belief_ids, rows, strict=True))
        return derived.row_of.get(belief_id)

    def _row(self, belief_id: str) -> int:
        row = self._find_row(belief_id)
        if row is None:
            raise KeyError(belief_id)
        return row

    def _lookups(self) -> _Lookups:
        """Rows sorted by id and by statement, and subject entries (row, part) sorted by
        type and subject part; equal keys in row order. Every status: the subject lookup
        keeps the live rows only when read, so retiring or reviving a belief changes no
        order."""
        derived = self._derived()
        if derived.lookups is None:
            stored: dict[str, str] | None = self.__dict__.pop(ORDERS, None)
            if stored is not None:
                derived.lookups = _Lookups.from_packed(stored)
            else:
                # A replay without a version 5 snapshot: sorted once (stable: row order
                # within a key), then kept up by each formation.
                ids = list(self.belief_ids)
                by_id = sorted(range(len(ids)), key=ids.__getitem__)
                normalized = list(self.belief_normalized)
                statements = sorted(range(len(normalized)), key=normalized.__getitem__)
                entries = [
                    row << _PART_BITS | part
                    for row, key in enumerate(self.belief_keys)
                    for part in range(len(_subject_list(key)))
                ]
                entries.sort(key=self._subject_entry_key)
                derived.lookups = _Lookups(
                    array(_ROWS, by_id), array(_ROWS, statements), array(_ENTRIES, entries)
                )
        return derived.lookups

    def _subject_entry_key(self, entry: int) -> str:
        """An entry's sort key: its type code as a character, then its subject part
        (every bisection of a formation calls this: the one-subject case goes first)."""
        row = entry >> _PART_BITS
        key = self.belief_keys[row]
        if SUBJECT_KEY_SEPARATOR in key:
            key = _subject_list(key)[entry & _PART_MASK]
        return chr(self.belief_types[row]) + key

    def _subject_range(self, lookups: _Lookups, key: str) -> array[int]:
        entries, of = lookups.subjects, self._subject_entry_key
        start = bisect_left(entries, key, key=of)
        return entries[start : bisect_right(entries, key, start, key=of)]

    def _index_row(self, lookups: _Lookups, row: int) -> None:
        """The row's place in the statement and subject orders: after the rows of its
        keys formed before it."""
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
        row = self._row(belief_id)
        self.belief_statuses[row] = self._code("belief_statuses", status.value)

    def _revive(self, belief_id: str, status: Status) -> None:
        """Back to a live status: the subject lookup offers it again."""
        row = self._row(belief_id)
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
        values: tuple[Any, ...] = (
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
        row = self._find_row(b.belief_id)  # takes up the stored orders, if any
        lookups = derived.lookups
        if row is not None:
            # An id formed again keeps its place with the new values, as a dict key
            # would; its lookup entries are replaced.
            if lookups is not None:
                self._unindex_row(lookups, row)
            for column, value in zip(self._columns(), values, strict=True):
                column[row] = value
        else:
            row = len(self.belief_ids)
            self.belief_ids.append(b.belief_id)
            for column, value in zip(self._columns(), values, strict=True):
                column.append(value)
            if derived.row_of is not None:
                derived.row_of[b.belief_id] = row
            if lookups is not None:
                insort(lookups.ids, row, key=self.belief_ids.__getitem__)
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
        row = self._row(belief_id)
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
        row = self._row(belief_id)
        self.belief_authorities[row] = int(Authority.USER)
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

    def _columns(self) -> tuple[list[Any] | TextColumn, ...]:
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
    """Rows sorted by id and by statement, and subject entries (``row << _PART_BITS |
    part``) sorted by type code and subject part; equal keys in row order. Arrays of
    machine integers: a snapshot stores each as the base64 of its little-endian bytes,
    which decodes at memory speed (a JSON list of 100k integers takes ~8 ms)."""

    ids: array[int]
    statements: array[int]
    subjects: array[int]

    def packed(self) -> dict[str, str]:
        return {
            "ids": _array_text(self.ids),
            "statements": _array_text(self.statements),
            "subjects": _array_text(self.subjects),
        }

    @classmethod
    def from_packed(cls, stored: dict[str, str]) -> _Lookups:
        return cls(
            _text_array(_ROWS, stored["ids"]),
            _text_array(_ROWS, stored["statements"]),
            _text_array(_ENTRIES, stored["subjects"]),
        )


# A row number fits in 32 bits; a subject entry (a row shifted by _PART_BITS) in 64.
_ROWS = "i"
_ENTRIES = "q"


def _pack_ints(values: list[int] | list[bool]) -> dict[str, str]:
    """An integer column as the base64 of the smallest array that holds it (an array of
    a type too small for a value refuses it at C speed, so no scan in Python)."""
    for typecode in ("B", "H", "I"):
        try:
            packed = array(typecode, values)
        except OverflowError:
            continue
        return {"type": typecode, "data": _array_text(packed)}
    return {"type": "q", "data": _array_text(array("q", values))}


def _unpack_ints(packed: dict[str, str]) -> list[int]:
    return _text_array(packed["type"], packed["data"]).tolist()


def _array_text(values: array[int]) -> str:
    if sys.byteorder == "big":
        values = array(values.typecode, values)
        values.byteswap()
    return base64.b64encode(values.tobytes()).decode("ascii")


def _text_array(typecode: str, text: str) -> array[int]:
    values = array(typecode, base64.b64decode(text))
    if sys.byteorder == "big":
        values.byteswap()
    return values


def _insert_in_order(order: array[int], item: int, shift: int, key: Callable[[int], str]) -> None:
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


class TextColumn:
    """A column of text values in chunks of ``_CHUNK`` rows. A chunk a snapshot stored is
    one string (its values joined by ``_SEP``) until a row in it is read: a cold load
    splits only the chunks a command reaches — the few a bisection probes, those of the
    candidate rows — not every value of every column."""

    __slots__ = ("_chunks", "_rows")

    def __init__(self, values: Iterable[str] = ()) -> None:
        values = list(values)
        self._rows = len(values)
        self._chunks: list[str | list[str]] = [
            values[start : start + _CHUNK] for start in range(0, len(values), _CHUNK)
        ]

    @classmethod
    def from_packed(cls, stored: dict[str, Any]) -> TextColumn:
        if "values" in stored:
            return cls(stored["values"])
        column = cls()
        column._chunks = list(stored["chunks"])
        column._rows = int(stored["rows"])
        return column

    def packed(self) -> dict[str, Any]:
        """Each chunk as one string; every value as a plain list if one holds ``_SEP``."""
        chunks: list[str] = []
        for chunk in self._chunks:
            if isinstance(chunk, str):
                chunks.append(chunk)  # stored so, and never read since
                continue
            joined = _SEP.join(chunk)
            if joined.count(_SEP) != len(chunk) - 1:
                return {"values": list(self)}
            chunks.append(joined)
        return {"rows": self._rows, "chunks": chunks}

    def _chunk(self, number: int) -> list[str]:
        chunk = self._chunks[number]
        if isinstance(chunk, str):
            chunk = self._chunks[number] = chunk.split(_SEP)
        return chunk

    def _index(self, row: int) -> int:
        if row < 0:
            row += self._rows
        if not 0 <= row < self._rows:
            raise IndexError(row)
        return row

    def __getitem__(self, row: int) -> str:
        # The bisections' key: kept to one call for a row of a split chunk.
        if 0 <= row < self._rows:
            chunk = self._chunks[row >> _CHUNK_BITS]
            if type(chunk) is list:
                return chunk[row & _CHUNK_MASK]
        row = self._index(row)
        return self._chunk(row >> _CHUNK_BITS)[row & _CHUNK_MASK]

    def __setitem__(self, row: int, value: str) -> None:
        row = self._index(row)
        self._chunk(row >> _CHUNK_BITS)[row & _CHUNK_MASK] = value

    def append(self, value: str) -> None:
        if self._rows & _CHUNK_MASK == 0:
            self._chunks.append([value])
        else:
            self._chunk(len(self._chunks) - 1).append(value)
        self._rows += 1

    def __len__(self) -> int:
        return self._rows

    def __iter__(self) -> Iterator[str]:
        for number in range(len(self._chunks)):
            yield from self._chunk(number)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, TextColumn | list):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"TextColumn({list(self)!r})"


@dataclass
class _Derived:
    codes: dict[str, dict[str, int]]  # list of names -> name -> index
    lookups: _Lookups | None = None
    row_of: dict[str, int] | None = None  # only while there are no lookups (_find_row)
