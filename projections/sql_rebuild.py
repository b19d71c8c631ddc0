"""Rebuild-and-swap of the SQL read model: fill tables under the rebuild prefix from
position 0 (resumable page by page), then swap them for the live ones in one transaction.
"""

from __future__ import annotations

from memory_es.projections import candidates as cq
from memory_es.projections.base import REBUILD_SUFFIX, RECALL_INDEX
from memory_es.projections.sql_base import (
    _BLOCK_COLUMNS,
    LIVE_PREFIX,
    READ_MODEL_TABLES,
    REBUILD_PREFIX,
    REBUILD_TAILS,
    SqlBase,
    _Tail,
    load_migrations,
)

_TAIL_SIZE = f"length(data) / {cq.POSTING_SIZE}"  # records in the unfilled block
_TAILS_TABLE = {
    "sqlite": "CREATE TABLE {table} (principal TEXT NOT NULL, term TEXT NOT NULL,"
    " documents INTEGER NOT NULL, blocks INTEGER NOT NULL, data BLOB NOT NULL,"
    " PRIMARY KEY (principal, term)) WITHOUT ROWID",
    "postgres": "CREATE TABLE {table} (principal TEXT NOT NULL, term TEXT NOT NULL,"
    " documents BIGINT NOT NULL, blocks BIGINT NOT NULL, data BYTEA NOT NULL,"
    " PRIMARY KEY (principal, term))",
}


class SqlRebuild(SqlBase):
    """Rebuild tables filled beside the live ones, resumable, then swapped in at once."""

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

    def analyze(self) -> None:
        """Planner statistics for the read model's tables now (PostgreSQL: what a rebuild
        does after its swap, and a bulk load may want too)."""
        self._analyze()

    def _analyze(self) -> None:
        """After a swap: planner statistics for the fresh tables (PostgreSQL)."""
