"""What the command prints: one JSON object, or a human table (recall beside noise)."""

from __future__ import annotations

from typing import Any

from memory_es.benchmarks.memory_benchmark.baseline import Change, Comparison
from memory_es.benchmarks.memory_benchmark.run import BenchmarkResult


def json_document(result: BenchmarkResult, comparison: Comparison | None) -> dict[str, Any]:
    return {
        **result.header(),
        "aggregate": result.aggregate,
        "per_category": result.per_category,
        "formation": [row.as_dict() for row in result.formation],
        "probes": [row.as_dict() for row in result.probes],
        "comparison": None if comparison is None else comparison.as_dict(),
    }


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:5.1f}%" if whole else "    - "


_COLUMNS = (
    ("category", 11),
    ("probes", 6),
    ("needed", 6),
    ("formed", 6),
    ("recalled", 8),
    ("snap/turn/both", 14),
    ("e2e", 6),
    ("given_formed", 12),
    ("returned", 8),
    ("noise", 5),
    ("noise_ratio", 11),
    ("forbidden", 9),
    ("completed", 9),
)


def _row(name: str, sums: dict[str, Any]) -> str:
    forbidden = sum(
        sums[k]
        for k in (
            "currency_violations",
            "currency_unformed",
            "abstention_leaks",
            "false_transfers",
            "other_forbidden_rendered",
        )
    )
    cells = (
        name,
        sums["probes"],
        sums["needed_total"],
        sums["needed_formed"],
        sums["needed_recalled"],
        f"{sums['needed_recalled_snapshot_only']}/{sums['needed_recalled_in_turn_only']}"
        f"/{sums['needed_recalled_both']}",
        _pct(sums["needed_recalled"], sums["needed_total"]),
        _pct(sums["needed_recalled"], sums["needed_formed"]),
        sums["returned_total"],
        sums["noise_total"],
        _pct(sums["noise_total"], sums["returned_total"]),
        forbidden,
        f"{sums['run_completed']}/{sums['probes']}",
    )
    return "  ".join(
        f"{cell!s:<{width}}" if i == 0 else f"{cell!s:>{width}}"
        for i, ((_, width), cell) in enumerate(zip(_COLUMNS, cells, strict=True))
    ).rstrip()


def _changes(title: str, changes: list[Change], limit: int = 12) -> list[str]:
    if not changes:
        return []
    lines = [f"  {title} ({len(changes)}):"]
    for c in changes[:limit]:
        lines.append(f"    {c.metric}: {c.baseline} -> {c.current}")
    if len(changes) > limit:
        lines.append(f"    ... {len(changes) - limit} more (see --json)")
    return lines


def human_report(
    result: BenchmarkResult, comparison: Comparison | None, *, wall_seconds: float
) -> str:
    a = result.aggregate
    header = result.header()
    out = [
        f"memory benchmark, deterministic arm ({header['benchmark_version']})",
        f"corpus sha256 {header['corpus_digest']}",
        f"{header['formation_policy']}  {header['retrieval_policy']}"
        f"  extractor {header['extractor']}",
        f"{a['scenarios']} scenarios, {a['sessions']} sessions, {a['probes']} probes"
        f" in {wall_seconds:.2f} s",
        "",
        "formation: "
        f"expected {a['expected']}  supported {a['supported']}  formed {a['formed']}"
        f"  stale_live {a['stale_live']}  fabricated {a['fabricated']}"
        f"  policy_failures {a['policy_failures']}  dropped_for_ceiling"
        f" {a['dropped_for_ceiling']}  (precision {_pct(a['supported'], a['formed']).strip()},"
        f" recall {_pct(a['supported'], a['expected']).strip()})",
        "",
        "  ".join(
            f"{name:<{width}}" if i == 0 else f"{name:>{width}}"
            for i, (name, width) in enumerate(_COLUMNS)
        ),
    ]
    for category, sums in result.per_category.items():
        out.append(_row(category, sums))
    out.append(_row("all", a))
    out += [
        "",
        "rendered forbidden: "
        f"currency_violations {a['currency_violations']}"
        f"  currency_unformed {a['currency_unformed']}"
        f"  abstention_leaks {a['abstention_leaks']}  false_transfers {a['false_transfers']}"
        f"  other {a['other_forbidden_rendered']}  protected {a['protected_rendered']}",
        f"dropped_for_budget {a['dropped_for_budget']}  blocked_rendered"
        f" {a['blocked_rendered']}  model_calls {a['model_calls']}"
        f"  max_distinct_prefixes_per_probe {a['max_distinct_prefixes_per_probe']}",
        "recall by distance (sessions back): "
        + "  ".join(
            f"{b['distance']}: {b['recalled']}/{b['needed']}" for b in a["needed_by_distance"]
        ),
    ]
    for where, message in result.errors:
        out.append(f"run failed {where}: {message}")
    out.append("")
    if comparison is None:
        out.append("baseline: not compared")
    else:
        verdict = "no regression" if comparison.no_regression else "FAILED (drift or regression)"
        current = "current" if comparison.baseline_current else "not current: re-record it"
        out.append(f"baseline: {verdict}; {current}")
        out += _changes("drift", comparison.drift)
        out += _changes("regressions", comparison.regressions)
        out += _changes("improvements", comparison.improvements)
        out += _changes("shifts", comparison.shifts)
        other = [
            c
            for c in comparison.changes
            if c not in comparison.drift
            and c not in comparison.regressions
            and c not in comparison.improvements
            and c not in comparison.shifts
        ]
        out += _changes("other changes", other)
    return "\n".join(out) + "\n"
