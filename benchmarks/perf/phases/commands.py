"""Command latency over a long history."""

from __future__ import annotations

import time
from datetime import timedelta
from typing import Any

import memory_es
from memory_es.benchmarks.perf import synthetic
from memory_es.benchmarks.perf.phases.common import _ms, _open, percentiles, settle
from memory_es.domain.principal import PrincipalMemory
from memory_es.domain.values import DEFAULT_TENANT
from memory_es.es_internals import save_collected
from memory_es.policy import formation_policy
from memory_es.ports import FixedClock, iso


def build_history(memory: memory_es.Memory, principal: str, sessions: int, start: Any) -> None:
    """The principal's side of ``sessions`` chit-chat sessions: one ConsolidationRecorded
    each (what close_session writes when nothing forms), saved 5000 a transaction with
    aggregate snapshots on. The sessions' own events sit on other aggregates and do not
    bear on this principal's load, so they are left out."""
    app = memory.app
    principal_id = PrincipalMemory.create_id(DEFAULT_TENANT, principal)
    aggregate: PrincipalMemory
    try:
        aggregate = app.repository.get(principal_id)
    except Exception:
        aggregate = PrincipalMemory(tenant=DEFAULT_TENANT, principal=principal)
    policy = formation_policy()
    counts = {"proposed": 0, "committed": 0}
    at = start
    for n in range(sessions):
        at += timedelta(hours=1)
        aggregate.record_consolidation(
            session_id=memory.ids.new_id(),
            trigger="session_close",
            policy=policy,
            extractor="first_person@1",
            counts=counts,
            at=iso(at),
        )
        if len(aggregate.pending_events) >= 5000 or n == sessions - 1:
            save_collected(app, aggregate.collect_events(), [aggregate])
            memory.catch_up()


def phase_commands(store: dict[str, Any], cfg: dict[str, Any]) -> dict[str, Any]:
    """Command latency on one principal as its history grows (snapshots and cache on).

    The history is chit-chat sessions (see build_history) plus the measured sessions,
    each of which forms or supersedes a belief; the principal's version is its number of
    events.
    """
    out: dict[str, Any] = {"commands": {}}
    principal = "long"
    principal_id = PrincipalMemory.create_id(DEFAULT_TENANT, principal)
    built = 0
    start = synthetic.START
    with _open(store["url"]) as memory:
        for checkpoint in cfg["history_scales"]:
            build_history(memory, principal, checkpoint - built, start)
            start += timedelta(hours=checkpoint - built + 24)
            built = checkpoint
            settle(memory)
            clock = FixedClock(start)
            memory.clock = clock
            timings: dict[str, list[float]] = {"open": [], "say": [], "close": []}
            for i in range(cfg["command_cycles"]):
                clock.advance(3600)
                t0 = time.perf_counter()
                session_id = memory.open_session(principal)
                t1 = time.perf_counter()
                memory.say(session_id, f"I live in Town{checkpoint}x{i}.")
                t2 = time.perf_counter()
                memory.close_session(session_id)
                t3 = time.perf_counter()
                timings["open"].append(t1 - t0)
                timings["say"].append(t2 - t1)
                timings["close"].append(t3 - t2)
            start = clock.now()
            version: int = memory.app.repository.get(principal_id).version
            row: dict[str, Any] = {"principal_events": version}
            for name, samples in timings.items():
                p = percentiles(samples)
                row[f"{name}_p50_ms"] = _ms(p["p50"])
                row[f"{name}_p95_ms"] = _ms(p["p95"])
            # Cold: a fresh instance (empty cache) loads from the latest snapshot...
            with _open(store["url"]) as cold:
                t0 = time.perf_counter()
                cold.app.repository.get(principal_id)
                row["cold_load_snapshot_ms"] = _ms(time.perf_counter() - t0)
                # ...against a replay of the whole history without a snapshot.
                t0 = time.perf_counter()
                replayed: Any = None
                for event in cold.app.events.get(principal_id):
                    replayed = event.mutate(replayed)  # type: ignore[attr-defined]
                row["cold_replay_ms"] = _ms(time.perf_counter() - t0)
            out["commands"][str(checkpoint)] = row
    return out
