"""Before/after pairs and the first-command breakdown, on a store built once.

On a machine shared with other engineers' runs the suite's wall times move 2-4x between
runs; these measure CPU time (``time.process_time``) beside wall time, and a pair runs
two checkouts' code on copies of one store in alternating processes (medians)::

    # a principal of N live beliefs, built as the recall phase builds it (build_beliefs):
    python -m memory_es.benchmarks.perf.pairs build /tmp/b10k.db 10000
    # per-recall CPU and wall, checkout A's code against checkout B's, alternating:
    python -m memory_es.benchmarks.perf.pairs recall /tmp/b10k.db 10000 --checkouts A B --rounds 4
    # the same on PostgreSQL (a schema built by build_beliefs, then ANALYZEd), in place:
    python -m memory_es.benchmarks.perf.pairs recall 'postgresql://...?schema=S' 10000 \
        --checkouts A B
    # the ranking stage alone, over the store's real candidate pools:
    python -m memory_es.benchmarks.perf.pairs rank /tmp/b10k.db 10000 --checkouts A B --rounds 4
    # our append path alone (record_turn + save_collected, 10k events, a fresh file):
    python -m memory_es.benchmarks.perf.pairs append /tmp/append 10000 --checkouts A B --rounds 3
    # a warm instance's close_session (two beliefs formed a close), median of 20:
    python -m memory_es.benchmarks.perf.pairs warm /tmp/b100k.db 100000
    # a fresh process's first command on it (imports done first, then timed apart):
    python -m memory_es.benchmarks.perf.pairs first /tmp/b100k.db 100000 close|recall|parts

``recall`` and ``first`` run in the current directory's code; ``--checkouts`` runs each
pass in a child process started in that checkout's folder, this file's functions on
that checkout's modules (an older checkout need not have this file).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from datetime import timedelta
from typing import Any

SCRIPT = "memory_es.benchmarks.perf.pairs"


def build(n: int, path: str) -> None:
    from memory_es.benchmarks.perf import phases, synthetic
    from memory_es.domain.principal import PrincipalMemory
    from memory_es.domain.values import DEFAULT_TENANT

    with phases._open(f"sqlite:///{path}") as memory:
        phases.build_beliefs(memory, f"holder{n}", n, synthetic.Text(seed=n))
        memory.app.take_snapshot(PrincipalMemory.create_id(DEFAULT_TENANT, f"holder{n}"))


def _queries(n: int, count: int) -> list[str]:
    from memory_es.benchmarks.perf import synthetic

    text = synthetic.Text(seed=n)
    for _ in range(n):  # the statements build_beliefs drew, then the queries
        text.statement()
    return [text.query() for _ in range(count)]


def recall(src: str, n: int, queries: int = 300) -> dict[str, float]:
    """Per-recall CPU and wall percentiles on a copy of ``src`` (10 warm-up queries)."""
    import memory_es
    from memory_es.benchmarks.perf import phases

    postgres = src.startswith("postgresql://")  # read in place; traces get fresh ids
    copy = src if postgres else f"{src}.pair-{os.getpid()}"
    if not postgres:
        shutil.copy(src, copy)
    asked = _queries(n, queries + 10)
    cpu: list[float] = []
    wall: list[float] = []
    try:
        with memory_es.open(copy) if postgres else phases._open(f"sqlite:///{copy}") as memory:
            for q in asked[:10]:
                memory.recall(f"holder{n}", q)
            for q in asked[10:]:
                c, w = time.process_time(), time.perf_counter()
                memory.recall(f"holder{n}", q)
                cpu.append(time.process_time() - c)
                wall.append(time.perf_counter() - w)
    finally:
        if not postgres:
            os.remove(copy)
    pc, pw = phases.percentiles(cpu), phases.percentiles(wall)
    return {
        "cpu_p50_ms": pc["p50"] * 1000,
        "cpu_p95_ms": pc["p95"] * 1000,
        "wall_p50_ms": pw["p50"] * 1000,
        "wall_p95_ms": pw["p95"] * 1000,
    }


def first(src: str, n: int, command: str) -> dict[str, float]:
    """A fresh process's first command on a copy of ``src``, CPU ms: ``import_ms`` (every
    module the command loads), then ``memory_es.open`` to the command's return; ``parts``
    splits the principal aggregate's cold load and the resolver's lookups."""
    c0 = time.process_time()
    import numpy  # noqa: F401  (what the command would import, imported first)
    import orjson

    import memory_es
    import memory_es.app
    import memory_es.formation.hazards
    import memory_es.projections.sqlite
    import memory_es.retrieval.recall
    import memory_es.services
    from memory_es.benchmarks.perf import synthetic
    from memory_es.domain.principal import PrincipalMemory
    from memory_es.domain.values import DEFAULT_TENANT
    from memory_es.ports import FixedClock

    out = {"import_ms": (time.process_time() - c0) * 1000}
    copy = f"{src}.first-{os.getpid()}"
    shutil.copy(src, copy)
    principal = f"holder{n}"
    clock = FixedClock(synthetic.START + timedelta(days=3650))
    session_id = ""
    if command == "close":  # the session is opened and a turn said by another instance
        with memory_es.open(f"sqlite:///{copy}", ids=memory_es.SequentialIds(start=10**9)) as m:
            m.clock = clock
            session_id = m.open_session(principal)
            m.say(session_id, "I live in Coldtown.")
    try:
        t0 = time.process_time()
        memory = memory_es.open(f"sqlite:///{copy}", ids=memory_es.SequentialIds(start=2 * 10**9))
        memory.clock = clock
        out["open_ms"] = (time.process_time() - t0) * 1000
        if command == "close":
            memory.close_session(session_id)
        elif command == "recall":
            memory.recall(principal, synthetic.Text(seed=7).query())
        else:
            app: Any = memory.app
            pid = PrincipalMemory.create_id(DEFAULT_TENANT, principal)
            t = time.process_time()
            stored = next(iter(app.snapshots.recorder.select_events(pid, desc=True, limit=1)))
            out["snapshot_read_ms"] = (time.process_time() - t) * 1000
            out["snapshot_mb"] = len(stored.state) / 2**20
            t = time.process_time()
            orjson.loads(stored.state)
            out["snapshot_json_decode_ms"] = (time.process_time() - t) * 1000
            t = time.process_time()
            aggregate = app.mapper.to_domain_event(stored).mutate(None)
            out["snapshot_to_aggregate_ms"] = (time.process_time() - t) * 1000
            t = time.process_time()
            if hasattr(aggregate, "_find_row"):  # PrincipalMemory version 5: a bisection
                aggregate._find_row(aggregate.belief_ids[len(aggregate.belief_ids) // 2])
            elif hasattr(aggregate, "_derived"):  # before it: a dict of every id
                aggregate._derived()
            out["row_of_ms"] = (time.process_time() - t) * 1000
            t = time.process_time()
            if hasattr(aggregate, "_lookups"):  # versions 1-5 (6 holds no belief)
                aggregate._lookups()
            out["resolver_lookups_ms"] = (time.process_time() - t) * 1000
            t = time.process_time()
            app.repository.get(pid)
            out["repository_get_ms"] = (time.process_time() - t) * 1000
        out["open_to_return_ms"] = (time.process_time() - t0) * 1000
        memory.close()
    finally:
        os.remove(copy)
    return out


def warm(src: str, n: int, closes: int = 25) -> dict[str, float]:
    """A warm instance's ``close_session`` on a copy of ``src``: sessions saying two
    facts (two beliefs formed), the first five untimed; median CPU and wall ms."""
    import memory_es
    from memory_es.benchmarks.perf import synthetic
    from memory_es.ports import FixedClock

    copy = f"{src}.warm-{os.getpid()}"
    shutil.copy(src, copy)
    clock = FixedClock(synthetic.START + timedelta(days=3650))
    cpu: list[float] = []
    wall: list[float] = []
    try:
        with memory_es.open(f"sqlite:///{copy}", ids=memory_es.SequentialIds(start=10**9)) as m:
            m.clock = clock
            for i in range(closes):
                clock.advance(3600)
                session_id = m.open_session(f"holder{n}")
                m.say(session_id, f"I live in Town{i}. I prefer tea number {i}.")
                c, w = time.process_time(), time.perf_counter()
                m.close_session(session_id)
                if i >= 5:
                    cpu.append(time.process_time() - c)
                    wall.append(time.perf_counter() - w)
    finally:
        os.remove(copy)
    return {
        "warm_close_cpu_ms": statistics.median(cpu) * 1000,
        "warm_close_wall_ms": statistics.median(wall) * 1000,
    }


def rank(src: str, n: int, queries: int = 60, rounds: int = 15) -> dict[str, float]:
    """The ranking stage alone: ``rank`` over real candidate pools of ``src`` (the
    candidates of ``queries`` benchmark queries, fused), CPU ms per call, median of
    ``rounds`` passes over every pool."""
    import memory_es
    from memory_es.projections.candidates import Bm25Params
    from memory_es.retrieval.query import form_query
    from memory_es.retrieval.ranking import fuse
    from memory_es.retrieval.ranking import rank as ranking

    copy = f"{src}.rank-{os.getpid()}"
    shutil.copy(src, copy)
    try:
        with memory_es.open(f"sqlite:///{copy}") as memory:
            p = memory.profile.retrieval
            bm25 = Bm25Params(k1=p.bm25.k1, b=p.bm25.b)
            pools = []
            for q in _queries(n, queries):
                formed = form_query(q, project="general")
                found = memory.index.candidates(
                    f"default/holder{n}",
                    formed.terms,
                    boost=formed.boost,
                    project="general",
                    cap=80,
                    bm25=bm25,
                )
                pools.append(
                    fuse([(c.record, c.matched, c.lexical) for c in found], None, k=60, cap=80)
                )
            now = memory.clock.now()
            passes = []
            for _ in range(rounds):
                c = time.process_time()
                for pool in pools:
                    ranking(pool, now=now, project="general", profile=p)
                passes.append((time.process_time() - c) / len(pools))
    finally:
        os.remove(copy)
    return {
        "rank_cpu_ms": statistics.median(passes) * 1000,
        "pool": statistics.mean(len(x) for x in pools),
    }


def append(path: str, n: int) -> dict[str, float]:
    """Our append path alone on a fresh SQLite file: ``n`` turn events built by
    ``Session.record_turn`` (sessions of 500 events) and saved two sessions a transaction
    through ``save_collected``, snapshot intervals on; CPU seconds and the wall rate."""
    from uuid import UUID

    import memory_es
    from memory_es.domain.session import Session
    from memory_es.domain.values import DEFAULT_TENANT, GENERAL_SCOPE
    from memory_es.es_internals import save_collected

    file = f"{path}.append-{os.getpid()}"
    try:
        with memory_es.open(f"sqlite:///{file}", ids=memory_es.SequentialIds()) as memory:
            app, ids = memory.app, memory.ids
            w, c = time.perf_counter(), time.process_time()
            batch: list[Session] = []
            for s in range(0, n, 500):
                session = Session(
                    id=UUID(ids.new_id()),
                    tenant=DEFAULT_TENANT,
                    principal=f"a{s}",
                    project=GENERAL_SCOPE,
                    opened_at="2026-01-05T09:00:00Z",
                )
                for t in range(499):
                    session.record_turn(
                        turn_id=ids.new_id(),
                        role="user",
                        text=f"I live in City{t}. My manager is Dana{s}.",
                        trusted=True,
                        at="2026-01-05T09:01:00Z",
                        redactions=[],
                        hazards=[],
                    )
                batch.append(session)
                if len(batch) == 2 or s + 500 >= n:
                    save_collected(app, [e for b in batch for e in b.collect_events()], batch)
                    batch = []
            cpu, wall = time.process_time() - c, time.perf_counter() - w
    finally:
        if os.path.exists(file):
            os.remove(file)
    return {"cpu_s": cpu, "events_per_s": n / wall}


def _pairs(argv: list[str], checkouts: list[str], rounds: int) -> dict[str, Any]:
    runs: dict[str, list[dict[str, float]]] = {c: [] for c in checkouts}
    for r in range(rounds):
        for checkout in checkouts if r % 2 == 0 else checkouts[::-1]:
            here = os.path.abspath(__file__)
            run = f"import runpy; runpy.run_path({here!r}, run_name='__main__')"
            done = subprocess.run(
                [sys.executable, "-c", run, *argv],
                cwd=checkout,
                capture_output=True,
                text=True,
                check=True,
            )
            runs[checkout].append(json.loads(done.stdout.splitlines()[-1]))
    return {
        c: {k: round(statistics.median(x[k] for x in rows), 3) for k in rows[0]}
        for c, rows in runs.items()
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog=SCRIPT)
    parser.add_argument("what", choices=["build", "recall", "first", "append", "rank", "warm"])
    parser.add_argument("store")
    parser.add_argument("n", type=int)
    parser.add_argument("command", nargs="?", default="close")
    parser.add_argument("--checkouts", nargs="+", default=None)
    parser.add_argument("--rounds", type=int, default=4)
    args = parser.parse_args(argv)
    if args.what == "build":
        build(args.n, args.store)
        return
    if args.checkouts:
        store = args.store if "://" in args.store else os.path.abspath(args.store)
        rest = [args.what, store, str(args.n), args.command]
        print(json.dumps(_pairs(rest, args.checkouts, args.rounds)))
        return
    if args.what == "append":
        result = append(args.store, args.n)
    elif args.what == "rank":
        result = rank(args.store, args.n)
    elif args.what == "warm":
        result = warm(args.store, args.n)
    elif args.what == "recall":
        result = recall(args.store, args.n)
    else:
        result = first(args.store, args.n, args.command)
    print(json.dumps({k: round(v, 3) for k, v in result.items()}))


if __name__ == "__main__":
    main()
