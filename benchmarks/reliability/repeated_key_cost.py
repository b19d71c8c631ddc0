"""What refusing repeated JSON keys costs an ingest (docs/reliability.md):
``python -m memory_es.benchmarks.reliability.repeated_key_cost [--pairs N]``.

Interleaved pairs, the check on and off (``memory_es.ingest._repeated_key`` swapped for
one that finds nothing), on 2,400 synthetic lines: ``validate`` alone, and a whole
SQLite ingest. Prints medians and the median paired ratio (on / off).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable

import memory_es
from memory_es import ingest
from memory_es.benchmarks.perf.synthetic import ingest_lines


def _paired(runs: int, measure: Callable[[], float]) -> tuple[float, float, float]:
    real = ingest._repeated_key
    on: list[float] = []
    off: list[float] = []
    try:
        for _ in range(runs):
            ingest._repeated_key = real
            on.append(measure())
            ingest._repeated_key = lambda raw, turn: None
            off.append(measure())
    finally:
        ingest._repeated_key = real
    ratio = statistics.median(a / b for a, b in zip(on, off, strict=True))
    return statistics.median(on), statistics.median(off), ratio


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m memory_es.benchmarks.reliability.repeated_key_cost"
    )
    parser.add_argument("--pairs", type=int, default=5, help="whole-ingest pairs (validate: 21)")
    args = parser.parse_args()
    lines = ingest_lines(sessions=400, turns_per_session=6, principals=20)
    exact = sum(b"\\" in line for line in lines)

    def validate() -> float:
        started = time.perf_counter()
        ingest.validate(lines)
        return time.perf_counter() - started

    def whole() -> float:
        with (
            tempfile.TemporaryDirectory() as folder,
            memory_es.open(f"sqlite:///{folder}/m.db") as memory,
        ):
            started = time.perf_counter()
            memory.ingest(lines)
            return time.perf_counter() - started

    on, off, ratio = _paired(21, validate)
    print(f"{len(lines)} lines, {exact} with a backslash (the exact check)")
    print(f"validate: {on * 1e3:.1f} ms with the check, {off * 1e3:.1f} ms without; x{ratio:.3f}")
    on, off, ratio = _paired(args.pairs, whole)
    print(
        f"SQLite ingest: {on:.2f} s with, {off:.2f} s without; x{ratio:.3f}"
        f" ({len(lines) / on:.0f} turns/s)"
    )


if __name__ == "__main__":
    main()
