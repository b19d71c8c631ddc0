"""The cost of sealing (crypto-shredding), same-run pairs: each figure with sealing off and on,
on fresh SQLite files in one process, the two arms alternated round by round.

- ``bulk_append``: the bulk path (``build_beliefs``: a turn and a formed belief per
  belief, sessions of 100, saved in batches) — events per second;
- ``say``: ``Memory.say`` one turn per save (the hook's path) — turns per second, on
  copies of the built stores, both open at once, the arms alternating session by
  session; the cost is the median of the sessions' time ratios;
- ``recall``: per-recall wall p95 over each arm's last-built store (``n`` beliefs),
  both stores open at once and each query run on both back to back (which arm goes
  first alternating), ``RECALL_PASSES`` passes over the queries: the two p95s are taken
  over the same stretch of time, so a shared machine's busy moments fall on both arms
  (an arm's recalls measured alone, after its build, moved its p95 by several points);
- ``rebuild``: ``rebuild_projections`` from position 0 on a store opened afresh (a cold
  key ring: every belief's key read and unwrapped), seconds: ``REBUILD_PAIRS`` rebuilds
  of each arm's last-built store, plain and sealed alternated, the median of each arm
  and the cost as the median of the pairs' ratios (a rebuild takes about a second, so
  pairs are cheap, and one pair's ratio moves by several points on a shared machine);
- ``key_store``: the key table's bytes at the end, and per 1,000 sessions of ten turns
  each (the ``say`` sessions' keys).

The bulk loads run in ``ROUNDS`` rounds, the arm that goes first alternating round by
round (an effect of running second in the process falls on both arms), each arm's best
round kept.

``memory-es bench --sealing [--json]`` runs it (about a minute and a half at 10k beliefs).
"""

from __future__ import annotations

import os
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from memory_es.benchmarks.perf import pairs, phases, synthetic

ROUNDS = 2
REBUILD_PAIRS = 5
RECALL_PASSES = 3
RECALL_WARMUP = 10  # queries run on each arm before any is timed
SAY_SESSIONS = 50
SAY_TURNS = 10  # per session


def _name(sealing: bool) -> str:
    return "sealed" if sealing else "plain"


def _rebuilt(directory: Path, sealing: bool) -> Path:
    """The last round's store of an arm as built (its bulk load, no say sessions)."""
    return directory / f"{_name(sealing)}-built.db"


def _copy_store(source: Path, target: Path) -> None:
    """A SQLite store's file and its WAL and shared-memory files, if any, copied."""
    for part in source.parent.glob(source.name + "*"):
        shutil.copyfile(part, target.with_name(target.name + part.name[len(source.name) :]))


def _order(i: int) -> tuple[bool, bool]:
    """The arms' order in the ``i``-th pair: which one goes first alternates."""
    return (False, True) if i % 2 == 0 else (True, False)


class _ArmTimes:
    """Each arm's timed blocks, wall and CPU seconds, in the order they ran: the blocks of
    alternated pairs, so the n-th plain and n-th sealed block make a pair."""

    def __init__(self) -> None:
        self.wall: dict[bool, list[float]] = {False: [], True: []}
        self.cpu: dict[bool, list[float]] = {False: [], True: []}

    @contextmanager
    def timed(self, sealing: bool) -> Iterator[None]:
        w, c = time.perf_counter(), time.process_time()
        yield
        self.wall[sealing].append(time.perf_counter() - w)
        self.cpu[sealing].append(time.process_time() - c)

    def cost(self, clock: dict[bool, list[float]]) -> float:
        """The median of the pairs' sealed/plain time ratios, less one (0.10: 10% more)."""
        return statistics.median(s / p - 1 for p, s in zip(clock[False], clock[True], strict=True))


def _arm(directory: Path, n: int, sealing: bool, round_: int) -> dict[str, float]:
    path = directory / f"{_name(sealing)}-{round_}.db"
    url = f"sqlite:///{path}"
    with phases._open(url, sealing=sealing) as memory:
        started, cpu = time.perf_counter(), time.process_time()
        events = phases.build_beliefs(memory, f"holder{n}", n, synthetic.Text(seed=n))
        bulk = events / (time.perf_counter() - started)
        bulk_cpu = events / (time.process_time() - cpu)
        memory.catch_up()
    # The store as built, for the say, recall and rebuild pairs.
    _copy_store(path, _rebuilt(directory, sealing))
    for leftover in directory.glob(path.name + "*"):
        os.remove(leftover)
    return {
        "bulk_events_per_s": bulk,
        # The same on the process's CPU clock: what the code costs, without the time a
        # shared machine's other processes take (the wall figures' noise) or I/O waits.
        "bulk_events_per_cpu_s": bulk_cpu,
    }


def _say_pairs(directory: Path, urls: dict[bool, str]) -> dict[str, Any]:
    """``SAY_SESSIONS`` sessions of ``SAY_TURNS`` turns said on a copy of each arm's built
    store, both open at once, the arms alternating session by session (which goes first
    alternating too): each arm's rates, the key table's growth, and the cost as the
    median of the sessions' sealed/plain time ratios (wall and CPU). One timed block per
    arm moved by tens of points between runs on a shared machine."""
    copies: dict[bool, str] = {}
    for sealing, url in urls.items():
        copy = directory / f"say-{_name(sealing)}.db"
        _copy_store(Path(url.removeprefix("sqlite:///")), copy)
        copies[sealing] = f"sqlite:///{copy}"
    times = _ArmTimes()
    with (
        phases._open(copies[False], sealing=False, check_formation=False) as plain,
        phases._open(copies[True], sealing=True, check_formation=False) as sealed,
    ):
        arms = {False: plain, True: sealed}
        keys = sealed.app.keys
        keys_before = keys.table.size_bytes() if keys is not None else 0
        for s in range(SAY_SESSIONS):
            for sealing in _order(s):
                memory = arms[sealing]
                with times.timed(sealing):
                    session = memory.open_session(f"talker{s}", snapshot=False)
                    for t in range(SAY_TURNS):
                        memory.say(session, f"I noted item {t} of batch {s}.")
        key_bytes = keys.table.size_bytes() if keys is not None else 0
    turns = SAY_SESSIONS * SAY_TURNS
    return {
        "arms": {
            sealing: {
                "say_turns_per_s": turns / sum(times.wall[sealing]),
                "say_turns_per_cpu_s": turns / sum(times.cpu[sealing]),
            }
            for sealing in (False, True)
        },
        "key_store_bytes": key_bytes,
        # Sessions of SAY_TURNS turns (no snapshot, nothing formed): a key per turn.
        "key_store_bytes_per_1k_sessions": (key_bytes - keys_before) / SAY_SESSIONS * 1000,
        "cost": times.cost(times.wall),
        "cpu_cost": times.cost(times.cpu),
    }


def _recall_pairs(
    urls: dict[bool, str], n: int, log: Callable[[str], None]
) -> dict[bool, dict[str, float]]:
    """Each arm's per-recall p95 (wall and CPU, ms) over its built store, the two stores
    open at once and every query run on both back to back, the first arm alternating
    query by query, in ``RECALL_PASSES`` passes (module doc)."""
    queries = pairs._queries(n, 300 + RECALL_WARMUP)
    holder = f"holder{n}"
    times = _ArmTimes()
    with (
        phases._open(urls[False], sealing=False, check_formation=False) as plain,
        phases._open(urls[True], sealing=True, check_formation=False) as sealed,
    ):
        arms = {False: plain, True: sealed}
        for memory in arms.values():
            memory.catch_up()
            for q in queries[:RECALL_WARMUP]:
                memory.recall(holder, q)
        for pass_ in range(RECALL_PASSES):
            log(f"recall pass {pass_ + 1}/{RECALL_PASSES}")
            for i, q in enumerate(queries[RECALL_WARMUP:]):
                for sealing in _order(i + pass_):
                    with times.timed(sealing):
                        arms[sealing].recall(holder, q)
    return {
        sealing: {
            "recall_wall_p95_ms": phases.percentiles(times.wall[sealing])["p95"] * 1000,
            "recall_cpu_p95_ms": phases.percentiles(times.cpu[sealing])["p95"] * 1000,
        }
        for sealing in (False, True)
    }


def _rebuild(url: str, sealing: bool, times: _ArmTimes) -> None:
    """One rebuild from 0 on the store opened afresh, timed, as `projections rebuild` runs
    it: its key ring starts cold, so every key it opens is read and unwrapped."""
    with (
        phases._open(url, sealing=sealing, check_formation=False) as memory,
        times.timed(sealing),
    ):
        memory.rebuild_projections(resume=False)


def _rebuild_pairs(urls: dict[bool, str], log: Callable[[str], None]) -> dict[str, Any]:
    """``REBUILD_PAIRS`` rebuilds of each arm, alternated: each arm's medians, and the cost
    as the median of the pairs' sealed/plain ratios (wall and CPU)."""
    times = _ArmTimes()
    for pair in range(REBUILD_PAIRS):
        log(f"rebuild pair {pair + 1}/{REBUILD_PAIRS}")
        for sealing in (False, True):
            _rebuild(urls[sealing], sealing, times)
    median = statistics.median
    return {
        "medians": {
            sealing: {
                "rebuild_s": median(times.wall[sealing]),
                "rebuild_cpu_s": median(times.cpu[sealing]),
            }
            for sealing in (False, True)
        },
        "cost": times.cost(times.wall),
        "cpu_cost": times.cost(times.cpu),
    }


def measure(n: int = 10_000, log: Callable[[str], None] = lambda _: None) -> dict[str, Any]:
    """Best of ``ROUNDS`` per arm (plain and sealed alternated, the first arm too) and the
    sealed/plain ratios; recall and the rebuild in alternated pairs over the last round's
    stores (module doc)."""
    best: dict[bool, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="memory-es-sealing-") as folder:
        urls: dict[bool, str] = {}
        for round_ in range(ROUNDS):
            for sealing in _order(round_):
                log(f"sealing={'on' if sealing else 'off'} round {round_ + 1}/{ROUNDS} at {n}")
                for leftover in Path(folder).glob(_rebuilt(Path(folder), sealing).name + "*"):
                    os.remove(leftover)  # the last round's store is the one rebuilt
                got = _arm(Path(folder), n, sealing, round_)
                urls[sealing] = f"sqlite:///{_rebuilt(Path(folder), sealing)}"
                kept = best.setdefault(sealing, got)
                for name, value in got.items():
                    better = max if name.endswith(("_per_s", "_per_cpu_s")) else min
                    kept[name] = better(kept[name], value)
        log(f"say: {SAY_SESSIONS} sessions of {SAY_TURNS} turns an arm, alternated")
        said = _say_pairs(Path(folder), urls)
        recalled = _recall_pairs(urls, n, log)
        rebuilt = _rebuild_pairs(urls, log)
    plain = {**best[False], **said["arms"][False], **recalled[False], **rebuilt["medians"][False]}
    sealed = {
        **best[True],
        **said["arms"][True],
        "key_store_bytes": said["key_store_bytes"],
        "key_store_bytes_per_1k_sessions": said["key_store_bytes_per_1k_sessions"],
        **recalled[True],
        **rebuilt["medians"][True],
    }
    plain["key_store_bytes"] = plain["key_store_bytes_per_1k_sessions"] = 0
    return {
        "beliefs": n,
        "plain": plain,
        "sealed": sealed,
        # Cost: how much slower sealed is (rates inverted), 0.10 = 10% more time.
        "cost": {
            "bulk_append": plain["bulk_events_per_s"] / sealed["bulk_events_per_s"] - 1,
            "say": said["cost"],
            "recall_p95": sealed["recall_wall_p95_ms"] / plain["recall_wall_p95_ms"] - 1,
            "rebuild": rebuilt["cost"],
        },
        "cpu_cost": {
            "bulk_append": plain["bulk_events_per_cpu_s"] / sealed["bulk_events_per_cpu_s"] - 1,
            "say": said["cpu_cost"],
            "recall_p95": sealed["recall_cpu_p95_ms"] / plain["recall_cpu_p95_ms"] - 1,
            "rebuild": rebuilt["cpu_cost"],
        },
        "rebuild_pairs": REBUILD_PAIRS,
        "recall_passes": RECALL_PASSES,
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
        f"{sealed['recall_wall_p95_ms']:>10.2f} ms         {cost['recall_p95']:+.1%}"
        f"  (queries alternated, {result['recall_passes']} passes)",
        f"  rebuild       {plain['rebuild_s']:>10.2f} -> {sealed['rebuild_s']:>10.2f} s"
        f"          {cost['rebuild']:+.1%}  (medians of {result['rebuild_pairs']} pairs)",
        "  on the CPU clock: "
        + ", ".join(f"{name} {value:+.1%}" for name, value in result["cpu_cost"].items()),
        f"  key store     {sealed['key_store_bytes']:,.0f} bytes,"
        f" {sealed['key_store_bytes_per_1k_sessions']:,.0f} per 1k sessions of {SAY_TURNS} turns",
    ]
    return "\n".join(rows)
