"""Recall at scale: principals holding 1k-100k live beliefs, and the store building them."""

from __future__ import annotations

import gc
import statistics
import time
from datetime import timedelta
from typing import Any
from uuid import UUID

import memory_es
from memory_es.benchmarks.perf import synthetic
from memory_es.benchmarks.perf.phases.common import _ms, _open, percentiles, settle
from memory_es.domain.principal import FormedBelief, PrincipalMemory
from memory_es.domain.session import Session
from memory_es.domain.values import DEFAULT_TENANT, GENERAL_SCOPE, BeliefType, normalize_statement
from memory_es.es_internals import save_collected
from memory_es.policy import formation_policy
from memory_es.ports import FixedClock, iso


def build_beliefs(
    memory: memory_es.Memory,
    principal: str,
    n: int,
    text: synthetic.Text,
    *,
    per_session: int = 100,
) -> int:
    """n live beliefs for a fresh principal: the events formation writes for NEW outcomes."""
    app, ids = memory.app, memory.ids
    app.snapshotting_intervals = {}  # type: ignore[misc]  # one snapshot at the end
    aggregate = PrincipalMemory(tenant=DEFAULT_TENANT, principal=principal)
    at = synthetic.START
    policy = formation_policy()
    events: list[Any] = []
    touched: list[Any] = []
    written = 0
    for start in range(0, n, per_session):
        k = min(per_session, n - start)
        session = Session(
            id=UUID(ids.new_id()),
            tenant=DEFAULT_TENANT,
            principal=principal,
            project=GENERAL_SCOPE,
            opened_at=iso(at),
        )
        close_at = iso(at + timedelta(minutes=k + 1))
        for j in range(k):
            at += timedelta(minutes=1)
            statement, subject = text.statement()
            turn_id = ids.new_id()
            session.record_turn(
                turn_id=turn_id,
                role="user",
                text="I note " + statement.removeprefix("User notes "),
                trusted=True,
                at=iso(at),
                redactions=[],
                hazards=[],
            )
            aggregate.form_belief(
                FormedBelief(
                    belief_id=ids.new_id(),
                    statement=statement,
                    normalized=normalize_statement(statement),
                    belief_type=BeliefType.FACT.value,
                    subjects=[subject],
                    subject_key=normalize_statement(subject),
                    polarity=True,
                    authority=3,
                    confidence=0.9,
                    status="active",
                    project=GENERAL_SCOPE,
                    portable=True,
                    source_event_ids=[turn_id],
                    source_session_id=str(session.id),
                    source_seq=j + 1,
                    valid_from=iso(at),
                    formed_at=close_at,
                    policy=policy,
                    supersedes=None,
                    conflicts_with=None,
                )
            )
        at += timedelta(minutes=2)
        session.close(at=close_at, trigger="session_close")
        counts = {"proposed": k, "committed": k}
        aggregate.record_consolidation(
            session_id=str(session.id),
            trigger="session_close",
            policy=policy,
            extractor="bench_bulk@1",
            counts=counts,
            at=close_at,
        )
        events.extend(session.collect_events())
        events.extend(aggregate.collect_events())
        touched.append(session)
        if len(events) >= 5000 or start + k >= n:
            save_collected(app, events, [*touched, aggregate])
            written += len(events)
            events, touched = [], []
            memory.catch_up()
    del app.snapshotting_intervals  # the caller takes the one snapshot (_state_costs)
    return written


def _first_commands(
    memory: memory_es.Memory, principal: str, store: dict[str, Any], clock: FixedClock, n: int
) -> dict[str, Any]:
    """The first command of a fresh instance, from ``memory_es.open`` to its return (what
    a CLI run or a hook pays once its imports are done; this process has imported
    everything already): a ``close_session`` of a session another instance opened (a turn
    said), and a ``recall``. Each on its own fresh instance (ids of its own: per scale
    ``n``)."""
    clock.advance(3600)
    session_id = memory.open_session(principal)
    memory.say(session_id, "I live in Firsttown.")
    memory.traces.flush()  # the warm instance's deferred traces: written before the fresh one
    t0 = time.perf_counter()
    with memory_es.open(
        store["url"], ids=memory_es.SequentialIds(start=2 * 10**9 + n * 1000)
    ) as cold:
        cold.clock = clock
        cold.close_session(session_id)
        close_s = time.perf_counter() - t0
    query = synthetic.Text(seed=7).query()
    t0 = time.perf_counter()
    with memory_es.open(
        store["url"], ids=memory_es.SequentialIds(start=3 * 10**9 + n * 1000)
    ) as cold:
        cold.clock = clock
        cold.recall(principal, query)
        recall_s = time.perf_counter() - t0
    return {"first_command_ms": _ms(close_s), "first_recall_ms": _ms(recall_s)}


def _state_costs(
    memory: memory_es.Memory, principal: str, store: dict[str, Any], beliefs: int
) -> dict[str, Any]:
    """What the principal aggregate's size costs at this scale: its snapshot, a cold load
    from it, a command that forms one belief (median of three on a warm instance), and
    the same command as the first of a fresh instance (what a CLI run pays: the cold
    load and the resolver's lookups built)."""
    app = memory.app
    principal_id = PrincipalMemory.create_id(DEFAULT_TENANT, principal)
    t0 = time.perf_counter()
    app.take_snapshot(principal_id)
    take_s = time.perf_counter() - t0
    assert app.snapshots is not None
    snapshot = next(iter(app.snapshots.recorder.select_events(principal_id, desc=True, limit=1)))
    with _open(store["url"]) as cold:
        t0 = time.perf_counter()
        cold.app.repository.get(principal_id)
        cold_s = time.perf_counter() - t0
    clock = FixedClock(synthetic.START + timedelta(days=3650))
    memory.clock = clock
    closes = []
    for i in range(3):
        clock.advance(3600)
        session_id = memory.open_session(principal)
        memory.say(session_id, f"I live in Bigtown{i}.")
        t0 = time.perf_counter()
        memory.close_session(session_id)
        closes.append(time.perf_counter() - t0)
    # A fresh instance, with ids of its own (the warm one's SequentialIds go on from 1).
    with memory_es.open(store["url"], ids=memory_es.SequentialIds(start=10**9)) as cold:
        cold.clock = clock
        clock.advance(3600)
        session_id = cold.open_session(principal)
        cold.say(session_id, "I live in Coldtown.")
        t0 = time.perf_counter()
        cold.close_session(session_id)
        cold_close_s = time.perf_counter() - t0
    first = _first_commands(memory, principal, store, clock, beliefs)
    return {
        **first,
        "snapshot_kb_per_1k_beliefs": round(len(snapshot.state) / 1024 / (beliefs / 1000), 1),
        "snapshot_mb": round(len(snapshot.state) / 2**20, 2),
        "snapshot_bytes": len(snapshot.state),  # exact: the growth fit of a bounded state
        "snapshot_take_ms": _ms(take_s),
        "cold_load_snapshot_ms": _ms(cold_s),
        "close_session_ms": _ms(statistics.median(closes)),
        "cold_close_session_ms": _ms(cold_close_s),
    }


def phase_recall(store: dict[str, Any], cfg: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"recall": {}}
    with _open(store["url"]) as memory:
        for scale in cfg["recall_scales"]:
            text = synthetic.Text(seed=scale)
            t0 = time.perf_counter()
            events = build_beliefs(memory, f"holder{scale}", scale, text)
            build_s = time.perf_counter() - t0
            settle(memory)
            # The whole log rebuilt at this size (every scale so far): how rebuild time
            # grows with the log, beside recall and the snapshot (the suite's scaling fit).
            gc.collect()
            t0 = time.perf_counter()
            replayed = memory.rebuild_projections()
            rebuild_s = time.perf_counter() - t0
            queries = [text.query() for _ in range(cfg["recall_queries"] + 10)]
            for q in queries[:10]:  # warm the caches
                memory.recall(f"holder{scale}", q)
            latencies = []
            returned = 0
            for q in queries[10:]:
                t1 = time.perf_counter()
                result = memory.recall(f"holder{scale}", q)
                latencies.append(time.perf_counter() - t1)
                returned += len(result.items)
            p = percentiles(latencies)
            out["recall"][str(scale)] = {
                "recall_p50_ms": _ms(p["p50"]),
                "recall_p95_ms": _ms(p["p95"]),
                "recall_p99_ms": _ms(p["p99"]),
                "queries": len(latencies),
                "mean_items": returned / len(latencies),
                "build_events": events,
                "build_events_per_s": events / build_s,
                "rebuild_log_events": replayed,
                "rebuild_s": rebuild_s,
            }
            out["recall"][str(scale)].update(_state_costs(memory, f"holder{scale}", store, scale))
        out["log_head"] = memory.projection_status().log_head
    return out
