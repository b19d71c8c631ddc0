"""``memory-es eval memory-benchmark --deterministic-only``: run, compare, print, exit.

Reached from the command line through a lazy import only. Exit status: 0 a pass (or a
run with nothing to compare against), 1 drift or a regression, 2 a usage error.
"""

from __future__ import annotations

import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import orjson

from memory_es.benchmarks.memory_benchmark import forgetting
from memory_es.benchmarks.memory_benchmark.baseline import (
    SHIPPED_BASELINE,
    BaselineError,
    baseline_document,
    compare,
    load_baseline,
    write_baseline,
)
from memory_es.benchmarks.memory_benchmark.corpus import SHIPPED_CORPUS, CorpusError, load_corpus
from memory_es.benchmarks.memory_benchmark.report import human_report, json_document
from memory_es.benchmarks.memory_benchmark.run import run_deterministic
from memory_es.errors import UsageError

REPO_ROOT = Path(__file__).resolve().parents[2]


def _git(*args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=REPO_ROOT, capture_output=True, text=True, timeout=10, check=True
    ).stdout.strip()


def build_ref() -> str:
    """The commit the working tree is at (``+dirty`` with uncommitted changes)."""
    # The baseline being re-recorded was just removed; that is not a dirty tree.
    baseline = SHIPPED_BASELINE.relative_to(REPO_ROOT).as_posix()
    try:
        head = _git("rev-parse", "HEAD")
        dirty = _git(
            "status", "--porcelain", "--untracked-files=no", "--", ".", f":(exclude){baseline}"
        )
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return head + ("+dirty" if dirty else "")


def memory_benchmark(
    *,
    corpus: Path | None,
    baseline: Path | None,
    write_to: Path | None,
    as_json: bool,
    profile: Path | None = None,
    recorded_ref: str | None = None,
) -> int:
    if write_to is not None and write_to.exists():
        raise UsageError(
            f"{write_to} exists and a baseline is never overwritten: remove it first, then record"
        )
    try:
        loaded = load_corpus(corpus if corpus is not None else SHIPPED_CORPUS)
    except CorpusError as error:
        raise UsageError(str(error)) from None
    # The shipped corpus compares against the shipped baseline unless told otherwise;
    # another corpus only compares when given a baseline; recording compares nothing.
    if baseline is None and corpus is None and write_to is None:
        baseline = SHIPPED_BASELINE
    try:
        recorded = load_baseline(baseline) if baseline is not None else None
    except BaselineError as error:
        raise UsageError(str(error)) from None

    started = time.perf_counter()
    result = run_deterministic(loaded, profile)
    wall_seconds = time.perf_counter() - started
    comparison = compare(result, recorded) if recorded is not None else None

    if write_to is not None:
        recorded_at = datetime.now(tz=UTC).replace(microsecond=0).isoformat()
        document = baseline_document(
            result,
            build_ref=recorded_ref or build_ref(),
            recorded_at=recorded_at.replace("+00:00", "Z"),
        )
        try:
            write_baseline(write_to, document)
        except BaselineError as error:
            raise UsageError(str(error)) from None
        print(f"baseline written to {write_to}", file=sys.stderr)

    # The forgetting scenarios (their own corpus, played through the CLI): counts beside
    # the report's, never in the baseline; a forgotten statement that renders, or a kept
    # one that does not, fails the run.
    forgotten = forgetting.counts(forgetting.run())
    if as_json:
        document = {**json_document(result, comparison), "forgetting": forgotten}
        sys.stdout.write(orjson.dumps(document, option=orjson.OPT_SORT_KEYS).decode() + "\n")
    else:
        sys.stdout.write(human_report(result, comparison, wall_seconds=wall_seconds))
        sys.stdout.write(forgetting.summary_line(forgotten) + "\n")
    passed = comparison is None or comparison.no_regression
    return 0 if passed and forgotten["passed"] == forgotten["probes"] else 1
