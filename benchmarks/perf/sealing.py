"""The cost of sealing (issue 26), same-run pairs: each figure with sealing off and on,
on fresh SQLite files in one process, the two arms alternated round by round.

- ``bulk_append``: the bulk path (``build_beliefs``: a turn and a formed belief per
  belief, sessions of 100, saved in batches) — events per second;
- ``say``: ``Memory.say`` one turn per save (the hook's path) — turns per second;
- ``recall``: per-recall wall p95 over the built store (``n`` beliefs);
- ``rebuild``: ``rebuild_projections`` from position 0, seconds;
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
    with phases._open(f"sqlite:///{path}", sealing=sealing) as memory:
        started = time.perf_counter()
        events = phases.build_beliefs(memory, f"holder{n}", n, synthetic.Text(seed=n))
        bulk = events / (time.perf_counter() - started)
        memory.catch_up()
        queries = pairs._queries(n, 310)
        for q in queries[:10]:
            memory.recall(f"holder{n}", q)
        wall: list[float] = []
        for q in queries[10:]:
            w = time.perf_counter()
            memory.recall(f"holder{n}", q)
            wall.append(time.perf_counter() - w)
        started = time.perf_counter()
        memory.rebuild_projections(resume=False)
        rebuild = time.perf_counter() - started
        keys = memory.app.keys
        keys_before = keys.table.size_bytes() if keys is not None else 0
        started = time.perf_counter()
        for s in range(SAY_SESSIONS):
            session = memory.open_session(f"talker{s}", snapshot=False)
            for t in range(SAY_TURNS):
                memory.say(session, f"I noted item {t} of batch {s}.")
        say = SAY_SESSIONS * SAY_TURNS / (time.perf_counter() - started)
        key_bytes = keys.table.size_bytes() if keys is not None else 0
        per_session = (key_bytes - keys_before) / SAY_SESSIONS
    for leftover in directory.glob(path.name + "*"):
        os.remove(leftover)
    return {
        "bulk_events_per_s": bulk,
        "say_turns_per_s": say,
        "recall_wall_p95_ms": phases.percentiles(wall)["p95"] * 1000,
        "rebuild_s": rebuild,
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
                    better = max if name.endswith("_per_s") else min
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
        f"  key store     {sealed['key_store_bytes']:,.0f} bytes,"
        f" {sealed['key_store_bytes_per_1k_sessions']:,.0f} per 1k sessions of {SAY_TURNS} turns",
    ]
    return "\n".join(rows)
