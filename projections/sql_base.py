"""What the two SQL adapters share: the tables, the row codec, and the primitives an
adapter provides (connect, take the write lock, run a statement with ``?`` placeholders).

The recall index is built up in layers, a module each: this base, the rebuild-and-swap
(``sql_rebuild``), the writer a projection writes through (``sql_writer``) and the reads
(``sql``, whose ``SqlRecallIndex`` each adapter subclasses).
"""

from __future__ import annotations

import threading
from abc import abstractmethod
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from operator import attrgetter
from pathlib import Path
from typing import Any

import orjson

from memory_es.domain.values import Status
from memory_es.projections.base import RECALL_INDEX, RecallIndex
from memory_es.projections.recall_cache import RecallCache
from memory_es.projections.records import (
    BELIEF_COLUMNS,
    BOOL_COLUMNS,
    JSON_COLUMNS,
    BeliefRecord,
)

LIVE_PREFIX = ""
REBUILD_PREFIX = "rebuild_"
READ_MODEL_TABLES = (
    "beliefs",
    "belief_subjects",
    "belief_sources",
    "postings",
    "heads",
    "principals",
    "principal_stats",
    "term_stats",
    "belief_vectors",
    "sessions",
    "quarantined_events",
    "turns",
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


_BLOCK_COLUMNS = ("principal", "term", "block", "size", "data")
# A rebuild's scratch state beside its tables: each term's postings so far, its full
# blocks counted and its unfilled last block's bytes (dropped at the swap).
REBUILD_TAILS = f"{REBUILD_PREFIX}tails"


@dataclass
class _Tail:
    """A term's postings in a rebuild so far: full blocks written, the rest unwritten."""

    documents: int = 0
    blocks: int = 0
    data: bytes = b""


class SqlBase(RecallIndex):
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

    # -- the seam for tables beside the read model (recall traces) and for tools ----------

    @property
    def lock(self) -> threading.RLock:
        """The index's lock (re-entrant): hold it to make several statements one step
        for the other threads of this process."""
        return self._lock

    def execute(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """One statement (``?`` placeholders) under the index's lock; inside
        ``transaction()`` it is part of that transaction."""
        with self._lock:
            return self._execute(sql, params)

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """A write transaction under the index's lock (it serializes with every other
        writer of the read model)."""
        with self._lock, self._transaction():
            yield

    def insert_rows(
        self, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]
    ) -> None:
        """Append rows that cannot conflict, the adapter's bulk path (inside
        ``transaction()``)."""
        self._insert_rows(table, columns, rows)

    def write_operational(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        """A batch of operational records (recall traces) in one statement, its own
        transaction, written the store's cheapest way."""
        self._write_operational(sql, rows)

    def for_update(self) -> str:
        """The clause that row-locks a read for read-modify-write ('' where the write
        lock already serializes)."""
        return self._for_update()

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
