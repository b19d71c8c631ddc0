"""``python -m memory_es.benchmarks.review [--json]``: the memory benchmark's
deterministic arm under four arms — shipped; alignment on (proposals, none approved);
alignment with a scripted reviewer; and that plus the quality reorder — with recall and
the noise ratio side by side. Figures, not a gate."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from memory_es.benchmarks.memory_benchmark.corpus import SHIPPED_CORPUS, LoadedCorpus, load_corpus
from memory_es.benchmarks.memory_benchmark.driver import drive_scenario
from memory_es.benchmarks.memory_benchmark.metrics import (
    FormationRow,
    ProbeRow,
    aggregate,
    score_formation,
    score_probe,
)
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


def run_arm(overlay: dict[str, Any] | None, review: bool) -> dict[str, Any]:
    loaded = load_corpus(SHIPPED_CORPUS)
    with tempfile.TemporaryDirectory() as folder:
        profile = None
        if overlay is not None:
            profile = Path(folder) / "overlay.yaml"
            profile.write_text(json.dumps(overlay))  # JSON is YAML
        return _scored(loaded, profile, review)


def _scored(loaded: LoadedCorpus, profile: Path | None, review: bool) -> dict[str, Any]:
    decisions: dict[str, int] = {"approved": 0, "declined": 0, "refused": 0}
    reviewer = scripted_reviewer(decisions) if review else None
    formation: list[FormationRow] = []
    probes: list[ProbeRow] = []
    for scenario in loaded.corpus.scenarios:
        observed = drive_scenario(scenario, profile, reviewer)
        formation.append(score_formation(scenario, observed))
        seen = dict(observed.probes)
        probes.extend(score_probe(scenario, p, seen[p.id]) for p in scenario.probes)
    total = aggregate(loaded.corpus.scenarios, formation, probes)
    returned = total["returned_total"]
    return {
        "needed_recalled": total["needed_recalled"],
        "needed_total": total["needed_total"],
        "recall": round(total["needed_recalled"] / max(1, total["needed_total"]), 3),
        "noise_total": total["noise_total"],
        "returned_total": returned,
        "noise_ratio": round(total["noise_total"] / max(1, returned), 3),
        "decisions": decisions,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m memory_es.benchmarks.review")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    rows = {name: run_arm(*arm) for name, arm in ARMS.items()}
    if args.json:
        print(json.dumps(rows, indent=2, sort_keys=True))
        return 0
    for name, row in rows.items():
        print(
            f"{name:40} recall {row['needed_recalled']}/{row['needed_total']} = {row['recall']:.3f}"
            f"  noise {row['noise_total']}/{row['returned_total']} = {row['noise_ratio']:.3f}"
            f"  reviewer {row['decisions']}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
