"""Probes of the projection rebuild: killed mid-way and run again, and two at once.

- kill -9 mid-rebuild: a ``projections rebuild`` process is killed at a random instant
  while it runs; ``projections status`` must report the cut-off rebuild (or none, if the
  kill landed after the swap), and running the rebuild again must end with the read
  model an uninterrupted rebuild builds (the dumps compared).
- two rebuilds at once: two ``projections rebuild`` processes started together; at most
  one may be refused, with one line and exit 2 (no traceback), and the read model they
  leave must equal an uninterrupted rebuild's.

Each trial is one count; a trial whose end state differs, or whose refusal is not one
clean line, is a failure (docs/reliability.md).
"""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import memory_es
from memory_es.benchmarks.reliability import quick
from memory_es.benchmarks.reliability.edge_probes import _lines, fresh_store, kinds
from memory_es.benchmarks.reliability.probe import ProbeResult


def _dump(url: str) -> dict[str, Any]:
    with memory_es.open(url, on_stale="ignore", check_formation=False) as memory:
        return memory.index.dump()


def _rebuild(url: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "memory_es", "--store", url, "projections", "rebuild"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _clean_refusal(code: int, err: str) -> bool:
    lines = err.strip().splitlines()
    return code == 2 and len(lines) == 1 and lines[0].startswith("memory-es: error: ")


def _store(url: str, lines: Sequence[bytes]) -> dict[str, Any]:
    """The store filled, rebuilt once uninterrupted: the dump every trial must reach."""
    with memory_es.open(url) as memory:
        memory.ingest(lines)
        memory.rebuild_projections()
        return memory.index.dump()


def kill_mid_rebuild(kind: str, url: str, reference: dict[str, Any], trials: int) -> ProbeResult:
    rng = random.Random(14)
    failed = landed = 0
    with memory_es.open(url, on_stale="ignore", check_formation=False) as watcher:
        for _ in range(trials):
            victim = _rebuild(url)
            # Killed once it has begun writing (its tracking row exists), a moment later.
            deadline = time.monotonic() + 30
            while watcher.index.rebuild_leftover() is None and victim.poll() is None:
                if time.monotonic() > deadline:
                    break
                time.sleep(0.01)
            time.sleep(rng.uniform(0.0, 0.3))
            victim.send_signal(signal.SIGKILL)
            victim.communicate()
            landed += watcher.index.rebuild_leftover() is not None
            again = _rebuild(url)
            again.communicate()
            if again.returncode != 0 or _dump(url) != reference:
                failed += 1
    return ProbeResult(
        "rebuild",
        f"kill -9 mid-rebuild, run again ({kind})",
        trials,
        failed,
        f"{landed} kills left a rebuild to resume; dumps compared with an uninterrupted one",
    )


def concurrent_rebuilds(kind: str, url: str, reference: dict[str, Any], trials: int) -> ProbeResult:
    failed = refused = 0
    for _ in range(trials):
        first, second = _rebuild(url), _rebuild(url)
        outcomes = [(p.wait(), p.communicate()[1]) for p in (first, second)]
        codes = sorted(code for code, _ in outcomes)
        ok = codes == [0, 0] or (
            codes == [0, 2] and all(_clean_refusal(c, e) for c, e in outcomes if c == 2)
        )
        refused += codes == [0, 2]
        if not ok or _dump(url) != reference:
            failed += 1
    return ProbeResult(
        "rebuild",
        f"two rebuilds at once ({kind})",
        trials,
        failed,
        f"{refused} refused with one line and exit 2 (the others did not overlap); dumps compared",
    )


def run(workdir: Path, *, postgres_url: str | None) -> list[ProbeResult]:
    trials = 1 if quick() else 3
    lines = _lines(40 if quick() else 1200)
    results = []
    for kind in kinds(postgres_url, memory=False):
        with fresh_store(kind, workdir, postgres_url) as url:
            reference = _store(url, lines)
            results.append(kill_mid_rebuild(kind, url, reference, trials))
            results.append(concurrent_rebuilds(kind, url, reference, trials))
    return results
