"""The benchmark phases. Each runs in its own process
(``python -m memory_es.benchmarks.perf.phase``) and returns a flat dict of figures; the
suite adds the peak RSS and the ratios.

Store building at scale uses two paths, both documented in docs/performance.md:

- ``memory.ingest`` (the real commands, batched) for everything that is formation;
- ``build_beliefs`` for principals holding 1k-100k live beliefs: the events the formation
  service writes for a session whose every proposal resolves NEW (``Session.Opened``,
  ``TurnRecorded``, ``Closed``; ``PrincipalMemory.BeliefFormed`` x n,
  ``ConsolidationRecorded``), built with the aggregates' own command methods but without
  running the resolver against every existing belief (which is formation's O(n) per
  proposal, see the report) and with one aggregate snapshot at the end instead of one
  every 200 events. The log and read model are the ones formation would produce.
"""

from __future__ import annotations

import gc
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from typing import Any
from uuid import UUID

import orjson

import memory_es
from memory_es.benchmarks.perf import library_path, physical, synthetic
from memory_es.domain.principal import FormedBelief, PrincipalMemory
from memory_es.domain.session import Session
from memory_es.domain.values import DEFAULT_TENANT, GENERAL_SCOPE, BeliefType, normalize_statement
from memory_es.es_internals import events_table_name
from memory_es.ingest import TurnLine
from memory_es.policy import formation_policy
from memory_es.ports import FixedClock, iso
from memory_es.services import BatchUnitOfWork, commands
from memory_es.services.handlers import handle_in
from memory_es.stores import parse_store_url
from memory_es.unit_of_work import save_collected


def _open(url: str, **kwargs: Any) -> memory_es.Memory:
    return memory_es.open(url, ids=memory_es.SequentialIds(), **kwargs)


def _ms(seconds: float) -> float:
    return round(seconds * 1000.0, 3)


def settle(memory: memory_es.Memory) -> None:
    """After a bulk load on PostgreSQL: planner statistics, as autovacuum would gather
    within a minute or so (a rebuild does this itself)."""
    analyze = getattr(memory.index, "_analyze", None)
    if memory.spec.kind == "postgres" and analyze is not None:
        analyze()
        table = events_table_name(memory.app.recorder)
        memory.index._execute(f"ANALYZE {table}")  # type: ignore[attr-defined]


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


# -- physical reference ------------------------------------------------------------------


def phase_physical(store: dict[str, Any], cfg: dict[str, Any]) -> dict[str, Any]:
    rows = physical.sample_rows(_samples(), cfg["physical_rows"])
    if store["kind"] == "sqlite":
        return physical.sqlite_reference(store["path"], rows, cfg["per_tx_rows"])
    spec = parse_store_url(store["url"])
    return physical.postgres_reference(spec.pg_connect, spec.pg_schema, rows, cfg["per_tx_rows"])


# -- library append ----------------------------------------------------------------------


def _turn_session(ids: Any, principal: str, turns: int, n: int) -> Session:
    """A session of ``turns`` user turns, unsaved: the event shapes the append phases
    time (benchmarks/perf/pairs.py keeps its own copy: it runs in other checkouts)."""
    session = Session(
        id=UUID(ids.new_id()),
        tenant=DEFAULT_TENANT,
        principal=principal,
        project=GENERAL_SCOPE,
        opened_at="2026-01-05T09:00:00Z",
    )
    for t in range(turns):
        session.record_turn(
            turn_id=ids.new_id(),
            role="user",
            text=f"I live in City{t}. My manager is Dana{n}.",
            trusted=True,
            at="2026-01-05T09:01:00Z",
            redactions=[],
            hazards=[],
        )
    return session


def phase_append(store: dict[str, Any], cfg: dict[str, Any]) -> dict[str, Any]:
    """eventsourcing + our transcoder: turn events saved 1000 per transaction and one each."""
    with _open(store["url"]) as memory:
        app, ids = memory.app, memory.ids
        n = cfg["physical_rows"]
        sessions = []
        for s in range(0, n, 500):
            sessions.append(_turn_session(ids, f"append{s}", 499, s))
        events = sum(len(s.pending_events) for s in sessions)
        gc.collect()
        t0 = time.perf_counter()
        for start in range(0, len(sessions), 2):  # ~1000 events a save
            app.save(*sessions[start : start + 2])
        batched = time.perf_counter() - t0

        session = Session(
            id=UUID(ids.new_id()),
            tenant=DEFAULT_TENANT,
            principal="append-one",
            project=GENERAL_SCOPE,
            opened_at="2026-01-05T09:00:00Z",
        )
        app.save(session)
        per_tx = cfg["per_tx_rows"]
        t0 = time.perf_counter()
        for t in range(per_tx):
            session.record_turn(
                turn_id=ids.new_id(),
                role="user",
                text=f"I live in City{t}.",
                trusted=True,
                at="2026-01-05T09:01:00Z",
                redactions=[],
                hazards=[],
            )
            app.save(session)
        one = time.perf_counter() - t0
        beside = _append_beside_library(memory, store, min(n, 20_000))
    out = {
        "append_events_per_s": events / batched,
        "append_one_per_tx_events_per_s": per_tx / one,
        "append_events": events,
    }
    out.update(beside)
    return out


def _append_beside_library(
    memory: memory_es.Memory, store: dict[str, Any], n: int, rounds: int = 5
) -> dict[str, Any]:
    """The same turn events built and saved ~1000 a transaction, timed from the first
    command to the last commit, three ways in five alternating rounds (medians): ours
    (``Session.record_turn``, our transcoder and snapshotting, saved through our unit of
    work's ``save_collected``), the library's aggregate path (``library_path``: an
    ``Aggregate`` with ``@event`` methods, a stock ``Application.save``), and the
    library's bare ``insert_events`` of the already encoded events."""
    n = max(500, n // 500 * 500)  # whole sessions of 500 events (an Opened, 499 turns)
    spec = parse_store_url(store["url"])
    library = library_path.open_library(spec.env)
    app, ids = memory.app, memory.ids
    per_session = 499

    def ours() -> float:
        t0 = time.perf_counter()
        batch: list[Session] = []
        for s in range(0, n, per_session + 1):
            batch.append(_turn_session(ids, f"ours{s}", per_session, s))
            if len(batch) == 2:
                save_collected(app, [e for b in batch for e in b.collect_events()], batch)
                batch = []
        if batch:
            save_collected(app, [e for b in batch for e in b.collect_events()], batch)
        return time.perf_counter() - t0

    def theirs() -> float:
        t0 = time.perf_counter()
        built = library_path.sessions(n, per_session)
        for start in range(0, len(built), 2):
            library.save(*built[start : start + 2])
        return time.perf_counter() - t0

    def bare() -> float:
        events = library_path.stored(library, library_path.sessions(n, per_session))
        t0 = time.perf_counter()
        library_path.insert_events(library, events, 1000)
        return time.perf_counter() - t0

    times: dict[str, list[float]] = {"ours": [], "library": [], "bare": []}
    try:
        for r in range(rounds):
            order = [("ours", ours), ("library", theirs), ("bare", bare)]
            for name, run in order if r % 2 == 0 else order[::-1]:
                gc.collect()
                times[name].append(run())
    finally:
        library.close()
    rate = {k: n / statistics.median(v) for k, v in times.items()}
    return {
        "append_record_save_events_per_s": rate["ours"],
        "append_library_events_per_s": rate["library"],
        "append_library_insert_events_per_s": rate["bare"],
        "append_of_library": rate["ours"] / rate["library"],
        "append_of_library_insert": rate["ours"] / rate["bare"],
        "append_library_events": n,
    }


# -- formation ---------------------------------------------------------------------------


def phase_formation(store: dict[str, Any], cfg: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    sessions, turns = cfg["formation_sessions"], cfg["formation_turns"]
    lines = synthetic.ingest_lines(sessions=sessions, turns_per_session=turns, principals=20)
    with _open(store["url"]) as memory:
        head = memory.projection_status().log_head
        t0 = time.perf_counter()
        report = memory.ingest(lines)
        elapsed = time.perf_counter() - t0
        events = memory.projection_status().log_head - head
        out["formation_turns_per_s"] = report.turns / elapsed
        out["formation_beliefs_per_s"] = report.formed / elapsed
        out["formation_events_per_s"] = events / elapsed
        out["formation_sessions"] = report.sessions
        out["formation_turns"] = report.turns
        out["formation_beliefs"] = report.formed
        out["formation_transactions"] = report.transactions

        # One session per transaction (still the bulk path's unit of work).
        per_session = synthetic.ingest_lines(
            sessions=max(10, sessions // 4),
            turns_per_session=turns,
            principals=20,
            seed=5,
            principal_prefix="q",
        )
        t0 = time.perf_counter()
        report = memory.ingest(per_session, flush_each_session=True)
        elapsed = time.perf_counter() - t0
        out["formation_per_session_turns_per_s"] = report.turns / elapsed
        out["formation_per_session_beliefs_per_s"] = report.formed / elapsed

        # The interactive API: every command its own transaction and catch-up.
        api_sessions = max(5, sessions // 10)
        api_lines = synthetic.ingest_lines(
            sessions=api_sessions,
            turns_per_session=turns,
            principals=20,
            seed=9,
            principal_prefix="r",
        )
        clock = FixedClock(synthetic.START)
        memory.clock = clock
        rows = [TurnLine.model_validate_json(line) for line in api_lines]
        t0 = time.perf_counter()
        formed = 0
        for s in range(api_sessions):
            chunk = rows[s * turns : (s + 1) * turns]
            clock.set(chunk[0].at)
            session_id = memory.open_session(chunk[0].principal)
            for row in chunk:
                clock.set(row.at)
                memory.say(session_id, row.text, role=row.role)
            formed += memory.close_session(session_id).counts.committed
        elapsed = time.perf_counter() - t0
        out["formation_api_turns_per_s"] = len(rows) / elapsed
        out["formation_api_beliefs_per_s"] = formed / elapsed

        # A 600-turn session: the formation step alone, then the whole session ingested.
        long_turns = cfg["formation_long_turns"]  # 600; the tiny test scale uses fewer
        out["formation_long_turns"] = long_turns
        long_lines = synthetic.ingest_lines(
            sessions=1,
            turns_per_session=2 * long_turns,
            principals=1,
            seed=13,
            principal_prefix="long",
        )
        user_lines = [line for line in long_lines if b'"role":"user"' in line][:long_turns]
        rows = [TurnLine.model_validate_json(line) for line in user_lines]
        memory.clock = clock
        clock.set(rows[0].at)
        session_id = memory.open_session("long600")

        def says(uow: BatchUnitOfWork) -> None:  # the says, saved at once
            for row in rows:
                clock.set(row.at)
                handle_in(commands.Say(session_id, row.text), uow)

        memory.services.run_batch(says)
        t0 = time.perf_counter()
        result = memory.close_session(session_id)
        out["formation_600_turn_close_s"] = time.perf_counter() - t0
        out["formation_600_turn_beliefs"] = result.counts.committed
        relabelled = [
            line.replace(b'"long0"', b'"long600b"').replace(b"long-s0", b"long-s0b")
            for line in user_lines
        ]
        t0 = time.perf_counter()
        memory.ingest(relabelled)
        out["formation_600_turn_session_s"] = time.perf_counter() - t0
    return out


# -- recall at scale ---------------------------------------------------------------------


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


def phase_rebuild(store: dict[str, Any], cfg: dict[str, Any]) -> dict[str, Any]:
    """Rebuild the recall index of the store another phase built, with 1 and with 2
    workers; a raw scan, the raw row writes and the tokenizer beside them (the ceiling).
    Each timed part is the best of ``rebuild_rounds`` (the rebuilds alternate 1, 2, 1, 2;
    each from a cold tokenizer, as in a fresh process)."""
    rounds = cfg.get("rebuild_rounds", 2)
    with _open(store["url"]) as memory:
        before = memory.index.dump() if cfg.get("verify_rebuild") else None
        runs: dict[int, list[tuple[float, float]]] = {1: [], 2: []}
        dumps: dict[int, Any] = {}
        replayed = 0
        for _ in range(rounds):
            for workers in (1, 2):
                _cold_tokenizer()
                gc.collect()
                children = resource.getrusage(resource.RUSAGE_CHILDREN)
                c0, t0 = time.process_time(), time.perf_counter()
                replayed = memory.rebuild_projections(workers=workers)
                elapsed = time.perf_counter() - t0
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                child_cpu = (after.ru_utime - children.ru_utime) + (
                    after.ru_stime - children.ru_stime
                )
                runs[workers].append((elapsed, time.process_time() - c0 + child_cpu))
                if workers not in dumps:
                    dumps[workers] = memory.index.dump()
        if before is not None and dumps[1] != before:
            raise AssertionError("the rebuilt read model differs from the one followed live")
        table = events_table_name(memory.app.recorder) or ""
        write_s, rows_written = min(_raw_read_model_write(memory) for _ in range(rounds))
        cold_tokenize_s = min(_tokenize_time(memory, cold=True) for _ in range(rounds))
        tokenize_s = min(_tokenize_time(memory) for _ in range(rounds))
        alone = _projector_only(memory)
    if store["kind"] == "sqlite":
        scan_rate = max(physical.sqlite_scan_rate(store["path"], table)[1] for _ in range(rounds))
    else:
        spec = parse_store_url(store["url"])
        scan_rate = max(
            physical.postgres_scan_rate(spec.pg_connect, spec.pg_schema, table)[1]
            for _ in range(rounds)
        )
    elapsed, cpu = min(runs[1])
    elapsed_2, cpu_2 = min(runs[2])
    rate, rate_2 = replayed / elapsed, replayed / elapsed_2
    scan_s = replayed / scan_rate
    floor_s = scan_s + write_s
    # The best rebuild_ratio any rebuild of this read model can reach: it must scan,
    # write these rows and run the one tokenizer over every belief, and nothing else.
    ceiling = scan_s / (floor_s + tokenize_s)
    # The same with the tokenizer cold (each word stemmed once, as a fresh process must):
    # reported beside it, the targets are judged against the warm ceiling above.
    cold_ceiling = scan_s / (floor_s + cold_tokenize_s)
    best = max(rate, rate_2) / scan_rate
    return {
        "rebuild_events": replayed,
        "rebuild_s": elapsed,
        "rebuild_cpu_s": cpu,
        "rebuild_events_per_s": rate,
        "raw_scan_events_per_s": scan_rate,
        "rebuild_ratio": rate / scan_rate,
        # Two workers: the tokenizing process beside the projector (CPU: both processes).
        "rebuild_2_workers_s": elapsed_2,
        "rebuild_2_workers_cpu_s": cpu_2,
        "rebuild_2_workers_events_per_s": rate_2,
        "rebuild_2_workers_ratio": rate_2 / scan_rate,
        "rebuild_2_workers_same_read_model": dumps[2] == dumps[1],
        "rebuild_of_ceiling_1_worker": rate / scan_rate / ceiling,
        "rebuild_of_ceiling_2_workers": rate_2 / scan_rate / ceiling,
        "rebuild_of_ceiling": best / ceiling,
        "tokenize_cold_s": cold_tokenize_s,
        "ceiling_ratio_cold_tokenizer": cold_ceiling,
        "rebuild_of_ceiling_cold_tokenizer": best / cold_ceiling,
        "read_model_rows": rows_written,
        "raw_read_model_write_s": write_s,
        "physical_floor_ratio": floor_s / elapsed,
        "tokenize_s": tokenize_s,
        "ceiling_ratio": ceiling,
        # The same replay with no database writes at all (see _projector_only): what the
        # reading and the projector cost on their own, to the same raw scan.
        "projector_only_events_per_s": alone["events"] / alone["s"],
        "projector_only_ratio": alone["events"] / alone["s"] / scan_rate,
        "projector_only_s": alone["s"],
        "projector_only_read_s": alone["read_s"],
        "projector_only_project_s": alone["s"] - alone["read_s"],
        # The page reads alone (the query, decoding, the events built), to the raw scan.
        "projector_only_read_ratio": alone["events"] / alone["read_s"] / scan_rate,
        "projector_only_events": alone["events"],
        "projector_only_beliefs": alone["beliefs"],
        "projector_only_postings": alone["postings"],
        "projector_only_same_read_model": alone["same"],
        "rebuild_beliefs": alone["rebuilt_beliefs"],
        "rebuild_postings": alone["rebuilt_postings"],
    }


def _cold_tokenizer() -> None:
    """The tokenizer's caches emptied: a rebuild measured as a fresh process runs it."""
    from memory_es.projections.projector import indexed_terms
    from memory_es.retrieval.tokenizer import stem

    indexed_terms.cache_clear()
    stem.cache_clear()


def _projector_only(memory: memory_es.Memory) -> dict[str, Any]:
    """The rebuild with no database writes: the store's runner code (the same lean page
    read, the same projector) replaying the whole log into the in-memory recall index.
    Its rate bounds any rebuild through this reader and this projector, whatever its
    writes cost. Run after the real rebuild, so the stemmer's cache and the store's pages
    are warm: the figure errs on the fast side. The time spent inside the page reader
    (query, fetch, decode, events built) is timed apart; the rest is the projector's
    handling, tokenizing and the in-memory index's staging included."""
    from memory_es.es_internals import Page
    from memory_es.projections.memory import MemoryRecallIndex
    from memory_es.projections.runner import ProjectionRunner

    index = MemoryRecallIndex()
    index.vector_encoder = memory.index.vector_encoder  # the same rows as the store's
    runner = ProjectionRunner(memory.app.recorder, memory.app.mapper, index)
    read = runner._read
    read_s = 0.0

    def timed_read(after: int, stop: int, limit: int) -> Page:
        nonlocal read_s
        t0 = time.perf_counter()
        page = read(after, stop, limit)
        read_s += time.perf_counter() - t0
        return page

    runner._read = timed_read
    gc.collect()
    t0 = time.perf_counter()
    replayed = runner.rebuild()
    elapsed = time.perf_counter() - t0
    # Both read models' dumps, compared and counted: a replay that did nothing (or built
    # something else) cannot pass for fast.
    ours, theirs = index.dump(), memory.index.dump()
    return {
        "events": replayed,
        "s": elapsed,
        "read_s": read_s,
        "same": ours == theirs,
        "beliefs": len(ours["beliefs"]),
        "postings": len(ours["terms"]),
        "rebuilt_beliefs": len(theirs["beliefs"]),
        "rebuilt_postings": len(theirs["terms"]),
    }


def _tokenize_time(memory: memory_es.Memory, *, cold: bool = False) -> float:
    """The one tokenizer over every belief's indexed text, as the projector calls it
    (warm: the rebuild just stemmed the same words; ``cold``: every word stemmed once, as
    a rebuild in a fresh process must)."""
    from memory_es.retrieval.tokenizer import document_terms, stem

    texts = [
        statement + " " + " ".join(orjson.loads(subjects))
        for statement, subjects in memory.index._execute(  # type: ignore[attr-defined]
            "SELECT statement, subjects FROM beliefs"
        )
    ]
    if cold:
        stem.cache_clear()
    t0 = time.perf_counter()
    for text in texts:
        document_terms(text)
    return time.perf_counter() - t0


def _raw_read_model_write(memory: memory_es.Memory) -> tuple[float, int]:
    """The physical floor of a rebuild's writes: the rebuilt rows, already in Python, sent
    with the adapter's bulk insert (executemany on SQLite, COPY on PostgreSQL) into empty
    tables of the same schema, one transaction. Together with the raw scan it is what a
    rebuild costs with no Python between them."""
    from memory_es.projections.sql import READ_MODEL_TABLES, load_migrations

    index: Any = memory.index
    prefix = "floor_"
    rows = {t: index._execute(f"SELECT * FROM {t}") for t in READ_MODEL_TABLES}
    with index._lock, index._transaction():
        for table in READ_MODEL_TABLES:
            index._execute(f"DROP TABLE IF EXISTS {prefix}{table}")
        for _, tables, indexes in load_migrations(index.dialect):
            for statement in [*tables, *indexes]:
                index._execute(statement.format(p=prefix))
        columns = {t: _column_names(index, f"{prefix}{t}") for t in READ_MODEL_TABLES}
    t0 = time.perf_counter()
    with index._lock, index._transaction():
        for table, table_rows in rows.items():
            if table_rows:
                index._insert_rows(f"{prefix}{table}", columns[table], table_rows)
    elapsed = time.perf_counter() - t0
    with index._lock, index._transaction():
        for table in READ_MODEL_TABLES:
            index._execute(f"DROP TABLE IF EXISTS {prefix}{table}")
    return elapsed, sum(len(r) for r in rows.values())


def _column_names(index: Any, table: str) -> list[str]:
    """A table's columns in ``SELECT *`` order (what the floor's rows were read as)."""
    if index.dialect == "sqlite":
        return [r[1] for r in index._execute(f"PRAGMA table_info({table})")]
    return [
        r[0]
        for r in index._execute(
            "SELECT column_name FROM information_schema.columns"
            " WHERE table_schema = current_schema() AND table_name = ? ORDER BY ordinal_position",
            (table,),
        )
    ]


# -- command latency over a long history ------------------------------------------------


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


# -- CLI cold start ----------------------------------------------------------------------


def _cpu_s(argv: list[str], env: dict[str, str] | None = None) -> float:
    """CPU time (user + system) of one child process run to its end."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def phase_cli(store: dict[str, Any], cfg: dict[str, Any]) -> dict[str, Any]:
    """A command's cold start, as CPU time against a reference run in the same loop:
    ``memory-es --help`` against ``python -c pass``, and the two calls an agent hook
    makes on a SQLite store, ``memory-es session say`` and ``memory-es recall`` (on a
    principal whose closed session formed beliefs), against the bare eventsourcing script
    doing what say does (open the application, load a small aggregate, append one event,
    save: bare_say.py; recall's ratio is to the same script, the hook's other call). Runs
    are interleaved, so a busy machine slows both sides of a ratio alike."""

    def wall(argv: list[str]) -> float:
        t0 = time.perf_counter()
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
        return time.perf_counter() - t0

    runs = cfg["cli_runs"]
    interpreter = [wall([sys.executable, "-c", "pass"]) for _ in range(runs)]
    help_ = [wall([sys.executable, "-m", "memory_es", "--help"]) for _ in range(runs)]

    cpu: dict[str, list[float]] = {"pass": [], "help": [], "say": [], "recall": [], "bare": []}
    with tempfile.TemporaryDirectory(prefix="memory_es_cli_") as tmp:
        # As an installed package runs: from cached bytecode (a wheel's install compiles
        # it; PYTHONDONTWRITEBYTECODE would recompile every module on every run), cached
        # under the temporary directory, never in the source tree. The warm-up runs
        # below (not measured) fill the cache for both sides.
        drop = ("MEMORY_ES_PROFILE", "PYTHONDONTWRITEBYTECODE")
        env = {k: v for k, v in os.environ.items() if k not in drop}
        env["PYTHONPYCACHEPREFIX"] = f"{tmp}/pycache"
        env["MEMORY_ES_STORE"] = f"sqlite:///{tmp}/memory.db"
        cli = [sys.executable, "-m", "memory_es"]
        bare = [sys.executable, "-m", "memory_es.benchmarks.perf.bare_say", f"{tmp}/bare.db"]

        def first_line(argv: list[str]) -> str:
            done = subprocess.run(argv, check=True, capture_output=True, text=True, env=env)
            return done.stdout.strip().splitlines()[0]

        # Beliefs for recall to find: a closed session's (say's session stays open).
        formed = first_line([*cli, "session", "open", "--principal", "alice"])
        for fact in ("I prefer green tea in the morning", "I live in Lisbon", "I work at Acme"):
            first_line([*cli, "session", "say", formed, fact])
        subprocess.run([*cli, "session", "close", formed], check=True, capture_output=True, env=env)
        session_id = first_line([*cli, "session", "open", "--principal", "alice"])
        aggregate_id = first_line([*bare, "create"])
        text = "I prefer green tea in the morning"
        commands = {
            "pass": [sys.executable, "-c", "pass"],
            "help": [*cli, "--help"],
            "say": [*cli, "session", "say", session_id, text],
            "recall": [*cli, "recall", "--principal", "alice", "what tea do I like"],
            "bare": [*bare, "say", aggregate_id, text],
        }
        for argv in commands.values():
            _cpu_s(argv, env)  # warm-up: bytecode cached, files in the page cache
        for _ in range(cfg["cli_cpu_runs"]):
            for name, argv in commands.items():
                cpu[name].append(_cpu_s(argv, env))
    median = {name: statistics.median(values) for name, values in cpu.items()}
    return {
        "cli_help_ms": _ms(statistics.median(help_)),
        "python_start_ms": _ms(statistics.median(interpreter)),
        "help_cpu_ms": _ms(median["help"]),
        "python_cpu_ms": _ms(median["pass"]),
        "say_cpu_ms": _ms(median["say"]),
        "bare_say_cpu_ms": _ms(median["bare"]),
        "help_cpu_ratio": round(median["help"] / median["pass"], 3),
        "say_cpu_ratio": round(median["say"] / median["bare"], 3),
        "recall_cpu_ms": _ms(median["recall"]),
        "recall_cpu_ratio": round(median["recall"] / median["bare"], 3),
    }


PHASES = {
    "physical": phase_physical,
    "append": phase_append,
    "formation": phase_formation,
    "recall": phase_recall,
    "rebuild": phase_rebuild,
    "commands": phase_commands,
    "cli": phase_cli,
}
