"""The PostgreSQL recall index: the scale-out store, beside the event log's tables.

The index reads and writes through a small connection pool (``psycopg_pool``), so a
connection the server dropped — a restart, ``pg_terminate_backend``, an idle timeout —
is discarded and the next call connects again. A statement outside a transaction (a
read, or idempotent) that meets a dropped connection runs again on another; a
transaction that meets one at BEGIN starts again on another; one that loses its
connection later fails, rolled back. Every ``psycopg.Error`` becomes the library's
``StoreUnavailable`` (``memory_es/store_errors.py``) where this adapter calls the driver:
``_run`` (a statement), ``_transaction``/``_begin`` and ``_pinned``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager, suppress
from typing import Any, TypeVar

import psycopg
from psycopg import sql as pgsql
from psycopg_pool import ConnectionPool

from memory_es.errors import RebuildInProgress
from memory_es.projections.sql import READ_MODEL_TABLES, REBUILD_PREFIX, SqlRecallIndex
from memory_es.store_errors import store_failure

# Any constant works: it only has to be the same for every process that migrates.
_MIGRATION_LOCK_KEY = 0x6D656D6573
# The rebuild lock's class (the first of two int4 keys); the second is the schema's hash,
# so rebuilds of two stores on one server never wait for each other.
_REBUILD_LOCK_CLASS = 0x6D656D72
# The index serializes its own statements (one lock), so one connection is in use at a
# time; the second covers a caller that holds one across a setup lock.
_POOL_MAX = 2
_CONNECT_TIMEOUT_SECONDS = 5.0
# From this many rows an upsert goes through COPY (below it the temporary table costs more).
_COPY_UPSERT_ROWS = 200

T = TypeVar("T")
Connection = psycopg.Connection[tuple[Any, ...]]


class PostgresRecallIndex(SqlRecallIndex):
    dialect = "postgres"

    def _holds_text(self, text: str) -> bool:
        return "\x00" not in text  # a belief stating one was quarantined, never stored

    def __init__(self, connect: Mapping[str, Any], *, schema: str = "public") -> None:
        """``connect``: psycopg's keyword arguments (``StoreSpec.pg_connect``), never a
        conninfo string a URL part could add settings to."""
        super().__init__()
        self._schema = schema
        self._connect = dict(connect)
        self._held = threading.local()  # the connection of the running transaction
        search_path = pgsql.SQL("SET search_path TO {}").format(pgsql.Identifier(schema))
        try:
            # One direct connection first: an unreachable server fails here at once with
            # the driver's own message, not after the pool's timeout. CREATE SCHEMA IF NOT
            # EXISTS is not safe against itself (two first opens at once: one fails on
            # pg_namespace's unique key), so it runs under the migration lock.
            with (
                psycopg.connect(
                    **{**connect, "connect_timeout": int(_CONNECT_TIMEOUT_SECONDS)},
                    autocommit=True,
                ) as conn,
                conn.transaction(),
            ):
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK_KEY,))
                conn.execute(
                    pgsql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(pgsql.Identifier(schema))
                )
        except psycopg.Error as error:
            raise store_failure(error) from error

        def configure(conn: Connection) -> None:
            conn.execute(search_path)

        self._pool: ConnectionPool[Connection] = ConnectionPool(
            "",
            kwargs={**connect, "autocommit": True},
            min_size=1,
            max_size=_POOL_MAX,
            configure=configure,
            timeout=_CONNECT_TIMEOUT_SECONDS,
            num_workers=1,
            name=f"memory_es read model {schema}",
            open=False,
        )
        try:
            self._pool.open(wait=True, timeout=_CONNECT_TIMEOUT_SECONDS)
        except psycopg.Error as error:
            self._pool.close()
            raise store_failure(error) from error

    @staticmethod
    def _dialect(sql: str) -> str:
        return sql.replace("%", "%%").replace("?", "%s")

    # -- the two ways into the driver: a statement, a transaction ---------------------------

    def _run(self, work: Callable[[Connection], T]) -> T:
        """``work`` on the transaction's connection, else on one from the pool."""
        held: Connection | None = getattr(self._held, "conn", None)
        if held is not None:
            try:
                return work(held)
            except psycopg.Error as error:
                raise store_failure(error) from error
        for attempt in range(_POOL_MAX + 1):
            used: Connection | None = None
            try:
                with self._pool.connection() as conn:
                    used = conn
                    return work(conn)
            except psycopg.Error as error:
                # A connection that died idle in the pool (the pool discards it): run
                # the statement on another. Outside a transaction every statement here
                # is a read or idempotent, so running it again is safe.
                if used is not None and used.broken and attempt < _POOL_MAX:
                    continue
                raise store_failure(error) from error
        raise AssertionError("unreachable")

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        held: Connection | None = getattr(self._held, "conn", None)
        if held is not None:  # nested: a savepoint on the same connection
            try:
                with held.transaction():
                    yield
            except psycopg.Error as error:
                raise store_failure(error) from error
            return
        stack = self._begin()
        try:
            with stack:
                yield
        except psycopg.Error as error:
            raise store_failure(error) from error
        finally:
            self._held.conn = None

    def _begin(self) -> ExitStack:
        """A pooled connection with BEGIN sent, held for this thread until the stack exits.
        A connection that died idle in the pool fails at BEGIN: take another."""
        for attempt in range(_POOL_MAX + 1):
            stack = ExitStack()
            conn: Connection | None = None
            try:  # a closed pool fails here, at the taking: the library's error too
                conn = stack.enter_context(self._pool.connection())
                stack.enter_context(conn.transaction())
            except psycopg.Error as error:
                with suppress(psycopg.Error):
                    stack.close()  # back to the pool, which discards a broken one
                if conn is not None and conn.broken and attempt < _POOL_MAX:
                    continue
                raise store_failure(error) from error
            self._held.conn = conn
            return stack
        raise AssertionError("unreachable")

    @contextmanager
    def _pinned(self) -> Iterator[None]:
        """Hold one pooled connection (no transaction) for session-level state."""
        if getattr(self._held, "conn", None) is not None:
            yield
            return
        try:
            with self._pool.connection() as conn:
                self._held.conn = conn
                try:
                    yield
                finally:
                    self._held.conn = None
        except psycopg.Error as error:
            raise store_failure(error) from error

    def _execute(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        statement, args = self._dialect(sql), tuple(params)

        def execute(conn: Connection) -> list[tuple[Any, ...]]:
            cursor = conn.execute(statement, args)
            return cursor.fetchall() if cursor.description else []

        return self._run(execute)

    def _executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        statement = self._dialect(sql)

        def executemany(conn: Connection) -> None:
            with conn.cursor() as cursor:
                cursor.executemany(statement, rows)

        self._run(executemany)

    def _insert_rows(
        self, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]
    ) -> None:
        # COPY: measured 2.5x faster than executemany for a rebuild's postings.
        statement = f"COPY {table} ({', '.join(columns)}) FROM STDIN"

        def copy_rows(conn: Connection) -> None:
            with conn.cursor() as cursor, cursor.copy(statement) as copy:
                for row in rows:
                    copy.write_row(row)

        self._run(copy_rows)

    def _upsert_rows(
        self,
        table: str,
        columns: Sequence[str],
        key: Sequence[str],
        rows: Sequence[Sequence[Any]],
    ) -> None:
        # Many rows: COPY into a temporary table (emptied at commit, rolled back with
        # the transaction) and one INSERT ... SELECT: a rebuild's scratch rows (each
        # page's every touched term) cost 5x less than through executemany.
        if len(rows) < _COPY_UPSERT_ROWS:
            super()._upsert_rows(table, columns, key, rows)
            return
        staging = f"upsert_{table}"
        names = ", ".join(columns)
        updates = ", ".join(f"{c} = excluded.{c}" for c in columns if c not in key)
        self._execute(
            f"CREATE TEMPORARY TABLE IF NOT EXISTS {staging} (LIKE {table}) ON COMMIT DELETE ROWS"
        )
        self._insert_rows(staging, columns, rows)
        self._execute(
            f"INSERT INTO {table} ({names}) SELECT {names} FROM {staging}"
            f" ON CONFLICT ({', '.join(key)}) DO UPDATE SET {updates}"
        )
        self._execute(f"TRUNCATE {staging}")

    @contextmanager
    def setup_lock(self) -> Iterator[None]:
        """eventsourcing's recorder runs CREATE OR REPLACE FUNCTION on every open; two
        processes doing it at once fail with "tuple concurrently updated"."""
        with self._lock, self._pinned():  # a session-level lock: one connection throughout
            self._execute("SELECT pg_advisory_lock(?)", (_MIGRATION_LOCK_KEY,))
            try:
                yield
            finally:
                self._execute("SELECT pg_advisory_unlock(?)", (_MIGRATION_LOCK_KEY,))

    @contextmanager
    def rebuild_lock(self) -> Iterator[None]:
        """A session-level advisory lock on a connection of its own, held for the whole
        rebuild: the server lets go when that connection ends (the holder died)."""
        try:
            conn = psycopg.connect(
                **{**self._connect, "connect_timeout": int(_CONNECT_TIMEOUT_SECONDS)},
                autocommit=True,
            )
        except psycopg.Error as error:
            raise store_failure(error) from error
        key = (_REBUILD_LOCK_CLASS, self._schema)
        with conn:
            try:
                row = conn.execute("SELECT pg_try_advisory_lock(%s, hashtext(%s))", key).fetchone()
            except psycopg.Error as error:
                raise store_failure(error) from error
            if not (row and row[0]):
                raise RebuildInProgress()
            try:
                yield
            finally:
                # Let go now: the server ends a closed connection's session (and its
                # locks) a moment later, and the next rebuild must not meet it.
                with suppress(psycopg.Error):
                    conn.execute("SELECT pg_advisory_unlock(%s, hashtext(%s))", key)

    def _lock_migrations(self) -> None:
        self._execute("SELECT pg_advisory_xact_lock(?)", (_MIGRATION_LOCK_KEY,))

    def _write_operational(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        # A recall trace is an operational record: losing the last few on a crash is
        # acceptable, waiting for a WAL flush on every batch is not.
        with self._lock, self._transaction():
            self._execute("SET LOCAL synchronous_commit TO OFF")
            self._executemany(sql, rows)

    def _for_update(self) -> str:
        return " FOR UPDATE"

    # Every UPDATE writes a new row version (a swap updates the tracking row too): the
    # transaction id that wrote the one visible now.
    _GENERATION_SQL = "xmin::text::bigint"

    def _in_transaction(self) -> bool:
        return getattr(self._held, "conn", None) is not None

    def _lock_tracking(self, name: str) -> None:
        self._execute("SELECT position FROM projection_tracking WHERE name = ? FOR UPDATE", (name,))

    def _has_table(self, name: str) -> bool:
        rows = self._execute(
            "SELECT 1 FROM pg_tables WHERE schemaname = ? AND tablename = ?", (self._schema, name)
        )
        return bool(rows)

    def _rename_rebuilt_indexes(self) -> None:
        rows = self._execute(
            "SELECT indexname FROM pg_indexes WHERE schemaname = ? AND indexname LIKE ?",
            (self._schema, REBUILD_PREFIX.replace("_", r"\_") + "%"),
        )
        for (name,) in rows:
            live = name[len(REBUILD_PREFIX) :]
            self._execute(f'ALTER INDEX "{name}" RENAME TO "{live}"')

    def _analyze(self) -> None:
        # The swapped-in tables were bulk-loaded and never analyzed: until autovacuum gets
        # to them the planner guesses a handful of rows per term and picks nested loops
        # (measured: recall at 200 beliefs 67 ms -> 2 ms; at 10k, 93 ms -> 44 ms mean).
        with self._lock:
            for table in READ_MODEL_TABLES:
                self._execute(f"ANALYZE {table}")

    def close(self) -> None:
        self._pool.close()
