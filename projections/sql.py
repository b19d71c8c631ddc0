"""What the two SQL adapters share: every statement, the row codec, the writer.

Statements are written once with ``?`` placeholders; an adapter only says how to
connect, how to take the write lock, and how its placeholders look.
"""

from __future__ import annotations

import threading
from abc import abstractmethod
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from operator import attrgetter
from pathlib import Path
from typing import Any

import orjson

from memory_es.domain.values import Status
from memory_es.projections import candidates as cq
from memory_es.projections.base import REBUILD_SUFFIX, RECALL_INDEX, IndexWriter, RecallIndex
from memory_es.projections.recall_cache import RecallCache
from memory_es.projections.records import (
    BELIEF_COLUMNS,
    BOOL_COLUMNS,
    JSON_COLUMNS,
    SESSION_COLUMNS,
    BeliefRecord,
    Candidate,
    QuarantinedEvent,
    SessionRecord,
)
from memory_es.projections.vectors import vector_text

LIVE_PREFIX = ""
REBUILD_PREFIX = "rebuild_"
READ_MODEL_TABLES = (
    "beliefs",
    "postings",
    "heads",
    "principals",
    "principal_stats",
    "term_stats",
    "belief_vectors",
    "sessions",
    "quarantined_events",
)

BOOTSTRAP = (
    "CREATE TABLE IF NOT EXISTS projection_tracking ("
    " name TEXT PRIMARY KEY, position BIGINT NOT NULL, version TEXT)",
    "CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY)",
)

_SELECT_BELIEF = "SELECT " + ", ".join(f"b.{c}" for c in BELIEF_COLUMNS)


def load_migrations(dialect: str) -> list[tuple[str, list[str], list[str]]]:
    """(name, table statements, index statements) per migration file, in order."""
    # The package's own folder (installed as files, never zipped): importlib.resources
    # would cost every command's start-up ~10 ms of imports (zipfile, tempfile, shutil).
    from memory_es import migrations

    folder = Path(migrations.__file__).parent / dialect
    out = []
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(".sql"):
            continue
        statements = [s.strip() for s in entry.read_text().split(";") if s.strip()]
        tables = [s for s in statements if not s.upper().startswith("CREATE INDEX")]
        indexes = [s for s in statements if s.upper().startswith("CREATE INDEX")]
        out.append((entry.name, tables, indexes))
    return out


def _json_text(value: Any) -> str:
    return orjson.dumps(list(value)).decode()


def _json_tuple(value: Any) -> tuple[str, ...]:
    return tuple(orjson.loads(value))


def _same(value: Any) -> Any:
    return value


_STATUSES: dict[str, Status] = {status.value: status for status in Status}

# One converter per column, chosen once (the codec runs for every row read and written).
_ENCODERS: tuple[Callable[[Any], Any], ...] = tuple(
    _json_text
    if c in JSON_COLUMNS
    else int
    if c in BOOL_COLUMNS
    else str
    if c == "status"
    else _same
    for c in BELIEF_COLUMNS
)
_DECODERS: tuple[Callable[[Any], Any], ...] = tuple(
    _json_tuple
    if c in JSON_COLUMNS
    else bool
    if c in BOOL_COLUMNS
    else float
    if c in ("confidence", "utility")
    else _STATUSES.__getitem__
    if c == "status"
    else _same
    for c in BELIEF_COLUMNS
)


# Only these columns change type on the way out (a rebuild encodes every belief).
_ENCODED: tuple[tuple[int, Callable[[Any], Any]], ...] = tuple(
    (i, f) for i, f in enumerate(_ENCODERS) if f is not _same
)
_FIELDS_OF = attrgetter(*BELIEF_COLUMNS)


def encode_record(record: BeliefRecord, *extra: Any) -> tuple[Any, ...]:
    """The record's row in BELIEF_COLUMNS order, then ``extra`` (the insert's belief_no)."""
    values = list(_FIELDS_OF(record))
    for i, convert in _ENCODED:
        values[i] = convert(values[i])
    values.extend(extra)
    return tuple(values)


# Only these columns change type on the way in (recall decodes every candidate row).
_CONVERTED: tuple[tuple[int, Callable[[Any], Any]], ...] = tuple(
    (i, f) for i, f in enumerate(_DECODERS) if f is not _same
)
_CONVERTED_BY_NAME = tuple((BELIEF_COLUMNS[i], f) for i, f in _CONVERTED)
_new = object.__new__
_set_dict = object.__setattr__


def decode_record(row: Sequence[Any]) -> BeliefRecord:
    if len(row) < len(BELIEF_COLUMNS):  # a row without the defaulted trailing columns
        values = list(row)
        for i, convert in _CONVERTED:
            if i < len(values):
                values[i] = convert(values[i])
        return BeliefRecord(*values)
    # Every field present and typed: the record takes its field dict whole, as the
    # projector's lean reader builds events. The frozen dataclass's __init__ sets its 25
    # fields one object.__setattr__ at a time, most of a row's decoding cost (recall
    # decodes every candidate).
    fields = dict(zip(BELIEF_COLUMNS, row, strict=False))  # extra columns are not its
    for name, convert in _CONVERTED_BY_NAME:
        fields[name] = convert(fields[name])
    record: BeliefRecord = _new(BeliefRecord)
    _set_dict(record, "__dict__", fields)
    return record


class SqlRecallIndex(RecallIndex):
    dialect: str

    def __init__(self) -> None:
        self._lock = threading.RLock()
        # A rebuild keeps each term's unfilled last block here (a cache of the scratch
        # table rebuild_tails, loaded when it resumes) and writes full blocks only once.
        self._rebuild_tails: dict[tuple[str, str], _Tail] = {}
        self._hot = RecallCache()

    # -- what an adapter provides ---------------------------------------------------------

    @abstractmethod
    def _execute(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Run one statement (``?`` placeholders) and return its rows, if any."""

    @abstractmethod
    def _executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None: ...

    def _insert_rows(
        self, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]
    ) -> None:
        """Append rows that cannot conflict (new beliefs, their postings): the bulk path."""
        marks = ", ".join("?" for _ in columns)
        self._executemany(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})", rows)

    def _upsert_rows(
        self,
        table: str,
        columns: Sequence[str],
        key: Sequence[str],
        rows: Sequence[Sequence[Any]],
    ) -> None:
        """Insert rows, each replacing the row of its key if there is one."""
        marks = ", ".join("?" for _ in columns)
        updates = ", ".join(f"{c} = excluded.{c}" for c in columns if c not in key)
        self._executemany(
            f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})"
            f" ON CONFLICT ({', '.join(key)}) DO UPDATE SET {updates}",
            rows,
        )

    @abstractmethod
    @contextmanager
    def _transaction(self) -> Iterator[None]:
        """A write transaction that serializes with every other writer of the read model."""

    @abstractmethod
    def _lock_tracking(self, name: str) -> None:
        """Inside a transaction: hold the tracking row until commit."""

    @abstractmethod
    def _has_table(self, name: str) -> bool: ...

    # The second half of the read model's token (SQL over the tracking row, beside its
    # position): a value that changes whenever the tables are swapped by a rebuild, which
    # may leave the position where it was.
    _GENERATION_SQL: str

    @abstractmethod
    def _in_transaction(self) -> bool:
        """A transaction of this thread is open: its reads may see uncommitted rows."""

    @abstractmethod
    def _rename_rebuilt_indexes(self) -> None:
        """After the swap: give indexes built under the rebuild prefix their live names."""

    # -- schema -----------------------------------------------------------------------------

    def migrate(self) -> None:
        """Create the read-model tables and apply pending migrations, idempotently."""
        with self._lock, self._transaction():
            # The lock first: CREATE TABLE IF NOT EXISTS races itself on PostgreSQL.
            self._lock_migrations()
            for statement in BOOTSTRAP:
                self._execute(statement)
            applied = {row[0] for row in self._execute("SELECT name FROM schema_migrations")}
            for name, tables, indexes in load_migrations(self.dialect):
                if name in applied:
                    continue
                for statement in tables + indexes:
                    self._execute(statement.format(p=LIVE_PREFIX))
                self._execute("INSERT INTO schema_migrations (name) VALUES (?)", (name,))
            self._ensure_tracking(RECALL_INDEX)

    def _lock_migrations(self) -> None:
        """Serialize concurrent first opens (PostgreSQL); SQLite's write lock already does."""

    def _write_operational(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        """One write of a batch of operational records (recall traces), its own
        transaction: it need not wait for the disk, so each store does it its cheapest
        way."""
        with self._lock, self._transaction():
            self._executemany(sql, rows)

    def _for_update(self) -> str:
        """A row lock for read-modify-write (PostgreSQL); SQLite's write lock already holds."""
        return ""

    def _ensure_tracking(self, name: str, version: str | None = None) -> None:
        self._execute(
            "INSERT INTO projection_tracking (name, position, version) VALUES (?, 0, ?)"
            " ON CONFLICT (name) DO NOTHING",
            (name, version),
        )

    # -- writing ---------------------------------------------------------------------------

    @contextmanager
    def writer(self, *, rebuild: bool = False) -> Iterator[IndexWriter]:
        name = RECALL_INDEX + REBUILD_SUFFIX if rebuild else RECALL_INDEX
        prefix = REBUILD_PREFIX if rebuild else LIVE_PREFIX
        with self._lock, self._transaction():
            self._lock_tracking(name)
            writer = _SqlWriter(self, name, prefix)
            try:
                yield writer
                writer.flush()
            except BaseException:
                writer.restore_tails()  # the transaction rolls back: so do the rebuild's tails
                raise

    def start_rebuild(self) -> int:
        """Resume the interrupted rebuild of this version where its last page committed,
        or create empty rebuild tables (dropping leftovers of another version); returns
        the position it starts from. Each term's unfilled last block is kept in the
        scratch table ``rebuild_tails`` (written with every page) and in memory."""
        self._rebuild_tails = {}
        with self._lock, self._transaction():
            left = self._rebuild_row()
            # Leftovers of a rebuild by earlier code kept their tails in memory: lost.
            if left is not None and left[1] == self.version and self._has_table(REBUILD_TAILS):
                for principal, term, documents, blocks, data in self._execute(
                    f"SELECT principal, term, documents, blocks, data FROM {REBUILD_TAILS}"
                ):
                    self._rebuild_tails[(principal, term)] = _Tail(
                        int(documents), int(blocks), bytes(data)
                    )
                return left[0]
            self._drop_rebuild_tables()
            for _, tables, _ in load_migrations(self.dialect):
                for statement in tables:
                    self._execute(statement.format(p=REBUILD_PREFIX))
            self._execute(_TAILS_TABLE[self.dialect].format(table=REBUILD_TAILS))
            self._ensure_tracking(RECALL_INDEX + REBUILD_SUFFIX, self.version)
        return 0

    def _rebuild_row(self) -> tuple[int, str | None] | None:
        rows = self._execute(
            "SELECT position, version FROM projection_tracking WHERE name = ?",
            (RECALL_INDEX + REBUILD_SUFFIX,),
        )
        return (int(rows[0][0]), rows[0][1]) if rows else None

    def _drop_rebuild_tables(self) -> None:
        for table in (*READ_MODEL_TABLES, "tails"):
            self._execute(f"DROP TABLE IF EXISTS {REBUILD_PREFIX}{table}")
        self._execute(
            "DELETE FROM projection_tracking WHERE name = ?", (RECALL_INDEX + REBUILD_SUFFIX,)
        )

    def rebuild_leftover(self) -> tuple[int, str | None] | None:
        with self._lock:
            return self._rebuild_row()

    def discard_rebuild(self) -> None:
        self._rebuild_tails = {}
        with self._lock, self._transaction():
            self._drop_rebuild_tables()

    def finish_rebuild(self) -> None:
        with self._lock, self._transaction():
            self._lock_tracking(RECALL_INDEX)
            row = self._rebuild_row()
            if row is None:
                raise RuntimeError("no rebuild in progress")
            self._write_rebuild_tails()
            for table in READ_MODEL_TABLES:
                self._execute(f"DROP TABLE IF EXISTS {table}")
                self._execute(f"ALTER TABLE {REBUILD_PREFIX}{table} RENAME TO {table}")
            self._execute(f"DROP TABLE {REBUILD_TAILS}")
            self._rename_rebuilt_indexes()
            for _, _, indexes in load_migrations(self.dialect):
                for statement in indexes:
                    self._execute(statement.format(p=LIVE_PREFIX))
            self._execute(
                "UPDATE projection_tracking SET position = ?, version = ? WHERE name = ?",
                (row[0], self.version, RECALL_INDEX),
            )
            self._execute(
                "DELETE FROM projection_tracking WHERE name = ?", (RECALL_INDEX + REBUILD_SUFFIX,)
            )
        self._rebuild_tails = {}
        self._analyze()

    def _write_rebuild_tails(self) -> None:
        """The rebuild's unfilled last blocks and every term's directory row, once (from
        the scratch table: what the committed pages left, whichever process wrote them)."""
        self._execute(
            f"INSERT INTO {REBUILD_PREFIX}postings ({', '.join(_BLOCK_COLUMNS)})"
            f" SELECT principal, term, blocks, {_TAIL_SIZE}, data FROM {REBUILD_TAILS}"
            f" WHERE {_TAIL_SIZE} > 0",
            (),
        )
        self._execute(
            f"INSERT INTO {REBUILD_PREFIX}term_stats (principal, term, documents, blocks)"
            f" SELECT principal, term, documents, blocks + CASE WHEN {_TAIL_SIZE} > 0"
            f" THEN 1 ELSE 0 END FROM {REBUILD_TAILS}",
            (),
        )

    def _analyze(self) -> None:
        """After a swap: planner statistics for the fresh tables (PostgreSQL)."""

    # -- reading ---------------------------------------------------------------------------

    def tracked_position(self) -> int:
        with self._lock:
            rows = self._execute(
                "SELECT position FROM projection_tracking WHERE name = ?", (RECALL_INDEX,)
            )
        return int(rows[0][0]) if rows else 0

    def stored_version(self) -> str | None:
        with self._lock:
            rows = self._execute(
                "SELECT version FROM projection_tracking WHERE name = ?", (RECALL_INDEX,)
            )
        return rows[0][0] if rows else None

    def head_position(self, principal: str) -> int:
        with self._lock:
            rows = self._execute("SELECT position FROM heads WHERE principal = ?", (principal,))
        return int(rows[0][0]) if rows else 0

    def get(self, belief_id: str) -> BeliefRecord | None:
        with self._lock:
            rows = self._execute(
                f"{_SELECT_BELIEF} FROM beliefs b WHERE b.belief_id = ?", (belief_id,)
            )
        return decode_record(rows[0]) if rows else None

    def beliefs(self, principal: str) -> list[BeliefRecord]:
        with self._lock:
            rows = self._execute(
                f"{_SELECT_BELIEF} FROM beliefs b WHERE b.principal = ?"
                " ORDER BY b.position, b.belief_id",
                (principal,),
            )
        return [decode_record(r) for r in rows]

    def quarantined(self) -> list[QuarantinedEvent]:
        with self._lock:
            rows = self._execute(
                "SELECT position, originator_id, topic, error FROM quarantined_events"
                " ORDER BY position"
            )
        return [QuarantinedEvent(int(p), o, t, e) for p, o, t, e in rows]

    def reserve_ids(self, count: int, at_least: int) -> int:
        with self._lock, self._transaction():
            self._execute(
                "INSERT INTO id_sequence (name, next) VALUES (?, 1) ON CONFLICT (name) DO NOTHING",
                (_SEQUENTIAL_IDS,),
            )
            rows = self._execute(
                f"SELECT next FROM id_sequence WHERE name = ?{self._for_update()}",
                (_SEQUENTIAL_IDS,),
            )
            first = max(int(rows[0][0]), at_least)
            self._execute(
                "UPDATE id_sequence SET next = ? WHERE name = ?", (first + count, _SEQUENTIAL_IDS)
            )
        return first

    def find_by_short_id(self, short_id: str) -> list[BeliefRecord]:
        with self._lock:
            rows = self._execute(
                f"{_SELECT_BELIEF} FROM beliefs b WHERE b.short_id = ? ORDER BY b.belief_id",
                (short_id,),
            )
        return [decode_record(r) for r in rows]

    def _statistics(self, principal: str, terms: Sequence[str]) -> tuple[int, int, dict[str, int]]:
        # One statement (one round trip on PostgreSQL): the principal's row, term NULL,
        # each held term's document frequency, and the read model's token, term '' (no
        # term is empty): what the recall cache is checked against.
        marks = ", ".join("?" for _ in terms)
        with self._lock:
            rows = self._execute(
                f"{cq.STATS_SQL} UNION ALL SELECT term, documents, 0 FROM term_stats"
                f" WHERE principal = ? AND term IN ({marks})"
                f" UNION ALL SELECT '', position, {self._GENERATION_SQL} FROM projection_tracking"
                " WHERE name = ?",
                [principal, principal, *terms, RECALL_INDEX],
            )
            documents, total, held = 0, 0, {}
            token: tuple[int, int] | None = None
            for term, n, length in rows:
                if term is None:
                    documents, total = int(n), int(length)
                elif term == "":
                    token = (int(n), int(length))
                else:
                    held[term] = int(n)
            self._hot.check(None if self._in_transaction() else token)
        return documents, total, held

    def candidates(self, *args: Any, **kwargs: Any) -> list[Candidate]:
        # One lock around the whole read (statements were serialized on it already): the
        # statistics checked the cache's token and the reads after them use that cache.
        with self._lock:
            return super().candidates(*args, **kwargs)

    def _ranked(
        self,
        principal: str,
        weights: Sequence[cq.TermWeight],
        filters: cq.Filters,
        avgdl: float,
        bm25: cq.Bm25Params,
        cap: int,
    ) -> list[Candidate]:
        hot = self._hot
        # A term's scored postings are a function of its postings (fixed while the token
        # holds), its weight, avgdl and the parameters: all of them in the key.
        keys = {w.term: (principal, w.term, w.weight, avgdl, bm25.k1, bm25.b) for w in weights}
        kept = {w.term: got for w in weights if (got := hot.scored.get(keys[w.term])) is not None}
        missing = [w for w in weights if w.term not in kept]
        by_term: dict[str, list[bytes]] = {}
        if missing:
            marks = ", ".join("?" for _ in missing)
            with self._lock:
                rows = self._execute(
                    f"SELECT term, data FROM postings WHERE principal = ? AND term IN ({marks})"
                    " ORDER BY term, block",
                    [principal, *(w.term for w in missing)],
                )
            for term, data in rows:
                by_term.setdefault(term, []).append(bytes(data))
        scored: list[cq.Scored] = []
        for w in weights:
            got = kept.get(w.term)
            if got is None:
                # A term no belief holds is kept too (empty): it is not asked for again.
                got = cq.term_scores(w, cq.unpack(by_term.get(w.term, [])), avgdl, bm25)
                hot.keep_scored(keys[w.term], got)
            if len(got.numbers):
                scored.append((w, got))

        def valid(chosen: list[int]) -> dict[int, BeliefRecord]:
            # Fetched by key alone and filtered here (the twin of the SQL filters): with
            # the filters in the statement the planner may walk the position index instead.
            found: dict[int, BeliefRecord] = {}
            records = hot.rows_of(principal, chosen)
            wanted = [n for n in chosen if n not in records]
            for start in range(0, len(wanted), _FETCH_CHUNK):
                part = wanted[start : start + _FETCH_CHUNK]
                with self._lock:
                    fetched = self._execute(
                        f"{_SELECT_BELIEF}, b.belief_no FROM beliefs b WHERE b.principal = ?"
                        f" AND b.belief_no IN ({', '.join('?' for _ in part)})",
                        [principal, *part],
                    )
                for row in fetched:
                    records[int(row[-1])] = decode_record(row)
                hot.keep_rows(principal, records, part)
            for n, record in records.items():
                if cq.passes(record, filters):
                    found[n] = record
            return found

        return cq.top_candidates(scored, cap, valid)

    def _browse(self, principal: str, filters: cq.Filters, cap: int) -> list[Candidate]:
        sql, params = cq.browse_sql(_SELECT_BELIEF, filters, principal=principal, cap=cap)
        with self._lock:
            rows = self._execute(sql, params)
        return [Candidate(record=decode_record(r[:-2]), matched=0, lexical=0) for r in rows]

    def _vector_rows(self, principal: str, filters: cq.Filters) -> list[tuple[BeliefRecord, bytes]]:
        sql, params = cq.vectors_sql(_SELECT_BELIEF, filters, principal=principal)
        with self._lock:
            rows = self._execute(sql + " ORDER BY b.belief_id", params)
        return [(decode_record(r[:-1]), bytes(r[-1])) for r in rows]

    def lifecycle_candidates(self, query: cq.LifecycleQuery) -> list[BeliefRecord]:
        where, params = query.where_sql()
        with self._lock:
            rows = self._execute(
                f"{_SELECT_BELIEF} FROM beliefs b WHERE {where}"
                " ORDER BY b.last_evidence_at, b.belief_id LIMIT ?",
                (*params, query.limit),
            )
        return [decode_record(r) for r in rows]

    def idle_sessions(self, *, last_activity_before: str, limit: int) -> list[SessionRecord]:
        with self._lock:
            rows = self._execute(
                f"SELECT {', '.join(SESSION_COLUMNS)} FROM sessions"
                " WHERE closed_at IS NULL AND last_activity_at <= ?"
                " ORDER BY last_activity_at, session_id LIMIT ?",
                (last_activity_before, limit),
            )
        return [SessionRecord(*r) for r in rows]

    def formation_counts(self) -> list[tuple[str, str, int]]:
        with self._lock:
            rows = self._execute(
                "SELECT principal, formation, COUNT(*) FROM sessions"
                " WHERE formation IS NOT NULL GROUP BY principal, formation"
                " ORDER BY principal, formation"
            )
        return [(str(p), str(k), int(n)) for p, k, n in rows]

    def dump(self) -> dict[str, Any]:
        with self._lock:
            sessions = self._execute(
                f"SELECT {', '.join(SESSION_COLUMNS)} FROM sessions ORDER BY session_id"
            )
            beliefs = self._execute(f"{_SELECT_BELIEF} FROM beliefs b ORDER BY b.belief_id")
            numbered = self._execute("SELECT principal, belief_no, belief_id FROM beliefs")
            term_stats = self._execute(
                "SELECT principal, term, documents, blocks FROM term_stats ORDER BY principal, term"
            )
            blocks = self._execute(
                "SELECT principal, term, data FROM postings ORDER BY principal, term, block"
            )
            heads = self._execute("SELECT principal, position FROM heads ORDER BY principal")
            principals = self._execute(
                "SELECT aggregate_id, principal FROM principals ORDER BY aggregate_id"
            )
            stats = self._execute(
                "SELECT principal, documents, total_len FROM principal_stats ORDER BY principal"
            )
            vectors = self._execute(
                "SELECT belief_id, principal, vector FROM belief_vectors ORDER BY belief_id"
            )
        return {
            "beliefs": [decode_record(r).as_dict() for r in beliefs],
            "terms": cq.postings_rows(
                {(p, int(n)): b for p, n, b in numbered},
                ((p, t, bytes(data)) for p, t, data in blocks),
            ),
            "term_stats": [(p, t, int(n), int(b)) for p, t, n, b in term_stats],
            "heads": [(p, int(n)) for p, n in heads],
            "principals": [(a, p) for a, p in principals],
            "stats": [(p, int(d), int(n)) for p, d, n in stats],
            "vectors": [(k, p, bytes(v)) for k, p, v in vectors],
            "sessions": [tuple(r) for r in sessions],
        }


class _SqlWriter(IndexWriter):
    """Stages a page's changes in memory and writes them at the end, a statement per kind.

    A belief formed and then superseded or reinforced inside one page is written once, in
    its final state; rows are sent with ``executemany`` instead of a ``SELECT`` and an
    ``UPDATE`` per event. Reads of beliefs not staged yet go to the tables (or are
    fetched for a whole page at once through ``prefetch``). Everything still commits in
    the writer's one transaction, with the tracked position.
    """

    def __init__(self, index: SqlRecallIndex, name: str, prefix: str) -> None:
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
        self._heads: dict[str, int] = {}
        self._stats: dict[str, list[int]] = {}  # principal -> [documents, total_len] added
        self._vectors: list[tuple[str, str, bytes]] = []
        self._opened: dict[str, SessionRecord] = {}
        self._session_changes: dict[str, dict[str, Any]] = {}
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

    def open_session(self, record: SessionRecord) -> None:
        self._opened.setdefault(record.session_id, record)

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
        self._stats, self._vectors = {}, []
        self._opened, self._session_changes = {}, {}


# Every column but the key, in BELIEF_COLUMNS order (the key comes first).
_ASSIGN_ALL = ", ".join(f"{c} = ?" for c in BELIEF_COLUMNS[1:])
_BLOCK_COLUMNS = ("principal", "term", "block", "size", "data")
# A rebuild's scratch state beside its tables: each term's postings so far, its full
# blocks counted and its unfilled last block's bytes (dropped at the swap).
REBUILD_TAILS = f"{REBUILD_PREFIX}tails"
_TAIL_SIZE = f"length(data) / {cq.POSTING_SIZE}"  # records in the unfilled block
_TAILS_TABLE = {
    "sqlite": "CREATE TABLE {table} (principal TEXT NOT NULL, term TEXT NOT NULL,"
    " documents INTEGER NOT NULL, blocks INTEGER NOT NULL, data BLOB NOT NULL,"
    " PRIMARY KEY (principal, term)) WITHOUT ROWID",
    "postgres": "CREATE TABLE {table} (principal TEXT NOT NULL, term TEXT NOT NULL,"
    " documents BIGINT NOT NULL, blocks BIGINT NOT NULL, data BYTEA NOT NULL,"
    " PRIMARY KEY (principal, term))",
}


@dataclass
class _Tail:
    """A term's postings in a rebuild so far: full blocks written, the rest unwritten."""

    documents: int = 0
    blocks: int = 0
    data: bytes = b""


_PREFETCH_CHUNK = 500
_SEQUENTIAL_IDS = "sequential_ids"
# Belief numbers a statement asks for at once (SQLite allows 32,766 parameters).
_FETCH_CHUNK = 500
