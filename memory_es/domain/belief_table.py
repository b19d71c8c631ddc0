"""The belief table: what the principal aggregate holds per belief, and the reads its
invariants make of it (the resolver's candidates, the lifecycle's checks by id).

The beliefs are held in columns (one list per field, one row per belief in formation
order), as attributes of the aggregate: a snapshot stores its state whole. A version 5
snapshot stores each text column packed in chunks (packed_columns.TextColumn) and the
resolver's lookups as three sorted orders of rows (by id, by statement, by type and
subject), so a command splits only the chunks it reads and finds a belief, a statement
or a subject by bisection.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right, insort
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from memory_es.domain.packed_columns import (
    TextColumn,
    array_text,
    join_ids,
    pack_ints,
    split_ids,
    text_array,
    unpack_ints,
)
from memory_es.domain.resolver import (
    Evidence,
    Existing,
    changed_words,
    names_object,
    retracted_objects,
    tells_of_change,
)
from memory_es.domain.values import (
    LIVE_STATUSES,
    SUBJECT_KEY_SEPARATOR,
    Authority,
    Status,
    subject_keys,
)

if TYPE_CHECKING:
    from memory_es.domain.principal import FormedBelief

_LIVE = frozenset(s.value for s in LIVE_STATUSES)
# Derived lookups live under this attribute; snapshots leave it out (pack_table).
DERIVED = "_derived_state"
# Version 5 snapshots: the text columns (TextColumn), packed in chunks, under PACKED; the
# lookups' sorted orders of rows under ORDERS.
PACKED = "packed_columns"
ORDERS = "lookup_orders"
# Set on an aggregate loaded from an older snapshot (upcast_v4_v5): snapshot it on its
# next save. Never stored.
OUTDATED = "snapshot_outdated"
# ... and the integer (and boolean) columns, each the base64 of an array (pack_ints).
INTEGERS = "integer_columns"
INTEGER_COLUMNS = (
    "belief_types",
    "belief_polarities",
    "belief_authorities",
    "belief_statuses",
    "belief_sessions",
    "belief_seqs",
    "belief_projects",
    "belief_portable",
)
BOOLEAN_COLUMNS = frozenset({"belief_polarities", "belief_portable"})
TEXT_COLUMNS = (
    "belief_ids",
    "belief_keys",
    "belief_normalized",
    "belief_valid_from",
    "belief_sources",
)
# A subject-lookup entry is a row and the index of one of its subject parts.
_PART_BITS = 16
_PART_MASK = (1 << _PART_BITS) - 1
# The columns that hold an index into a list of names, and that list.
NAMES = {
    "belief_types": "type_names",
    "belief_statuses": "status_names",
    "belief_sessions": "session_ids",
    "belief_projects": "project_names",
}


class BeliefTable:
    """The belief table's columns and reads, mixed into ``PrincipalMemory``: row i of
    every column is the i-th belief formed. Plain JSON types, for snapshots, but text
    (TextColumn: packed in chunks in a snapshot). A value many rows repeat (type,
    status, session, project) is held once in a list of names; the row holds its index
    there (NAMES)."""

    belief_ids: TextColumn
    belief_types: list[int]
    belief_keys: TextColumn
    belief_normalized: TextColumn
    belief_polarities: list[bool]
    belief_authorities: list[int]
    belief_statuses: list[int]
    belief_valid_from: TextColumn
    belief_sessions: list[int]
    belief_seqs: list[int]
    belief_sources: TextColumn  # each row's sorted ids, joined by ID_SEPARATOR
    belief_projects: list[int]
    belief_portable: list[bool]
    type_names: list[str]
    status_names: list[str]
    session_ids: list[str]
    project_names: list[str]
    # The lifecycle (version 3): pinned ids (sorted); deactivated ids with the status
    # each had before; the run ids whose usage is recorded (one event per run).
    pinned_ids: list[str]
    deactivated: dict[str, str]
    usage_runs: list[str]
    # Version 4: the ids the decay sweep retired (sorted) and not revived since; a
    # retirement for another reason (re-derivation) is not forgetting.
    forgotten_ids: list[str]

    def _start_table(self) -> None:
        """An empty table (the aggregate's ``Created``)."""
        self.belief_ids = TextColumn()
        self.belief_types = []
        self.belief_keys = TextColumn()
        self.belief_normalized = TextColumn()
        self.belief_polarities = []
        self.belief_authorities = []
        self.belief_statuses = []
        self.belief_valid_from = TextColumn()
        self.belief_sessions = []
        self.belief_seqs = []
        self.belief_sources = TextColumn()
        self.belief_projects = []
        self.belief_portable = []
        self.type_names = []
        self.status_names = []
        self.session_ids = []
        self.project_names = []
        self.pinned_ids = []
        self.deactivated = {}
        self.usage_runs = []
        self.forgotten_ids = []

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
        sources = set(split_ids(self.belief_sources[row]))
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
                and sources.intersection(split_ids(self.belief_sources[other]))
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
        return len(split_ids(self.belief_sources[self._row(belief_id)]))

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
                "src": split_ids(sources[row]),
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
                source_event_ids=frozenset(split_ids(self.belief_sources[row])),
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
        derived: _Derived | None = self.__dict__.get(DERIVED)
        if derived is None:
            derived = _Derived(
                codes={
                    names: {name: code for code, name in enumerate(getattr(self, names))}
                    for names in NAMES.values()
                },
            )
            self.__dict__[DERIVED] = derived
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
        codes = self._derived().codes[NAMES[column]]
        code = codes.get(name)
        if code is None:
            code = codes[name] = len(codes)
            getattr(self, NAMES[column]).append(name)
        return code

    # -- events --------------------------------------------------------------------------

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
            join_ids(b.source_event_ids),
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

    def _add_sources(self, belief_id: str, source_event_ids: Iterable[str]) -> None:
        row = self._row(belief_id)
        known = split_ids(self.belief_sources[row])
        self.belief_sources[row] = join_ids(sorted(set(known) | set(source_event_ids)))

    def _drop_sources(self, belief_id: str, gone: set[str]) -> None:
        row = self._row(belief_id)
        known = split_ids(self.belief_sources[row])
        self.belief_sources[row] = join_ids([i for i in known if i not in gone])

    def _set_authority(self, belief_id: str, authority: Authority) -> None:
        self.belief_authorities[self._row(belief_id)] = int(authority)

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
            "ids": array_text(self.ids),
            "statements": array_text(self.statements),
            "subjects": array_text(self.subjects),
        }

    @classmethod
    def from_packed(cls, stored: dict[str, str]) -> _Lookups:
        return cls(
            text_array(_ROWS, stored["ids"]),
            text_array(_ROWS, stored["statements"]),
            text_array(_ENTRIES, stored["subjects"]),
        )


# A row number fits in 32 bits; a subject entry (a row shifted by _PART_BITS) in 64.
_ROWS = "i"
_ENTRIES = "q"


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


@dataclass
class _Derived:
    codes: dict[str, dict[str, int]]  # list of names -> name -> index
    lookups: _Lookups | None = None
    row_of: dict[str, int] | None = None  # only while there are no lookups (_find_row)


def pack_table(table: BeliefTable, state: dict[str, Any]) -> None:
    """A snapshot's state of the table, packed (version 5): the derived lookups left out
    and their orders kept, the text and integer columns packed."""
    state.pop(DERIVED, None)  # the derived lookups are rebuilt, their orders kept
    state[ORDERS] = table._lookups().packed()  # built now if no command needed them yet
    # Chunks no row was read from are stored as they were loaded.
    state[PACKED] = {column: state.pop(column).packed() for column in TEXT_COLUMNS}
    state[INTEGERS] = {column: pack_ints(state.pop(column)) for column in INTEGER_COLUMNS}


def unpack_table(state: dict[str, Any]) -> None:
    """A loaded snapshot's packed columns, as the table holds them."""
    for column, stored in state.pop(PACKED, {}).items():
        state[column] = TextColumn.from_packed(stored)
    for column, packed in state.pop(INTEGERS, {}).items():
        values = unpack_ints(packed)
        state[column] = list(map(bool, values)) if column in BOOLEAN_COLUMNS else values
