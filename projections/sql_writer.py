"""The SQL read model's writer: a page of projected events staged and written at once."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from memory_es.domain.values import subject_keys
from memory_es.projections import candidates as cq
from memory_es.projections.base import IndexWriter
from memory_es.projections.records import (
    BELIEF_COLUMNS,
    SESSION_COLUMNS,
    BeliefRecord,
    QuarantinedEvent,
    SessionRecord,
)
from memory_es.projections.sql_base import (
    _BLOCK_COLUMNS,
    _SELECT_BELIEF,
    REBUILD_PREFIX,
    REBUILD_TAILS,
    SqlBase,
    _Tail,
    decode_record,
    encode_record,
)
from memory_es.projections.vectors import vector_text

# Every column but the key, in BELIEF_COLUMNS order (the key comes first).
_ASSIGN_ALL = ", ".join(f"{c} = ?" for c in BELIEF_COLUMNS[1:])
_PREFETCH_CHUNK = 500


class _SqlWriter(IndexWriter):
    """Stages a page's changes in memory and writes them at the end, a statement per kind.

    A belief formed and then superseded or reinforced inside one page is written once, in
    its final state; rows are sent with ``executemany`` instead of a ``SELECT`` and an
    ``UPDATE`` per event. Reads of beliefs not staged yet go to the tables (or are
    fetched for a whole page at once through ``prefetch``). Everything still commits in
    the writer's one transaction, with the tracked position.
    """

    def __init__(self, index: SqlBase, name: str, prefix: str) -> None:
        self._index = index
        self._name = name
        self._p = prefix
        self._principals: dict[str, str] = {}
        self._new_principals: dict[str, str] = {}
        self._staged: dict[str, BeliefRecord] = {}  # final state of every touched belief
        self._inserted: set[str] = set()  # staged beliefs that are not in the table yet
        self._changed: set[str] = set()  # staged beliefs already in the table, changed
        self._loaded: dict[str, BeliefRecord | None] = {}  # read from the table, unchanged
        # (principal, term) -> (belief number, tf, length) of the postings added, in order
        self._postings: dict[tuple[str, str], list[tuple[int, int, int]]] = {}
        self._numbers: dict[str, int] = {}  # principal -> the last belief number given
        self._belief_numbers: dict[str, int] = {}  # staged new belief -> its number
        self._subjects: list[tuple[str, str, str, int]] = []  # principal, type, part, number
        self._sourced: set[str] = set()  # staged beliefs whose sources are new or grew
        self._heads: dict[str, int] = {}
        self._stats: dict[str, list[int]] = {}  # principal -> [documents, total_len] added
        self._vectors: list[tuple[str, str, bytes]] = []
        self._opened: dict[str, SessionRecord] = {}
        self._session_changes: dict[str, dict[str, Any]] = {}
        # turn id -> (session id, seq, antecedent words), and (session, seq) -> turn id
        self._turns: dict[str, tuple[str, int, str]] = {}
        self._turn_at: dict[tuple[str, int], str] = {}
        # A rebuild's tails as they were before this transaction changed them (None: new).
        self._tails_before: dict[tuple[str, str], _Tail | None] = {}

    def _run(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        if not sql.lstrip().upper().startswith("SELECT"):
            # A statement that writes directly (a writer method that does not stage) sees
            # every staged change first, and nothing staged can later overwrite it.
            self.flush()
        return self._index._execute(sql.format(p=self._p), params)

    def tracked_position(self) -> int:
        rows = self._run("SELECT position FROM projection_tracking WHERE name = ?", (self._name,))
        return int(rows[0][0]) if rows else 0

    def set_tracking(self, position: int) -> None:
        self._run(
            "UPDATE projection_tracking SET position = ?, version = ? WHERE name = ?",
            (position, self._index.version, self._name),
        )

    def name_principal(self, aggregate_id: str, principal: str) -> None:
        self._principals[aggregate_id] = principal
        self._new_principals[aggregate_id] = principal

    def principal_of(self, aggregate_id: str) -> str:
        if aggregate_id not in self._principals:
            rows = self._run(
                "SELECT principal FROM {p}principals WHERE aggregate_id = ?", (aggregate_id,)
            )
            if not rows:
                raise LookupError(f"no Created event seen for principal aggregate {aggregate_id}")
            self._principals[aggregate_id] = rows[0][0]
        return self._principals[aggregate_id]

    def prefetch(self, belief_ids: Collection[str]) -> None:
        wanted = [b for b in belief_ids if b not in self._staged and b not in self._loaded]
        for start in range(0, len(wanted), _PREFETCH_CHUNK):
            chunk = wanted[start : start + _PREFETCH_CHUNK]
            marks = ", ".join("?" for _ in chunk)
            rows = self._run(
                f"{_SELECT_BELIEF} FROM {{p}}beliefs b WHERE b.belief_id IN ({marks})", chunk
            )
            found = {r[0]: decode_record(r) for r in rows}
            for belief_id in chunk:
                self._loaded[belief_id] = found.get(belief_id)

    def get(self, belief_id: str) -> BeliefRecord | None:
        staged = self._staged.get(belief_id)
        if staged is not None:
            return staged
        if belief_id not in self._loaded:
            rows = self._run(
                f"{_SELECT_BELIEF} FROM {{p}}beliefs b WHERE b.belief_id = ?", (belief_id,)
            )
            self._loaded[belief_id] = decode_record(rows[0]) if rows else None
        return self._loaded[belief_id]

    def insert_belief(self, record: BeliefRecord, terms: Mapping[str, int]) -> None:
        self._staged[record.belief_id] = record
        self._inserted.add(record.belief_id)
        number = self._next_number(record.principal)
        self._belief_numbers[record.belief_id] = number
        self._subjects.extend(
            (record.principal, record.belief_type, part, number)
            for part in sorted(subject_keys(record.subject_key))
        )
        for term, n in terms.items():
            self._postings.setdefault((record.principal, term), []).append(
                (number, n, record.doc_len)
            )
        added = self._stats.setdefault(record.principal, [0, 0])
        added[0] += 1
        added[1] += record.doc_len
        encoder = self._index.vector_encoder
        if encoder is not None:
            self._vectors.append(
                (record.belief_id, record.principal, encoder.encode(vector_text(record)))
            )

    def _next_number(self, principal: str) -> int:
        """A principal's beliefs are numbered 1, 2, ... in the order they are indexed: the
        count of its beliefs so far (``principal_stats``; nothing is ever removed) plus one,
        so the postings of a term stay in number order when appended to."""
        if principal not in self._numbers:
            rows = self._run(
                "SELECT documents FROM {p}principal_stats WHERE principal = ?", (principal,)
            )
            self._numbers[principal] = int(rows[0][0]) if rows else 0
        self._numbers[principal] += 1
        return self._numbers[principal]

    def update_belief(self, belief_id: str, **changes: Any) -> None:
        current = self.get(belief_id)
        if current is None:
            raise LookupError(belief_id)
        self._staged[belief_id] = current.evolve(**changes)
        if belief_id not in self._inserted:
            self._changed.add(belief_id)
        if "source_event_ids" in changes:
            self._sourced.add(belief_id)

    def open_session(self, record: SessionRecord) -> None:
        self._opened.setdefault(record.session_id, record)

    def record_turn(self, session_id: str, seq: int, turn_id: str, words: str) -> None:
        self._turns.setdefault(turn_id, (session_id, seq, words))
        self._turn_at.setdefault((session_id, seq), turn_id)

    def antecedent_words(self, turn_id: str) -> str:
        turn = self._turns.get(turn_id)
        if turn is None:
            rows = self._run("SELECT session_id, seq FROM {p}turns WHERE turn_id = ?", (turn_id,))
            if not rows:
                return ""
            session_id, seq = str(rows[0][0]), int(rows[0][1])
        else:
            session_id, seq = turn[0], turn[1]
        before = self._turn_at.get((session_id, seq - 1))
        if before is not None:
            return self._turns[before][2]
        rows = self._run(
            "SELECT words FROM {p}turns WHERE session_id = ? AND seq = ?", (session_id, seq - 1)
        )
        return str(rows[0][0]) if rows else ""

    def update_session(self, session_id: str, **changes: Any) -> None:
        # Every change sets absolute values: the last one per column is the final state.
        self._session_changes.setdefault(session_id, {}).update(changes)

    def raise_head(self, principal: str, position: int) -> None:
        self._heads[principal] = max(position, self._heads.get(principal, position))

    def _append_postings(self) -> None:
        """Each touched term's new postings appended to its last block (read, extended,
        written back) and, past :data:`cq.BLOCK` records, to new blocks; the term's
        directory row (``term_stats``: documents, blocks) says which block is last."""
        if self._p == REBUILD_PREFIX:
            self._append_rebuild_postings()
            return
        index, p = self._index, self._p
        known: dict[tuple[str, str], tuple[int, int, bytes | None]] = {}
        by_principal: dict[str, list[str]] = {}
        for principal, term in self._postings:
            by_principal.setdefault(principal, []).append(term)
        for principal, terms in sorted(by_principal.items()):
            for start in range(0, len(terms), _PREFETCH_CHUNK):
                part = terms[start : start + _PREFETCH_CHUNK]
                # The last block is read only when it has room left.
                rows = index._execute(
                    f"SELECT s.term, s.documents, s.blocks, t.data FROM {p}term_stats s"
                    f" LEFT JOIN {p}postings t ON t.principal = s.principal AND t.term = s.term"
                    " AND t.block = s.blocks - 1 AND s.documents < s.blocks * ?"
                    f" WHERE s.principal = ? AND s.term IN ({', '.join('?' for _ in part)})",
                    [cq.BLOCK, principal, *part],
                )
                known.update(
                    ((principal, term), (int(n), int(b), None if d is None else bytes(d)))
                    for term, n, b, d in rows
                )
        rewritten: list[tuple[str, str, int, int, bytes]] = []
        added: list[tuple[str, str, int, int, bytes]] = []
        directory: list[tuple[str, str, int, int]] = []
        ordered = sorted(self._postings.items())
        packed = cq.pack_each([postings for _, postings in ordered])
        for (key, postings), appended in zip(ordered, packed, strict=True):
            documents, blocks, tail = known.get(key, (0, 0, None))
            first = blocks - 1 if tail is not None else blocks
            rows = cq.blocks(tail or b"", appended, first)
            for block, size, data in rows:
                (rewritten if tail is not None and block == first else added).append(
                    (*key, block, size, data)
                )
            directory.append((*key, documents + len(postings), rows[-1][0] + 1))
        if rewritten:
            index._executemany(
                f"UPDATE {p}postings SET size = ?, data = ?"
                " WHERE principal = ? AND term = ? AND block = ?",
                [
                    (n, data, principal, term, block)
                    for principal, term, block, n, data in rewritten
                ],
            )
        if added:
            index._insert_rows(f"{p}postings", _BLOCK_COLUMNS, added)
        index._executemany(
            f"INSERT INTO {p}term_stats (principal, term, documents, blocks) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (principal, term) DO UPDATE SET"
            " documents = excluded.documents, blocks = excluded.blocks",
            directory,
        )

    def _append_rebuild_postings(self) -> None:
        """In a rebuild only full blocks are written to the postings; each term's unfilled
        last block goes to the scratch table ``rebuild_tails`` (one row a term, written by
        every page that touches it, so a resumed rebuild finds it) and to the postings
        once, at the swap (:meth:`SqlRecallIndex._write_rebuild_tails`)."""
        tails = self._index._rebuild_tails
        full: list[tuple[str, str, int, int, bytes]] = []
        touched: list[tuple[str, str, int, int, bytes]] = []
        packed = cq.pack_each(list(self._postings.values()))
        for (key, postings), appended in zip(self._postings.items(), packed, strict=True):
            if key not in self._tails_before:
                known = tails.get(key)
                self._tails_before[key] = (
                    None if known is None else _Tail(known.documents, known.blocks, known.data)
                )
            tail = tails.setdefault(key, _Tail())
            pieces = cq.blocks(tail.data, appended, tail.blocks)
            tail.data = b""
            for block, size, data in pieces:
                if size < cq.BLOCK:
                    tail.data = data  # the last, unfilled: kept for the next page or the swap
                else:
                    full.append((*key, block, size, data))
                    tail.blocks = block + 1
            tail.documents += len(postings)
            touched.append((*key, tail.documents, tail.blocks, tail.data))
        if full:
            self._index._insert_rows(f"{REBUILD_PREFIX}postings", _BLOCK_COLUMNS, full)
        self._index._upsert_rows(
            REBUILD_TAILS,
            ("principal", "term", "documents", "blocks", "data"),
            ("principal", "term"),
            sorted(touched),
        )

    def restore_tails(self) -> None:
        """The transaction failed: the rebuild's tails as they were before it."""
        tails = self._index._rebuild_tails
        for key, before in self._tails_before.items():
            if before is None:
                tails.pop(key, None)
            else:
                tails[key] = before
        self._tails_before = {}

    def quarantine(self, event: QuarantinedEvent) -> None:
        self._run(
            "INSERT INTO {p}quarantined_events (position, originator_id, topic, error)"
            " VALUES (?, ?, ?, ?) ON CONFLICT (position) DO NOTHING",
            (event.position, event.originator_id, event.topic, event.error),
        )

    def flush(self) -> None:
        """Write everything staged (inside the writer's transaction) and forget it.

        Runs when the writer's transaction ends and before any statement a writer method
        sends directly (not through the staging methods), so such methods stay correct.
        """
        index, p = self._index, self._p
        if self._new_principals:
            index._executemany(
                f"INSERT INTO {p}principals (aggregate_id, principal) VALUES (?, ?)"
                " ON CONFLICT (aggregate_id) DO NOTHING",
                sorted(self._new_principals.items()),
            )
        if self._inserted:
            index._insert_rows(
                f"{p}beliefs",
                (*BELIEF_COLUMNS, "belief_no"),
                [
                    encode_record(self._staged[b], self._belief_numbers[b])
                    for b in sorted(self._inserted)
                ],
            )
        if self._subjects:
            index._insert_rows(
                f"{p}belief_subjects",
                ("principal", "belief_type", "subject", "belief_no"),
                sorted(self._subjects),
            )
        sourced = self._inserted | self._sourced
        if sourced:
            index._executemany(
                f"INSERT INTO {p}belief_sources (principal, source_event_id, belief_id)"
                " VALUES (?, ?, ?) ON CONFLICT (principal, source_event_id, belief_id) DO NOTHING",
                sorted(
                    (record.principal, source, b)
                    for b in sourced
                    for record in (self._staged[b],)
                    for source in record.source_event_ids
                ),
            )
        if self._changed:
            index._executemany(
                f"UPDATE {p}beliefs SET {_ASSIGN_ALL} WHERE belief_id = ?",
                [(*encode_record(self._staged[b])[1:], b) for b in sorted(self._changed)],
            )
        if self._postings:
            self._append_postings()
        if self._heads:
            index._executemany(
                f"INSERT INTO {p}heads (principal, position) VALUES (?, ?)"
                " ON CONFLICT (principal) DO UPDATE SET position = excluded.position"
                f" WHERE excluded.position > {p}heads.position",
                sorted(self._heads.items()),
            )
        if self._stats:
            index._executemany(
                f"INSERT INTO {p}principal_stats (principal, documents, total_len)"
                " VALUES (?, ?, ?) ON CONFLICT (principal) DO UPDATE SET"
                f" documents = {p}principal_stats.documents + excluded.documents,"
                f" total_len = {p}principal_stats.total_len + excluded.total_len",
                [(k, d, n) for k, (d, n) in sorted(self._stats.items())],
            )
        if self._vectors:
            index._insert_rows(
                f"{p}belief_vectors", ("belief_id", "principal", "vector"), sorted(self._vectors)
            )
        if self._opened:
            marks = ", ".join("?" for _ in SESSION_COLUMNS)
            index._executemany(
                f"INSERT INTO {p}sessions ({', '.join(SESSION_COLUMNS)}) VALUES ({marks})"
                " ON CONFLICT (session_id) DO NOTHING",
                [[getattr(r, c) for c in SESSION_COLUMNS] for _, r in sorted(self._opened.items())],
            )
        if self._turns:
            index._executemany(
                f"INSERT INTO {p}turns (turn_id, session_id, seq, words) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (turn_id) DO NOTHING",
                [(t, *row) for t, row in sorted(self._turns.items())],
            )
        by_columns: dict[tuple[str, ...], list[list[Any]]] = {}
        for session_id, changes in sorted(self._session_changes.items()):
            columns = tuple(sorted(changes))
            by_columns.setdefault(columns, []).append([*(changes[c] for c in columns), session_id])
        for columns, rows in by_columns.items():
            assignments = ", ".join(f"{c} = ?" for c in columns)
            index._executemany(f"UPDATE {p}sessions SET {assignments} WHERE session_id = ?", rows)
        self._new_principals = {}
        self._staged, self._inserted, self._changed, self._loaded = {}, set(), set(), {}
        self._postings, self._belief_numbers, self._heads = {}, {}, {}
        self._subjects, self._sourced = [], set()
        self._stats, self._vectors = {}, []
        self._opened, self._session_changes = {}, {}
        self._turns, self._turn_at = {}, {}
