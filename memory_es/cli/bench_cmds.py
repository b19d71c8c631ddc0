"""``bench [--quick] [--json] [--phase P] [--recall-scales N,..]``: the performance suite
(benchmarks/perf), imported lazily."""

from __future__ import annotations

import argparse
import os
import sys

from memory_es.cli.common import Subparsers, print_json
from memory_es.errors import UsageError

SCALE_ENV = "MEMORY_ES_BENCH_SCALE"


def register(commands: Subparsers) -> None:
    bench = commands.add_parser(
        "bench",
        help="performance suite: physical reference, append, formation, recall, rebuild",
        description=(
            "Measure memory_es beside raw SQL on SQLite and PostgreSQL (when reachable),"
            " each phase in its own process. Prints figures and ratios; never fails on"
            " a stopwatch. PostgreSQL: env MEMORY_ES_BENCH_POSTGRES_URL."
        ),
    )
    bench.add_argument(
        "--quick", action="store_true", help="about three to six minutes on 2 cores: stops at 10k"
    )
    bench.add_argument("--json", action="store_true", help="one JSON object on stdout")
    bench.add_argument("--no-postgres", action="store_true", help="SQLite only")
    bench.add_argument(
        "--phase",
        action="append",
        default=None,
        metavar="PHASE",
        help="run only this store phase (repeatable): physical, append, formation, rebuild,"
        " recall, rebuild_belief_heavy, commands (a rebuild phase also runs the phase whose"
        " store it replays: formation, recall); shards: 1, 2 and 3 PostgreSQL servers"
        " (env MEMORY_ES_BENCH_POSTGRES_URLS, else loopback clusters it creates)",
    )
    bench.add_argument(
        "--recall-scales",
        default=None,
        metavar="N,N,...",
        help="belief counts for the recall phase, e.g. 1000,10000,100000",
    )
    bench.add_argument(
        "--sealing",
        type=int,
        nargs="?",
        const=10_000,
        default=None,
        metavar="N",
        help="only the cost of sealing (crypto-shredding): append, say, recall p95 and"
        " rebuild with it off and on, same run, at N beliefs (default 10000), and the"
        " key store's size per 1k sessions",
    )
    # Hidden: the test suite runs the machinery at a tiny scale.
    bench.add_argument("--scale", default=None, help=argparse.SUPPRESS)
    bench.set_defaults(handler=_bench)


def _bench(args: argparse.Namespace) -> int:
    from memory_es.benchmarks.perf import suite

    if args.sealing is not None:
        return _sealing(args)
    if args.phase and "shards" in args.phase:
        return _shards(args)  # several servers of its own: benchmarks/perf/shards.py
    scale = args.scale or os.environ.get(SCALE_ENV) or ("quick" if args.quick else "full")
    if scale not in suite.SCALES:
        raise UsageError(f"unknown bench scale {scale!r}: use one of {', '.join(suite.SCALES)}")

    def log(message: str) -> None:
        if sys.stderr.isatty():
            print(f"bench: {message}", file=sys.stderr, flush=True)

    phases = tuple(args.phase) if args.phase else suite.STORE_PHASES
    unknown = [p for p in phases if p not in suite.STORE_PHASES]
    if unknown:
        raise UsageError(
            f"unknown bench phase {unknown[0]!r}: use one of {', '.join(suite.STORE_PHASES)}"
        )
    phases = suite.with_needs(phases)
    try:
        recall_scales = (
            [int(n) for n in args.recall_scales.split(",")] if args.recall_scales else None
        )
    except ValueError:
        raise UsageError(
            f"--recall-scales wants counts like 1000,10000: {args.recall_scales!r}"
        ) from None
    report = suite.run(
        scale,
        postgres=not args.no_postgres,
        log=log,
        phases=phases,
        recall_scales=recall_scales,
    )
    if args.json:
        print_json(report)
    else:
        print(suite.render_table(report))
    return 0


def _sealing(args: argparse.Namespace) -> int:
    from memory_es.benchmarks.perf import sealing

    if args.sealing < 100:
        raise UsageError("--sealing needs at least 100 beliefs")
    result = sealing.measure(
        args.sealing, log=lambda m: print(f"bench: {m}", file=sys.stderr, flush=True)
    )
    if args.json:
        print_json(result)
    else:
        print(sealing.render(result))
    return 0


def _shards(args: argparse.Namespace) -> int:
    from memory_es.benchmarks.perf import shards

    scale = args.scale or os.environ.get(SCALE_ENV) or ("quick" if args.quick else "full")
    if scale not in shards.SCALES:
        raise UsageError(f"unknown bench scale {scale!r}: use one of {', '.join(shards.SCALES)}")
    result = {"shards": shards.measure(scale, log=lambda m: print(f"bench: {m}", file=sys.stderr))}
    if args.json:
        print_json(result)
        return 0
    figures = result["shards"]
    for key in (
        "write_speedup_2",
        "write_speedup_3",
        "recall_p95_ratio",
        "rebuild_parallel_speedup",
    ):
        print(f"{key}: {figures[key]}")
    for arm, measured in figures["arms"].items():
        write = measured["write"]
        print(
            f"{arm} server(s): {write['sessions_per_s']} sessions/s, machine busy"
            f" {write['cpu']['machine_busy_fraction']}, writers on CPU"
            f" {write['cpu']['writer_on_cpu_fraction']}, lock waits {write['servers']}"
        )
    return 0
