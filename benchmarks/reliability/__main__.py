"""The reliability suite:
``python -m memory_es.benchmarks.reliability [--postgres-url URL] [--json]``.

Runs every probe module of this package — a module named ``*_probes`` with a function
``run(workdir: pathlib.Path, *, postgres_url: str | None) -> list[ProbeResult]`` — each in
a scratch folder of its own, and prints one row per probe: what was tried, how many
failed, and a note (docs/reliability.md records the figures). Without ``--postgres-url``
the probes use ``memory://`` and SQLite only. ``--quick`` (small counts, for the test
that the suite runs) sets ``MEMORY_ES_RELIABILITY_QUICK=1``, which probe modules read
(``benchmarks.reliability.quick()``).
``--check`` exits 1 if any probe failed.

A benchmark, not a timed test: it counts outcomes, it does not fail on a stopwatch.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import os
import pkgutil
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import orjson

from memory_es.benchmarks.reliability import QUICK_ENV
from memory_es.benchmarks.reliability.probe import ProbeResult

ProbeRun = Callable[..., list[ProbeResult]]


def probe_modules() -> list[tuple[str, ProbeRun]]:
    """Every ``*_probes`` module of this package that has a ``run``, by name."""
    package = Path(__file__).parent
    found: list[tuple[str, ProbeRun]] = []
    for info in sorted(pkgutil.iter_modules([str(package)]), key=lambda m: m.name):
        if not info.name.endswith("_probes"):
            continue
        module = importlib.import_module(f"{__package__}.{info.name}")
        run = getattr(module, "run", None)
        if callable(run):
            found.append((info.name, run))
    return found


def run_suite(
    *, postgres_url: str | None, only: Sequence[str] = ()
) -> tuple[list[ProbeResult], dict[str, float]]:
    """Every probe module's results, and the seconds each module took."""
    results: list[ProbeResult] = []
    seconds: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="memory-es-reliability-") as scratch:
        for name, run in probe_modules():
            if only and name not in only:
                continue
            workdir = Path(scratch) / name
            workdir.mkdir()
            started = time.perf_counter()
            results.extend(run(workdir, postgres_url=postgres_url))
            seconds[name] = time.perf_counter() - started
    return results, seconds


def table(results: Sequence[ProbeResult]) -> str:
    header = ("area", "probe", "tried", "failed", "note")
    rows = [(r.area, r.probe, str(r.tried), str(r.failed), r.note) for r in results]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(4)]

    def line(row: Sequence[str]) -> str:
        cells = [
            row[0].ljust(widths[0]),
            row[1].ljust(widths[1]),
            row[2].rjust(widths[2]),
            row[3].rjust(widths[3]),
            row[4],
        ]
        return "| " + " | ".join(cells) + " |"

    rule = "|" + "|".join("-" * (w + 2) for w in [*widths, len(header[4])]) + "|"
    return "\n".join([line(header), rule, *(line(row) for row in rows)])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m memory_es.benchmarks.reliability")
    parser.add_argument("--postgres-url", default=None, help="also probe PostgreSQL here")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--quick", action="store_true", help="small counts (the test)")
    parser.add_argument("--check", action="store_true", help="exit 1 if any probe failed")
    parser.add_argument(
        "--only", action="append", default=[], metavar="MODULE", help="e.g. edge_probes"
    )
    args = parser.parse_args(argv)
    if args.quick:
        os.environ[QUICK_ENV] = "1"
    results, seconds = run_suite(postgres_url=args.postgres_url, only=args.only)
    if args.json:
        document: dict[str, Any] = {
            "results": [dataclasses.asdict(r) for r in results],
            "seconds": {k: round(v, 1) for k, v in seconds.items()},
            "postgres": args.postgres_url is not None,
            "quick": bool(args.quick),
        }
        sys.stdout.write(orjson.dumps(document, option=orjson.OPT_INDENT_2).decode() + "\n")
    else:
        print(table(results))
        timing = ", ".join(f"{k} {v:.0f} s" for k, v in seconds.items())
        print(f"\n{len(results)} probes, {sum(r.failed for r in results)} failed ({timing})")
    return 1 if args.check and any(r.failed for r in results) else 0


if __name__ == "__main__":
    raise SystemExit(main())
