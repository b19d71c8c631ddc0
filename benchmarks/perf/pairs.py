"""Before/after pairs and the first-command breakdown (issue 18), on a store built once.

On a machine shared with other engineers' runs the suite's wall times move 2-4x between
runs; these measure CPU time (``time.process_time``) beside wall time, and a pair runs
two checkouts' code on copies of one store in alternating processes (medians)::

    # a principal of N live beliefs, built as the recall phase builds it (build_beliefs):
    python -m benchmarks.perf.pairs build /tmp/b10k.db 10000
    # per-recall CPU and wall, checkout A's code against checkout B's, alternating:
    python -m benchmarks.perf.pairs recall /tmp/b10k.db 10000 --checkouts A B --rounds 4
    # a fresh process's first command on it (imports done first, then timed apart):
    python -m benchmarks.perf.pairs first /tmp/b100k.db 100000 close|recall|parts

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

SCRIPT = "benchmarks.perf.pairs"


def build(n: int, path: str) -> None:
    from benchmarks.perf import phases, synthetic
    from memory_es.domain.principal import PrincipalMemory
    from memory_es.domain.values import DEFAULT_TENANT

    with phases._open(f"sqlite:///{path}") as memory:
        phases.build_beliefs(memory, f"holder{n}", n, synthetic.Text(seed=n))
        memory.app.take_snapshot(PrincipalMemory.create_id(DEFAULT_TENANT, f"holder{n}"))


def _queries(n: int, count: int) -> list[str]:
    from benchmarks.perf import synthetic

    text = synthetic.Text(seed=n)
    for _ in range(n):  # the statements build_beliefs drew, then the queries
        text.statement()
    return [text.query() for _ in range(count)]


def recall(src: str, n: int, queries: int = 300) -> dict[str, float]:
    """Per-recall CPU and wall percentiles on a copy of ``src`` (10 warm-up queries)."""
    from benchmarks.perf import phases

    copy = f"{src}.pair-{os.getpid()}"
    shutil.copy(src, copy)
    asked = _queries(n, queries + 10)
    cpu: list[float] = []
    wall: list[float] = []
    try:
        with phases._open(f"sqlite:///{copy}") as memory:
            for q in asked[:10]:
                memory.recall(f"holder{n}", q)
            for q in asked[10:]:
                c, w = time.process_time(), time.perf_counter()
                memory.recall(f"holder{n}", q)
                cpu.append(time.process_time() - c)
                wall.append(time.perf_counter() - w)
    finally:
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
    import memory_es.formation.service
    import memory_es.retrieval.recall
    import memory_es.services
    import projections.sqlite  # noqa: F401
    from benchmarks.perf import synthetic
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
            aggregate._derived()
            out["row_of_ms"] = (time.process_time() - t) * 1000
            t = time.process_time()
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
    parser.add_argument("what", choices=["build", "recall", "first"])
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
        rest = [args.what, os.path.abspath(args.store), str(args.n), args.command]
        print(json.dumps(_pairs(rest, args.checkouts, args.rounds)))
        return
    result = (
        recall(args.store, args.n)
        if args.what == "recall"
        else first(args.store, args.n, args.command)
    )
    print(json.dumps({k: round(v, 3) for k, v in result.items()}))


if __name__ == "__main__":
    main()
