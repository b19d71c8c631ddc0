"""``eval memory-benchmark``: the memory benchmark's deterministic and live arms.

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
        help="the memory benchmark (corpus v1, exact baseline; the opt-in live arm)",
        description=(
            "Run the deterministic arm: every scenario through the real formation and"
            " retrieval on an in-process store, a fixed clock and sequential ids; compare"
            " the integer metrics exactly against the baseline. With --no-deterministic-only,"
            " the live arm: every probe asked of a real model with and without memory,"
            " evidence published only when every condition held (docs/benchmark.md)."
        ),
    )
    bench.add_argument(
        "--deterministic-only",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="the deterministic arm (the default); --no-deterministic-only runs the live arm"
        " against a real model (opt-in: RUN_LIVE_MODEL_TESTS=1; docs/benchmark.md)",
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
    bench.add_argument(
        "--build-ref",
        metavar="SHA",
        help="the build the run measures (required for a live run; else the working tree)",
    )
    bench.add_argument(
        "--model-policy",
        type=Path,
        metavar="PATH",
        help="live arm: the model policy, JSON {temperature, max_output_tokens}",
    )
    bench.add_argument(
        "--policy-profile",
        type=Path,
        metavar="PATH",
        help="live arm: the memory profile overlay the run is recorded under",
    )
    bench.add_argument("--json", action="store_true", help="print one JSON object")
    external = bench.add_argument_group(
        "external datasets", "read from a local path; only derived metrics leave the run"
    )
    external.add_argument(
        "--external", choices=("longmemeval", "locomo", "halumem"), help="the dataset"
    )
    external.add_argument("--path", type=Path, metavar="FILE", help="the local dataset file")
    external.add_argument("--sample", type=int, metavar="N", help="score a sample of N items")
    external.add_argument("--seed", type=int, metavar="S", help="the sample's seed (default 0)")
    external.add_argument(
        "--principal-speaker",
        choices=("a", "b", "both"),
        default="both",
        help="LoCoMo: whose turns are the principal's (default both: one principal each)",
    )
    external.add_argument(
        "--diagnostic-extractor",
        choices=("verbatim", "inferred"),
        help="diagnostic only: store every user turn whole (verbatim), or read every"
        " clause as an inference (inferred); never the memory arm's figure",
    )
    external.add_argument(
        "--maintenance",
        action="store_true",
        help="run maintenance (decay, L1, trace expiry) after each session, at its own date",
    )
    external.add_argument(
        "--cite",
        action="store_true",
        help="a citing reader: each user turn's context pack, and a run per session citing"
        " the recalled beliefs whose subject the turn names (usage feedback in the replay)",
    )
    bench.set_defaults(handler=_memory_benchmark)


def _memory_benchmark(args: argparse.Namespace) -> int:
    if args.external is not None:
        return _external(args)
    _goes_with(args, ("path", "sample", "seed", "diagnostic_extractor"), "--external")
    if args.maintenance or args.cite:
        raise UsageError(f"--{'maintenance' if args.maintenance else 'cite'} goes with --external")
    if not args.deterministic_only:
        return _live(args)
    _goes_with(args, ("model_policy", "policy_profile"), "--no-deterministic-only")
    if args.output is not None:
        raise UsageError("the deterministic arm publishes no evidence: --output is refused")
    from memory_es.benchmarks.memory_benchmark.command import memory_benchmark

    return memory_benchmark(
        corpus=args.corpus,
        baseline=args.baseline,
        write_to=args.write_baseline,
        as_json=args.json,
        profile=getattr(args, "profile", None),
        recorded_ref=args.build_ref,
    )


def _goes_with(args: argparse.Namespace, flags: tuple[str, ...], where: str) -> None:
    for flag in flags:
        if getattr(args, flag) is not None:
            raise UsageError(f"--{flag.replace('_', '-')} goes with {where}")


def _live(args: argparse.Namespace) -> int:
    """The live arm: evidence at --output, or diagnostics and nothing written."""
    if args.output is None or not args.build_ref:
        raise UsageError("a live run needs --output PATH and --build-ref SHA")
    if args.baseline is not None or args.write_baseline is not None:
        raise UsageError("the live arm compares against no baseline: --baseline is refused")
    profile = getattr(args, "profile", None)
    if args.policy_profile is not None and profile is not None:
        raise UsageError("give the memory profile once: --policy-profile or --profile")
    from memory_es.benchmarks.memory_benchmark.live_command import live_benchmark

    return live_benchmark(
        output=args.output,
        build_ref=args.build_ref,
        corpus=args.corpus,
        model_policy=args.model_policy,
        policy_profile=args.policy_profile or (Path(profile) if profile else None),
    )


def _external(args: argparse.Namespace) -> int:
    """A public dataset: metrics, not evidence, so --output is required in either arm."""
    if args.path is None or args.output is None:
        raise UsageError("--external needs --path FILE and --output PATH")
    if args.seed is not None and args.sample is None:
        raise UsageError("--seed goes with --sample")
    if args.corpus is not None or args.baseline is not None or args.write_baseline is not None:
        raise UsageError("--corpus, --baseline and --write-baseline are for the corpus arm")
    import sys

    import orjson

    from memory_es.benchmarks.external import run, summary
    from memory_es.benchmarks.external.model import MalformedDataset

    try:
        document = run(
            args.external,
            args.path,
            args.output,
            sample=args.sample,
            seed=args.seed or 0,
            principal_speaker=args.principal_speaker,
            progress=sys.stderr.isatty(),
            diagnostic_extractor=args.diagnostic_extractor,
            profile=getattr(args, "profile", None),
            maintenance=args.maintenance,
            cite=args.cite,
        )
    except MalformedDataset as error:
        raise UsageError(f"malformed dataset file: {error}") from None
    except (ValueError, OSError) as error:
        raise UsageError(str(error)) from None
    if args.json:
        sys.stdout.write(orjson.dumps(document, option=orjson.OPT_SORT_KEYS).decode() + "\n")
    else:
        print(summary(document))
    return 0
