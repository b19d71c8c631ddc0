"""Run the deterministic arm over a corpus: drive every scenario, score, aggregate."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from memory_es.benchmarks.memory_benchmark.corpus import LoadedCorpus
from memory_es.benchmarks.memory_benchmark.driver import (
    Profile,
    SystemVersions,
    drive_scenario,
    system_versions,
)
from memory_es.benchmarks.memory_benchmark.metrics import (
    FormationRow,
    ProbeRow,
    aggregate,
    per_category,
    score_formation,
    score_probe,
)

BENCHMARK_VERSION = "memory-benchmark@1"


@dataclass(frozen=True)
class BenchmarkResult:
    corpus_digest: str
    versions: SystemVersions
    formation: tuple[FormationRow, ...]
    probes: tuple[ProbeRow, ...]
    aggregate: dict[str, Any]
    per_category: dict[str, dict[str, Any]]
    errors: tuple[tuple[str, str], ...]  # (scenario/probe, message) of runs that failed

    def header(self) -> dict[str, str]:
        return {
            "benchmark_version": BENCHMARK_VERSION,
            "corpus_digest": self.corpus_digest,
            "formation_policy": self.versions.formation_policy,
            "retrieval_policy": self.versions.retrieval_policy,
            "extractor": self.versions.extractor,
        }

    def metrics(self) -> dict[str, Any]:
        """Every integer the arm measured: what a baseline records and compares."""
        return {
            "aggregate": self.aggregate,
            "per_category": self.per_category,
            "formation": [row.as_dict() for row in self.formation],
            "probes": [row.as_dict() for row in self.probes],
        }


def run_deterministic(loaded: LoadedCorpus, profile: Profile = None) -> BenchmarkResult:
    scenarios = loaded.corpus.scenarios
    formation: list[FormationRow] = []
    probes: list[ProbeRow] = []
    errors: list[tuple[str, str]] = []
    for scenario in scenarios:
        observed = drive_scenario(scenario, profile)
        formation.append(score_formation(scenario, observed))
        by_id = dict(observed.probes)
        for probe in scenario.probes:
            seen = by_id[probe.id]
            probes.append(score_probe(scenario, probe, seen))
            if seen.error is not None:
                errors.append((f"{scenario.id}/{probe.id}", seen.error))
    return BenchmarkResult(
        corpus_digest=loaded.sha256,
        versions=system_versions(profile),
        formation=tuple(formation),
        probes=tuple(probes),
        aggregate=aggregate(scenarios, formation, probes),
        per_category=per_category(probes),
        errors=tuple(errors),
    )
