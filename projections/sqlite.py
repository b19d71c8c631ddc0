"""The SQLite recall index: the embedded default, in the same file as the event log.

Every call into ``sqlite3`` goes through ``_execute``, ``_executemany`` or
``_transaction``; each turns a ``sqlite3.Error`` into the library's ``StoreUnavailable``
(``memory_es/store_errors.py``), so nothing above the adapter sees a driver error.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from memory_es.store_errors import store_failure
from projections.sql import REBUILD_PREFIX, SqlRecallIndex


class SqliteRecallIndex(SqlRecallIndex):
    dialect = "sqlite"

    def __init__(self, path: str, *, lock_timeout: float = 30.0) -> None:
        super().__init__()
        uri = path.startswith("file:")
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

    def _rename_rebuilt_indexes(self) -> None:
        """SQLite renames a table's own indexes with it; secondary ones are rebuilt."""
        rows = self._execute(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE ?"
            " AND sql IS NOT NULL",
            (REBUILD_PREFIX + "%",),
        )
        for (name,) in rows:
            self._execute(f"DROP INDEX IF EXISTS {name}")

    def close(self) -> None:
        self._conn.close()
