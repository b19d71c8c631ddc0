"""The SQLite recall index: the embedded default, in the same file as the event log.

Every call into ``sqlite3`` goes through ``_execute``, ``_executemany`` or
``_transaction``; each turns a ``sqlite3.Error`` into the library's ``StoreUnavailable``
(``memory_es/store_errors.py``), so nothing above the adapter sees a driver error.
"""

from __future__ import annotations

import fcntl
import os
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from memory_es.errors import RebuildInProgress, StoreUnavailable
from memory_es.projections.sql import REBUILD_PREFIX, SqlRecallIndex
from memory_es.store_errors import store_failure


class SqliteRecallIndex(SqlRecallIndex):
    dialect = "sqlite"

    def __init__(self, path: str, *, lock_timeout: float = 30.0) -> None:
        super().__init__()
        uri = path.startswith("file:")
        # The rebuild lock: an advisory lock on a file beside the database (flock: the
        # kernel lets go when its holder dies, kill -9 included, so none is ever stale).
        self._rebuild_lock_path = None if uri or path == ":memory:" else f"{path}.rebuild-lock"
        self._rebuilding = threading.Lock()  # a database with no file of its own
        try:
            # Autocommit mode: transactions are opened explicitly with BEGIN IMMEDIATE so
            # that a writer holds the database's write lock from its first read.
            self._conn = sqlite3.connect(
                path,
                uri=uri,
                timeout=lock_timeout,
                isolation_level=None,
                check_same_thread=False,
            )
        except sqlite3.Error as error:
            raise store_failure(error) from error
        if not uri or "mode=memory" not in path:
            self._execute("PRAGMA journal_mode=WAL")
        self._execute("PRAGMA synchronous=NORMAL")
        # 64 MiB of page cache (default 2 MiB): the lexeme index of a large principal
        # does not fit the default, and a rebuild then re-reads pages for every row.
        self._execute("PRAGMA cache_size=-65536")
        # Pages read through a memory map (up to 1 GiB of the file; address space, not
        # memory: the kernel's page cache holds them) instead of a read() and a copy
        # each: recall's row fetches are random page reads, measured ~25% less CPU for
        # 80 rows at 100k beliefs. A database with no file of its own ignores it.
        self._execute("PRAGMA mmap_size=1073741824")

    def _execute(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        try:
            return self._conn.execute(sql, tuple(params)).fetchall()
        except sqlite3.Error as error:
            raise store_failure(error) from error

    def _executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        try:
            self._conn.executemany(sql, rows)
        except sqlite3.Error as error:
            raise store_failure(error) from error

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        if self._conn.in_transaction:  # nested use inside one writer
            yield
            return
        self._execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            if self._conn.in_transaction:
                self._execute("ROLLBACK")
            raise
        else:
            self._execute("COMMIT")

    def _write_operational(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        # The connection autocommits: one executemany is a transaction by itself (inside
        # an open transaction it joins it); BEGIN IMMEDIATE ... COMMIT around it would
        # only add two statements to every batch.
        with self._lock:
            self._executemany(sql, rows)

    def _lock_tracking(self, name: str) -> None:
        """BEGIN IMMEDIATE already holds the database write lock."""

    # A swap drops and renames tables: every schema change bumps the schema version.
    _GENERATION_SQL = "(SELECT schema_version FROM pragma_schema_version)"

    def _in_transaction(self) -> bool:
        return self._conn.in_transaction

    def _has_table(self, name: str) -> bool:
        rows = self._execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)
        )
        return bool(rows)

    def _rename_rebuilt_indexes(self) -> None:
        """SQLite renames a table's own indexes with it; secondary ones are rebuilt."""
        rows = self._execute(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE ?"
            " AND sql IS NOT NULL",
            (REBUILD_PREFIX + "%",),
        )
        for (name,) in rows:
            self._execute(f"DROP INDEX IF EXISTS {name}")

    @contextmanager
    def rebuild_lock(self) -> Iterator[None]:
        if self._rebuild_lock_path is None:
            if not self._rebuilding.acquire(blocking=False):
                raise RebuildInProgress()
            try:
                yield
            finally:
                self._rebuilding.release()
            return
        try:
            fd = os.open(self._rebuild_lock_path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as error:
            raise StoreUnavailable(
                f"cannot open the rebuild lock {self._rebuild_lock_path}: {error.strerror}"
            ) from error
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise RebuildInProgress() from None
            yield
        finally:
            os.close(fd)  # closing the descriptor releases the lock

    def close(self) -> None:
        self._conn.close()
