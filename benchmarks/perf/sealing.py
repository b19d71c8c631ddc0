"""The cost of sealing (crypto-shredding), same-run pairs: each figure with sealing off and on,
on fresh SQLite files in one process, the two arms alternated round by round.

- ``bulk_append``: the bulk path (``build_beliefs``: a turn and a formed belief per
  belief, sessions of 100, saved in batches) — events per second;
- ``say``: ``Memory.say`` one turn per save (the hook's path) — turns per second;
- ``recall``: per-recall wall p95 over the built store (``n`` beliefs);
- ``rebuild``: ``rebuild_projections`` from position 0 on a store opened afresh (a cold
  key ring: every belief's key read and unwrapped), seconds;
- ``key_store``: the key table's bytes at the end, and per 1,000 sessions of ten turns
  each (the ``say`` sessions' keys).

``memory-es bench --sealing [--json]`` runs it (about a minute at 10k beliefs).
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from memory_es.benchmarks.perf import pairs, phases, synthetic

ROUNDS = 2
SAY_SESSIONS = 50
SAY_TURNS = 10  # per session


def _arm(directory: Path, n: int, sealing: bool, round_: int) -> dict[str, float]:
    path = directory / f"{'sealed' if sealing else 'plain'}-{round_}.db"
    url = f"sqlite:///{path}"
    with phases._open(url, sealing=sealing) as memory:
        started, cpu = time.perf_counter(), time.process_time()
        events = phases.build_beliefs(memory, f"holder{n}", n, synthetic.Text(seed=n))
        bulk = events / (time.perf_counter() - started)
        bulk_cpu = events / (time.process_time() - cpu)
        memory.catch_up()
        queries = pairs._queries(n, 310)
        for q in queries[:10]:
            memory.recall(f"holder{n}", q)
        wall: list[float] = []
        on_cpu: list[float] = []
        for q in queries[10:]:
            w, c = time.perf_counter(), time.process_time()
            memory.recall(f"holder{n}", q)
            wall.append(time.perf_counter() - w)
            on_cpu.append(time.process_time() - c)
    # The rebuild in a process of its own, as `projections rebuild` runs: its key ring
    # starts cold, so every belief's key is read and unwrapped.
    with phases._open(url, sealing=sealing, check_formation=False) as memory:
        started, cpu = time.perf_counter(), time.process_time()
        memory.rebuild_projections(resume=False)
        rebuild = time.perf_counter() - started
        rebuild_cpu = time.process_time() - cpu
        keys = memory.app.keys
        keys_before = keys.table.size_bytes() if keys is not None else 0
        started, cpu = time.perf_counter(), time.process_time()
        for s in range(SAY_SESSIONS):
            session = memory.open_session(f"talker{s}", snapshot=False)
            for t in range(SAY_TURNS):
                memory.say(session, f"I noted item {t} of batch {s}.")
        say = SAY_SESSIONS * SAY_TURNS / (time.perf_counter() - started)
        say_cpu = SAY_SESSIONS * SAY_TURNS / (time.process_time() - cpu)
        key_bytes = keys.table.size_bytes() if keys is not None else 0
        per_session = (key_bytes - keys_before) / SAY_SESSIONS
    for leftover in directory.glob(path.name + "*"):
        os.remove(leftover)
    return {
        "bulk_events_per_s": bulk,
        "say_turns_per_s": say,
        "recall_wall_p95_ms": phases.percentiles(wall)["p95"] * 1000,
        "rebuild_s": rebuild,
        # The same on the process's CPU clock: what the code costs, without the time a
        # shared machine's other processes take (the wall figures' noise) or I/O waits.
        "bulk_events_per_cpu_s": bulk_cpu,
        "say_turns_per_cpu_s": say_cpu,
        "recall_cpu_p95_ms": phases.percentiles(on_cpu)["p95"] * 1000,
        "rebuild_cpu_s": rebuild_cpu,
        "key_store_bytes": key_bytes,
        # Sessions of SAY_TURNS turns (no snapshot, nothing formed): a key per turn.
        "key_store_bytes_per_1k_sessions": per_session * 1000,
    }


def measure(n: int = 10_000, log: Callable[[str], None] = lambda _: None) -> dict[str, Any]:
    """Best of ``ROUNDS`` per arm (plain and sealed alternated) and the sealed/plain ratios."""
    best: dict[bool, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="memory-es-sealing-") as folder:
        for round_ in range(ROUNDS):
            for sealing in (False, True):
                log(f"sealing={'on' if sealing else 'off'} round {round_ + 1}/{ROUNDS} at {n}")
                got = _arm(Path(folder), n, sealing, round_)
                kept = best.setdefault(sealing, got)
                for name, value in got.items():
                    better = max if name.endswith(("_per_s", "_per_cpu_s")) else min
                    kept[name] = better(kept[name], value)
    plain, sealed = best[False], best[True]
    return {
        "beliefs": n,
        "plain": plain,
        "sealed": sealed,
        # Cost: how much slower sealed is (rates inverted), 0.10 = 10% more time.
        "cost": {
            "bulk_append": plain["bulk_events_per_s"] / sealed["bulk_events_per_s"] - 1,
            "say": plain["say_turns_per_s"] / sealed["say_turns_per_s"] - 1,
            "recall_p95": sealed["recall_wall_p95_ms"] / plain["recall_wall_p95_ms"] - 1,
            "rebuild": sealed["rebuild_s"] / plain["rebuild_s"] - 1,
        },
        "cpu_cost": {
            "bulk_append": plain["bulk_events_per_cpu_s"] / sealed["bulk_events_per_cpu_s"] - 1,
            "say": plain["say_turns_per_cpu_s"] / sealed["say_turns_per_cpu_s"] - 1,
            "recall_p95": sealed["recall_cpu_p95_ms"] / plain["recall_cpu_p95_ms"] - 1,
            "rebuild": sealed["rebuild_cpu_s"] / plain["rebuild_cpu_s"] - 1,
        },
    }


def render(result: dict[str, Any]) -> str:
    cost = result["cost"]
    plain, sealed = result["plain"], result["sealed"]
    rows = [
        f"sealing cost at {result['beliefs']:,} beliefs (SQLite, same run, best of {ROUNDS})",
        f"  bulk append   {plain['bulk_events_per_s']:>10,.0f} -> "
        f"{sealed['bulk_events_per_s']:>10,.0f} events/s   {cost['bulk_append']:+.1%}",
        f"  say           {plain['say_turns_per_s']:>10,.0f} -> "
        f"{sealed['say_turns_per_s']:>10,.0f} turns/s    {cost['say']:+.1%}",
        f"  recall p95    {plain['recall_wall_p95_ms']:>10.2f} -> "
        f"{sealed['recall_wall_p95_ms']:>10.2f} ms         {cost['recall_p95']:+.1%}",
        f"  rebuild       {plain['rebuild_s']:>10.2f} -> {sealed['rebuild_s']:>10.2f} s"
        f"          {cost['rebuild']:+.1%}",
        "  on the CPU clock: "
        + ", ".join(f"{name} {value:+.1%}" for name, value in result["cpu_cost"].items()),
        f"  key store     {sealed['key_store_bytes']:,.0f} bytes,"
        f" {sealed['key_store_bytes_per_1k_sessions']:,.0f} per 1k sessions of {SAY_TURNS} turns",
    ]
    return "\n".join(rows)
