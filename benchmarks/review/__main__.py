"""``python -m memory_es.benchmarks.review [--variant shipped|noisy|both] [--json]``: the
memory benchmark's deterministic arm under the RFC 002 evaluation matrix's arms —
shipped; alignment on (proposals, none approved); alignment with a scripted reviewer;
and that plus the quality reorder — with recall and the noise ratio side by side, on
the shipped corpus and on its generated noisy variant (near-duplicates and low-value
beliefs injected, the evidence held fixed: memory_es/benchmarks/review/noisy.py), with
each arm's top-k degradation (variant minus shipped) and the noise floor a perfect
ranker would still have at the same returned counts. Figures, not a gate.

``--locomo FILE [--limit N] [--seed S] [--rate R]`` runs the same matrix on LoCoMo
through the external replay (memory_es/benchmarks/review/locomo.py): clean, and a seeded
noisy variant with the evidence turns and questions held fixed; evidence recall any@10 /
all@10, tokens per probe and the noise ratio. With ``--locomo`` the corpus runs only when
``--variant`` is given too."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from memory_es.benchmarks.external import load_locomo
from memory_es.benchmarks.memory_benchmark.corpus import (
    SHIPPED_CORPUS,
    MemoryBenchmarkCorpus,
    load_corpus,
)
from memory_es.benchmarks.memory_benchmark.driver import drive_scenario
from memory_es.benchmarks.memory_benchmark.metrics import (
    FormationRow,
    ProbeRow,
    aggregate,
    score_formation,
    score_probe,
)
from memory_es.benchmarks.review import locomo
from memory_es.benchmarks.review.noisy import injected, noisy_corpus
from memory_es.benchmarks.review.poisoning import poisoner
from memory_es.benchmarks.review.reviewer import scripted_reviewer

ALIGNED = {"lifecycle": {"alignment": {"enabled": True}}}
ARMS: dict[str, tuple[dict[str, Any] | None, bool]] = {
    "shipped": (None, False),
    "alignment, nothing approved": (ALIGNED, False),
    "alignment + scripted reviewer": (ALIGNED, True),
    "alignment + reviewer + quality reorder": (
        {**ALIGNED, "retrieval": {"quality_reorder_enabled": True}},
        True,
    ),
    # A calibration row: a looser relation threshold (the RFC's tau is a calibration input).
    "alignment at similarity 0.35 + reviewer": (
        {"lifecycle": {"alignment": {"enabled": True, "min_similarity": 0.35}}},
        True,
    ),
}
VARIANTS = ("shipped", "noisy")


def corpus_of(variant: str) -> MemoryBenchmarkCorpus:
    shipped = load_corpus(SHIPPED_CORPUS).corpus
    return noisy_corpus(shipped) if variant == "noisy" else shipped


def run_arm(
    overlay: dict[str, Any] | None, review: bool, corpus: MemoryBenchmarkCorpus | None = None
) -> dict[str, Any]:
    corpus = corpus if corpus is not None else corpus_of("shipped")
    with tempfile.TemporaryDirectory() as folder:
        profile = None
        if overlay is not None:
            profile = Path(folder) / "overlay.yaml"
            profile.write_text(json.dumps(overlay))  # JSON is YAML
        return _scored(corpus, profile, review)


def _scored(corpus: MemoryBenchmarkCorpus, profile: Path | None, review: bool) -> dict[str, Any]:
    decisions: dict[str, int] = {"approved": 0, "declined": 0, "refused": 0}
    reviewer = scripted_reviewer(decisions) if review else None
    formation: list[FormationRow] = []
    probes: list[ProbeRow] = []
    for scenario in corpus.scenarios:
        observed = drive_scenario(scenario, profile, reviewer)
        formation.append(score_formation(scenario, observed))
        seen = dict(observed.probes)
        probes.extend(score_probe(scenario, p, seen[p.id]) for p in scenario.probes)
    total = aggregate(corpus.scenarios, formation, probes)
    returned = total["returned_total"]
    # A perfect ranker at the same returned counts still returns r - n items a probe
    # does not need (when it needs n < r): the noise floor of a fixed-size pack.
    floor = sum(max(0, r.returned_total - r.needed_total) for r in probes)
    return {
        "needed_recalled": total["needed_recalled"],
        "needed_total": total["needed_total"],
        "recall": round(total["needed_recalled"] / max(1, total["needed_total"]), 3),
        "noise_total": total["noise_total"],
        "returned_total": returned,
        "noise_ratio": round(total["noise_total"] / max(1, returned), 3),
        "noise_floor": round(floor / max(1, returned), 3),
        "probes_needing_one": sum(1 for r in probes if r.needed_total == 1),
        "probes": len(probes),
        "decisions": decisions,
    }


def poisoned(declared: bool) -> dict[str, Any]:
    """The shipped corpus with the stale-crawler repetitions (poisoning.py), through an
    untrusted source (``declared``) or as the user's own turns."""
    corpus = corpus_of("shipped")
    counts: dict[str, int] = {}
    formation: list[FormationRow] = []
    probes: list[ProbeRow] = []
    for scenario in corpus.scenarios:
        observed = drive_scenario(
            scenario, None, poisoner(scenario, declared=declared, counts=counts)
        )
        formation.append(score_formation(scenario, observed))
        seen = dict(observed.probes)
        probes.extend(score_probe(scenario, p, seen[p.id]) for p in scenario.probes)
    total = aggregate(corpus.scenarios, formation, probes)
    return {
        "needed_recalled": total["needed_recalled"],
        "needed_total": total["needed_total"],
        "recall": round(total["needed_recalled"] / max(1, total["needed_total"]), 3),
        "noise_ratio": round(total["noise_total"] / max(1, total["returned_total"]), 3),
        "currency_violations": total["currency_violations"],
        "forbidden_rendered": total["currency_violations"]
        + total["currency_unformed"]
        + total["other_forbidden_rendered"],
        "injected": counts,
    }


def run(variants: tuple[str, ...]) -> dict[str, Any]:
    report: dict[str, Any] = {}
    for variant in variants:
        corpus = corpus_of(variant)
        rows = {name: run_arm(*arm, corpus=corpus) for name, arm in ARMS.items()}
        report[variant] = {"arms": rows}
        if variant == "noisy":
            report[variant]["injected"] = injected(corpus_of("shipped"), corpus)
    if "shipped" in report and "noisy" in report:
        for name, row in report["noisy"]["arms"].items():
            base = report["shipped"]["arms"][name]
            row["degradation"] = {
                "recall": round(row["recall"] - base["recall"], 3),
                "noise_ratio": round(row["noise_ratio"] - base["noise_ratio"], 3),
            }
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m memory_es.benchmarks.review")
    parser.add_argument(
        "--variant",
        choices=(*VARIANTS, "both"),
        default=None,
        help="the memory benchmark corpus's variants (default both; none with --locomo)",
    )
    parser.add_argument(
        "--poisoning", action="store_true", help="also the provenance-poisoning rows"
    )
    parser.add_argument(
        "--locomo", type=Path, metavar="FILE", help="also the LoCoMo arms, on this file"
    )
    parser.add_argument(
        "--limit", type=int, metavar="N", help="LoCoMo: only the file's first N conversations"
    )
    parser.add_argument(
        "--seed", type=int, default=locomo.DEFAULT_SEED, help="LoCoMo: the injection's seed"
    )
    parser.add_argument(
        "--rate",
        type=float,
        default=locomo.DEFAULT_RATE,
        help="LoCoMo: the share of turns with a first-person sentence that gain noise",
    )
    parser.add_argument("--principal-speaker", choices=load_locomo.SPEAKER_CHOICES, default="both")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.locomo is None and (args.limit is not None):
        parser.error("--limit applies to --locomo only")
    chosen = args.variant or (None if args.locomo is not None else "both")
    variants = () if chosen is None else VARIANTS if chosen == "both" else (chosen,)
    report = run(variants)
    if args.locomo is not None:
        try:
            report["locomo"] = locomo.run(
                args.locomo,
                limit=args.limit,
                seed=args.seed,
                rate=args.rate,
                principal_speaker=args.principal_speaker,
            )
        except (ValueError, FileNotFoundError) as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
    if args.poisoning:
        report["poisoning"] = {
            "through an untrusted source": poisoned(declared=True),
            "the same turns as the user's own": poisoned(declared=False),
        }
    if args.json:
        print(json.dumps(report, indent=2, sort_keys=True))
        return 0
    for variant, part in report.items():
        if variant == "locomo":
            _print_locomo(part)
            continue
        if variant == "poisoning":
            print("-- provenance poisoning (shipped corpus, alignment off)")
            for name, row in part.items():
                print(
                    f"{name:40} recall {row['needed_recalled']}/{row['needed_total']}"
                    f" = {row['recall']:.3f}  noise {row['noise_ratio']:.3f}"
                    f"  currency violations {row['currency_violations']}"
                    f"  forbidden rendered {row['forbidden_rendered']}  {row['injected']}"
                )
            continue
        extra = f" (injected: {part['injected']})" if "injected" in part else ""
        print(f"-- {variant} corpus{extra}")
        for name, row in part["arms"].items():
            line = (
                f"{name:40} recall {row['needed_recalled']}/{row['needed_total']}"
                f" = {row['recall']:.3f}  noise {row['noise_total']}/{row['returned_total']}"
                f" = {row['noise_ratio']:.3f} (floor {row['noise_floor']:.3f})"
                f"  reviewer {row['decisions']}"
            )
            if "degradation" in row:
                d = row["degradation"]
                line += f"  vs shipped: recall {d['recall']:+.3f} noise {d['noise_ratio']:+.3f}"
            print(line)
    return 0


def _print_locomo(part: dict[str, Any]) -> None:
    k = part["k"]
    print(
        f"-- LoCoMo ({part['conversations']} conversations, sha256 {part['file_sha256'][:8]},"
        f" seed {part['seed']}, rate {part['rate']}, k {k})"
    )
    for name, row in part["arms"].items():
        line = (
            f"{name:40} n {row['n']}  any {row[f'recall_any@{k}']:.3f}"
            f"  all {row[f'recall_all@{k}']:.3f}  tokens {row[f'tokens_per_probe@{k}']:.1f}"
            f"  noise {row['noise_total']}/{row['returned']} = {row[f'noise@{k}'] or 0:.3f}"
            f"  injected returned {row['injected_returned']}"
            f" (near-duplicates {row['injected_returned_near_duplicates']},"
            f" low-value {row['injected_returned_low_value']})  turns {row['turns']}"
        )
        if row["decisions"] is not None:
            line += f"  reviewer {row['decisions']}"
        if "degradation" in row:
            d = row["degradation"]
            line += (
                f"  vs clean: any {d[f'recall_any@{k}']:+.3f} all {d[f'recall_all@{k}']:+.3f}"
                f" noise {d[f'noise@{k}']:+.3f}"
            )
        print(line)


if __name__ == "__main__":
    sys.exit(main())
