"""Recall traces: operational records of what a recall returned, dropped and blocked.

Not events and not a projection of the log — a rebuild leaves them alone. A trace has
two tiers (seed "trace retention"): the user-safe tier (returned, cited, blocked, the
count dropped for budget) lives as long as the trace; the operator tier (arm latencies,
candidate counts, the dropped-for-budget ids) expires ``operator_retention_days`` after
the recall, when :meth:`TraceStore.expire_operator_fields` nulls it. No belief text and
no query text is stored.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING, Any

import orjson

if TYPE_CHECKING:
    from memory_es.projections.sql import SqlRecallIndex

OPERATOR_FIELDS = (
    "lexical_ms",
    "vector_ms",
    "rank_ms",
    "total_ms",
    "lexical_candidates",
    "vector_candidates",
    "dropped",
)
_JSON = frozenset({"returned", "cited", "blocked", "dropped"})


@dataclass(frozen=True)
class TraceRecord:
    trace_id: str
    principal: str
    kind: str
    session_id: str | None
    created_at: str
    operator_expires_at: str
    operator_expired: bool
    policy: str
    as_of: str | None
    item_limit: int
    returned: tuple[str, ...]
    cited: tuple[str, ...]
    blocked: tuple[str, ...]
    dropped_count: int
    conflicts: int
    # -- operator tier: None once expired ---------------------------------------------
    lexical_ms: float | None
    vector_ms: float | None
    rank_ms: float | None
    total_ms: float | None
    lexical_candidates: int | None
    vector_candidates: int | None
    dropped: tuple[str, ...] | None

    def as_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def expired(self) -> TraceRecord:
        cleared: dict[str, Any] = dict.fromkeys(OPERATOR_FIELDS)
        return replace(self, operator_expired=True, **cleared)


TRACE_COLUMNS = tuple(f.name for f in fields(TraceRecord))


def _encode(trace: TraceRecord) -> list[Any]:
    out: list[Any] = []
    for column in TRACE_COLUMNS:
        value = getattr(trace, column)
        if column in _JSON and value is not None:
            value = orjson.dumps(list(value)).decode()
        elif column == "operator_expired":
            value = int(value)
        out.append(value)
    return out


def _decode(row: Sequence[Any]) -> TraceRecord:
    values: dict[str, Any] = {}
    for column, value in zip(TRACE_COLUMNS, row, strict=True):
        if column in _JSON and value is not None:
            value = tuple(orjson.loads(value))
        elif column == "operator_expired":
            value = bool(value)
        elif column.endswith("_ms") and value is not None:
            value = float(value)
        values[column] = value
    return TraceRecord(**values)


class TraceStore(ABC):
    @abstractmethod
    def record(self, trace: TraceRecord) -> None:
        """Keep the trace; a store may defer the write (see :meth:`flush`): every read
        through this store sees it at once, another process after the flush."""

    def flush(self) -> None:  # noqa: B027 - a store that writes at once has nothing held
        """Write the traces :meth:`record` held back (the owner calls it on close)."""

    @abstractmethod
    def get(self, trace_id: str) -> TraceRecord | None: ...

    @abstractmethod
    def for_principal(self, principal: str) -> list[TraceRecord]:
        """The principal's traces, oldest first."""

    @abstractmethod
    def mark_cited(self, trace_id: str, principal: str, cited: Sequence[str]) -> int:
        """Union returned ids into the cited set; principal-scoped; idempotent.

        Only ids the trace returned can be cited. Returns how many became cited now.
        """

    @abstractmethod
    def count_expired(self, principal: str | None = None) -> int:
        """How many traces (of ``principal``, or all) have had their operator tier expired."""

    @abstractmethod
    def due_for_expiry(self, now: str) -> int:
        """How many traces a sweep at ``now`` would expire (a dry run changes nothing)."""

    @abstractmethod
    def expire_operator_fields(self, now: str, limit: int | None = None) -> int:
        """Null the operator tier of traces past their operator expiry (ISO ``now``).

        Returned, cited, blocked and the dropped count survive; a second sweep over the
        same traces changes nothing and returns 0.
        """


class MemoryTraceStore(TraceStore):
    def __init__(self) -> None:
        self._rows: dict[str, TraceRecord] = {}
        self._lock = threading.Lock()

    def record(self, trace: TraceRecord) -> None:
        with self._lock:
            self._rows[trace.trace_id] = trace

    def get(self, trace_id: str) -> TraceRecord | None:
        return self._rows.get(trace_id)

    def for_principal(self, principal: str) -> list[TraceRecord]:
        rows = [t for t in self._rows.values() if t.principal == principal]
        return sorted(rows, key=lambda t: (t.created_at, t.trace_id))

    def mark_cited(self, trace_id: str, principal: str, cited: Sequence[str]) -> int:
        with self._lock:
            trace = self._rows.get(trace_id)
            if trace is None or trace.principal != principal:
                return 0
            new = (set(cited) & set(trace.returned)) - set(trace.cited)
            if new:
                merged = tuple(sorted(set(trace.cited) | new))
                self._rows[trace_id] = replace(trace, cited=merged)
            return len(new)

    def count_expired(self, principal: str | None = None) -> int:
        return sum(
            1
            for t in self._rows.values()
            if t.operator_expired and (principal is None or t.principal == principal)
        )

    def due_for_expiry(self, now: str) -> int:
        return sum(1 for t in self._rows.values() if _due(t, now))

    def expire_operator_fields(self, now: str, limit: int | None = None) -> int:
        with self._lock:
            due = sorted(
                (t for t in self._rows.values() if _due(t, now)),
                key=lambda t: (t.operator_expires_at, t.trace_id),
            )
            if limit is not None:
                due = due[:limit]
            for trace in due:
                self._rows[trace.trace_id] = trace.expired()
            return len(due)


def _due(trace: TraceRecord, now: str) -> bool:
    return not trace.operator_expired and trace.operator_expires_at <= now


_INSERT = (
    f"INSERT INTO recall_traces ({', '.join(TRACE_COLUMNS)})"
    f" VALUES ({', '.join('?' for _ in TRACE_COLUMNS)})"
)


# Traces a SQL store holds before one batched write: recall's hot path writes nothing,
# one recall in TRACE_BATCH pays one executemany (and on PostgreSQL one commit).
TRACE_BATCH = 32


class SqlTraceStore(TraceStore):
    """Traces in the read-model database (SQLite or PostgreSQL), beside the recall index.

    Writes are deferred off recall's hot path: :meth:`record` queues the trace, and the
    queue is written in one statement when it holds :data:`TRACE_BATCH`, before any read
    or update of the traces through this store, and on :meth:`flush` (``Memory.close``
    calls it: a clean close loses none). A crash loses at most the queue, which the
    operational tier of a trace already allows (see the PostgreSQL adapter's
    ``synchronous_commit``)."""

    def __init__(self, index: SqlRecallIndex) -> None:
        self._index = index
        self._queued: list[list[Any]] = []

    def record(self, trace: TraceRecord) -> None:
        row = _encode(trace)
        with self._index.lock:
            self._queued.append(row)
            if len(self._queued) < TRACE_BATCH:
                return
        self.flush()

    def flush(self) -> None:
        with self._index.lock:
            rows, self._queued = self._queued, []
            if rows:
                self._index.write_operational(_INSERT, rows)

    def get(self, trace_id: str) -> TraceRecord | None:
        self.flush()
        with self._index.lock:
            rows = self._index.execute(
                f"SELECT {', '.join(TRACE_COLUMNS)} FROM recall_traces WHERE trace_id = ?",
                (trace_id,),
            )
        return _decode(rows[0]) if rows else None

    def for_principal(self, principal: str) -> list[TraceRecord]:
        self.flush()
        with self._index.lock:
            rows = self._index.execute(
                f"SELECT {', '.join(TRACE_COLUMNS)} FROM recall_traces WHERE principal = ?"
                " ORDER BY created_at, trace_id",
                (principal,),
            )
        return [_decode(r) for r in rows]

    def mark_cited(self, trace_id: str, principal: str, cited: Sequence[str]) -> int:
        self.flush()
        with self._index.transaction():
            rows = self._index.execute(
                "SELECT returned, cited FROM recall_traces WHERE trace_id = ? AND principal = ?"
                + self._index.for_update(),
                (trace_id, principal),
            )
            if not rows:
                return 0
            returned, before = set(orjson.loads(rows[0][0])), set(orjson.loads(rows[0][1]))
            new = (set(cited) & returned) - before
            if new:
                self._index.execute(
                    "UPDATE recall_traces SET cited = ? WHERE trace_id = ?",
                    (orjson.dumps(sorted(before | new)).decode(), trace_id),
                )
            return len(new)

    def count_expired(self, principal: str | None = None) -> int:
        self.flush()
        sql = "SELECT COUNT(*) FROM recall_traces WHERE operator_expired = 1"
        with self._index.lock:
            if principal is None:
                rows = self._index.execute(sql)
            else:
                rows = self._index.execute(sql + " AND principal = ?", (principal,))
        return int(rows[0][0])

    def due_for_expiry(self, now: str) -> int:
        self.flush()
        with self._index.lock:
            rows = self._index.execute(
                "SELECT COUNT(*) FROM recall_traces WHERE operator_expired = 0"
                " AND operator_expires_at <= ?",
                (now,),
            )
        return int(rows[0][0])

    def expire_operator_fields(self, now: str, limit: int | None = None) -> int:
        self.flush()
        nulls = ", ".join(f"{c} = NULL" for c in OPERATOR_FIELDS)
        with self._index.transaction():
            rows = self._index.execute(
                "SELECT trace_id FROM recall_traces WHERE operator_expired = 0"
                " AND operator_expires_at <= ? ORDER BY operator_expires_at, trace_id"
                + (" LIMIT ?" if limit is not None else ""),
                (now, limit) if limit is not None else (now,),
            )
            ids = [r[0] for r in rows]
            for start in range(0, len(ids), 500):
                chunk = ids[start : start + 500]
                marks = ", ".join("?" for _ in chunk)
                self._index.execute(
                    f"UPDATE recall_traces SET operator_expired = 1, {nulls}"
                    f" WHERE trace_id IN ({marks})",
                    chunk,
                )
            return len(ids)


def trace_store_for(index: object) -> TraceStore:
    from memory_es.projections.sql import SqlRecallIndex

    if isinstance(index, SqlRecallIndex):
        return SqlTraceStore(index)
    return MemoryTraceStore()
