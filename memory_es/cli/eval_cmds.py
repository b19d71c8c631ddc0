"""``eval memory-benchmark``: the memory benchmark's deterministic arm.

The evaluation package is imported lazily, inside the handler, so nothing in production
imports ``benchmarks``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from memory_es.cli.common import Subparsers
from memory_es.errors import UsageError


def register(commands: Subparsers) -> None:
    evaluate = commands.add_parser("eval", help="measure memory: the memory benchmark")
    benchmarks = evaluate.add_subparsers(dest="benchmark", metavar="BENCHMARK")
    benchmarks.required = True
    bench = benchmarks.add_parser(
        "memory-benchmark",
        help="the memory benchmark (corpus v1, exact baseline)",
        description=(
            "Run the deterministic arm: every scenario through the real formation and"
            " retrieval on an in-process store, a fixed clock and sequential ids; compare"
            " the integer metrics exactly against the baseline."
        ),
    )
    bench.add_argument(
        "--deterministic-only",
        action="store_true",
        default=True,
        help="the deterministic arm (the default)",
    )
    bench.add_argument(
        "--corpus",
        type=Path,
        metavar="PATH",
        help="another corpus; compared only when --baseline is given",
    )
    bench.add_argument(
        "--baseline",
        type=Path,
        metavar="PATH",
        help="the baseline to compare against (default: the shipped one, for the shipped corpus)",
    )
    bench.add_argument(
        "--write-baseline",
        type=Path,
        metavar="PATH",
        help="record this run as a new baseline (refused if PATH exists)",
    )
    bench.add_argument(
        "--output",
        type=Path,
        metavar="PATH",
        help="evidence path of a live run; the deterministic arm publishes none and refuses it",
    )
    bench.add_argument("--json", action="store_true", help="print one JSON object")
    bench.set_defaults(handler=_memory_benchmark)


def _memory_benchmark(args: argparse.Namespace) -> int:
    if args.output is not None:
        raise UsageError("the deterministic arm publishes no evidence: --output is refused")
    from benchmarks.memory_benchmark.command import memory_benchmark

    return memory_benchmark(
        corpus=args.corpus,
        baseline=args.baseline,
        write_to=args.write_baseline,
        as_json=args.json,
    )
