"""What every phase shares: opening a store, settling it, percentiles, sample events."""

from __future__ import annotations

from typing import Any

import memory_es
from memory_es.benchmarks.perf import synthetic
from memory_es.es_internals import events_table_name


def _open(url: str, **kwargs: Any) -> memory_es.Memory:
    return memory_es.open(url, ids=memory_es.SequentialIds(), **kwargs)


def _ms(seconds: float) -> float:
    return round(seconds * 1000.0, 3)


def settle(memory: memory_es.Memory) -> None:
    """After a bulk load on PostgreSQL: planner statistics, as autovacuum would gather
    within a minute or so (a rebuild does this itself)."""
    analyze = getattr(memory.index, "analyze", None)
    if memory.spec.kind == "postgres" and analyze is not None:
        analyze()
        table = events_table_name(memory.app.recorder)
        memory.index.execute(f"ANALYZE {table}")  # type: ignore[attr-defined]


def percentiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)

    def pick(q: float) -> float:
        index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
        return ordered[index]

    return {"p50": pick(0.50), "p95": pick(0.95), "p99": pick(0.99)}


def _samples() -> list[tuple[str, bytes]]:
    """(topic, state) of real memory_es events: turns, beliefs, audits."""
    lines = synthetic.ingest_lines(sessions=20, turns_per_session=6, principals=3)
    with _open("memory://") as memory:
        memory.ingest(lines)
        return [
            (n.topic, n.state)
            for n in memory.app.recorder.select_notifications(start=None, limit=10_000)
        ]
