"""The live arm's evidence: a model that exists only when every publication condition held.

``LiveEvidence``'s validator re-checks every condition from the counts inside it —
``publication_failures`` is the one list of them, read by the validator and by the
command's diagnostics alike — and re-derives every threshold and every count from the
per-probe rows, so an artifact that validates is an artifact that passed. It is written
with an exclusive create: an existing file is never overwritten.

Thresholds (seed 000, "The live arm and its evidence"), derived and never written down:

    answerable                  = probe_count - abstain_expected
    minimum_lift                = (answerable + 4) // 5                 twenty per cent
    lift                        = with_memory_correct - without_memory_correct
    recoverable_probe_count     answerable probes whose with-memory pack recalled every
                                needed label
    minimum_recoverable_correct = minimum_supported_case_count(recoverable_probe_count)
    minimum_abstain_correct     = minimum_supported_case_count(abstain_expected)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Literal, Self

import orjson
from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, model_validator

EVIDENCE_VERSION = "memory-benchmark-live@1"
INVOCATION_CEILING_USD = 4.00
RUN_CEILING_USD = 0.05

Count = Annotated[int, Field(ge=0)]
Usd = Annotated[float, Field(ge=0)]


def minimum_supported_case_count(n: int) -> int:
    """The eighty-per-cent floor: ceil(0.8 * n), in integers so 0.8 * 5 is exactly 4."""
    return math.ceil(4 * n / 5)


def minimum_lift(answerable: int) -> int:
    return (answerable + 4) // 5


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ArmSummary(_Frozen):
    runs: Count  # model runs asked (retries included)
    completed: Count
    correct: Count
    abstained: Count
    policy_failures: Count
    protected_leaks: Count
    input_tokens: Count
    output_tokens: Count
    cost_usd: Usd
    latency_p50_seconds: Usd
    latency_p95_seconds: Usd


class EvidenceProbe(_Frozen):
    """One probe, both arms. The answers are verbatim: every probe is synthetic."""

    scenario: str
    probe: str
    category: str
    answer_kind: Literal["exact", "alternatives", "all_of", "abstain"]
    recoverable: bool  # answerable, and the with-memory pack recalled every needed label
    with_memory_answer: str | None
    without_memory_answer: str | None
    with_memory_correct: bool
    without_memory_correct: bool
    with_memory_abstained: bool
    without_memory_abstained: bool
    with_memory_policy_failure: bool
    without_memory_policy_failure: bool
    leaked_protected: bool  # a protected fragment in either arm's answer


class RunIdentity(_Frozen):
    provider: str
    model: str  # the model the server says answered
    policy_version: str  # the compiled model policy the run was asked under


class LiveEvidence(_Frozen):
    evidence_version: Literal["memory-benchmark-live@1"] = "memory-benchmark-live@1"
    benchmark_version: str
    corpus_digest: str
    build_ref: str
    provider: str
    model: str
    policy_profile: str
    compiled_policy_version: str
    formation_policy: str
    retrieval_policy: str
    extractor: str
    evaluated_at: AwareDatetime
    stopped_by: Literal["cost_ceiling", "pricing_unavailable"] | None = None

    corpus_probe_count: Count
    probe_count: Count
    abstain_expected: Count
    answerable: Count
    with_memory_correct: Count
    without_memory_correct: Count
    lift: int
    minimum_lift: Count
    recoverable_probe_count: Count
    recoverable_correct: Count
    minimum_recoverable_correct: Count
    abstain_with_memory_correct: Count
    minimum_abstain_correct: Count
    protected_leaks_in_answers: Count
    with_memory_policy_failures: Count
    without_memory_policy_failures: Count
    incomplete_runs: Count
    retried_runs: Count
    ceiling_hits: Count
    failure_classes: dict[str, Count] = {}
    total_cost_usd: Usd
    cost_ceiling_usd: Usd = INVOCATION_CEILING_USD
    run_ceiling_usd: Usd = RUN_CEILING_USD
    run_identities: list[RunIdentity]
    arms: dict[Literal["with_memory", "without_memory"], ArmSummary]
    probes: list[EvidenceProbe]

    @model_validator(mode="after")
    def _every_condition_holds(self) -> Self:
        failures = publication_failures(self)
        if failures:
            raise ValueError("not publishable: " + "; ".join(failures))
        return self


def derive_counts(rows: Sequence[EvidenceProbe]) -> dict[str, int]:
    """Every count and threshold the per-probe rows determine: what the run records and
    what the validator re-derives."""
    abstain = [p for p in rows if p.answer_kind == "abstain"]
    recoverable = [p for p in rows if p.recoverable]
    with_correct = sum(p.with_memory_correct for p in rows)
    without_correct = sum(p.without_memory_correct for p in rows)
    answerable = len(rows) - len(abstain)
    return {
        "probe_count": len(rows),
        "abstain_expected": len(abstain),
        "answerable": answerable,
        "with_memory_correct": with_correct,
        "without_memory_correct": without_correct,
        "lift": with_correct - without_correct,
        "minimum_lift": minimum_lift(answerable),
        "recoverable_probe_count": len(recoverable),
        "recoverable_correct": sum(p.with_memory_correct for p in recoverable),
        "minimum_recoverable_correct": minimum_supported_case_count(len(recoverable)),
        "abstain_with_memory_correct": sum(p.with_memory_correct for p in abstain),
        "minimum_abstain_correct": minimum_supported_case_count(len(abstain)),
        "protected_leaks_in_answers": sum(p.leaked_protected for p in rows),
        "with_memory_policy_failures": sum(p.with_memory_policy_failure for p in rows),
        "without_memory_policy_failures": sum(p.without_memory_policy_failure for p in rows),
    }


def publication_failures(e: LiveEvidence) -> list[str]:
    """Every publication condition that does not hold, as one line each ([] = publish).

    Reads only the fields, so it serves an unvalidated ``LiveEvidence.model_construct``
    (the command's diagnostics) exactly as it serves the validator."""
    failures: list[str] = []
    for name, value in derive_counts(e.probes).items():
        if getattr(e, name) != value:
            failures.append(f"{name} is {getattr(e, name)} but the probe rows give {value}")
    if e.stopped_by is not None:
        failures.append(f"the run stopped early: stopped_by={e.stopped_by}")
    if e.probe_count != e.corpus_probe_count:
        failures.append(f"{e.probe_count} of the corpus's {e.corpus_probe_count} probes ran")
    if e.lift < e.minimum_lift:
        failures.append(f"lift {e.lift} < minimum_lift {e.minimum_lift}")
    if e.recoverable_correct < e.minimum_recoverable_correct:
        failures.append(
            f"recoverable_correct {e.recoverable_correct} <"
            f" minimum_recoverable_correct {e.minimum_recoverable_correct}"
        )
    if e.abstain_with_memory_correct < e.minimum_abstain_correct:
        failures.append(
            f"abstain_with_memory_correct {e.abstain_with_memory_correct} <"
            f" minimum_abstain_correct {e.minimum_abstain_correct}"
        )
    if e.protected_leaks_in_answers != 0:
        failures.append(f"protected_leaks_in_answers {e.protected_leaks_in_answers} != 0")
    if e.with_memory_policy_failures > e.without_memory_policy_failures:
        failures.append(
            f"with_memory_policy_failures {e.with_memory_policy_failures} >"
            f" without_memory_policy_failures {e.without_memory_policy_failures}"
        )
    if e.incomplete_runs != 0:
        failures.append(f"incomplete_runs {e.incomplete_runs} != 0")
    if e.ceiling_hits != 0:
        failures.append(f"ceiling_hits {e.ceiling_hits} != 0")
    if e.cost_ceiling_usd != INVOCATION_CEILING_USD or e.run_ceiling_usd != RUN_CEILING_USD:
        failures.append(
            f"the ceilings are USD {INVOCATION_CEILING_USD:.2f} per invocation and"
            f" {RUN_CEILING_USD:.2f} per run"
        )
    if e.total_cost_usd > e.cost_ceiling_usd:
        failures.append(
            f"total_cost_usd {e.total_cost_usd} > cost_ceiling_usd {e.cost_ceiling_usd}"
        )
    arms = e.arms.values()
    if abs(sum(a.cost_usd for a in arms) - e.total_cost_usd) > 1e-9:
        failures.append("total_cost_usd is not the sum of the arms' costs")
    # Each arm asks every probe once, and a retry at most once more per probe arm.
    askable = 2 * e.probe_count
    if e.retried_runs > askable:
        failures.append(f"retried_runs {e.retried_runs} > the {askable} runs the arms could ask")
    if sum(a.runs for a in arms) != askable + e.retried_runs:
        failures.append("the arms' runs are not one per probe arm plus the retries")
    if e.failure_classes and sum(e.failure_classes.values()) != e.incomplete_runs:
        failures.append("failure_classes does not account for every incomplete run")
    identities = {(r.provider, r.model, r.policy_version) for r in e.run_identities}
    expected = {(e.provider, e.model, e.compiled_policy_version)}
    if identities != expected:
        failures.append(
            f"runs answered under {len(identities)} provider/model/policy identities"
            f" ({sorted(identities)}); evidence needs exactly {sorted(expected)}"
        )
    if e.evaluated_at.tzinfo is None or e.evaluated_at.utcoffset() is None:
        failures.append("evaluated_at is not timezone-aware")
    return failures


class EvidenceExists(FileExistsError):
    """An evidence path that already exists: it is never overwritten."""


def write_evidence(path: Path, evidence: LiveEvidence) -> None:
    """Exclusive create: refuses an existing path even if it appeared since the check."""
    data = orjson.dumps(
        evidence.model_dump(mode="json"), option=orjson.OPT_SORT_KEYS | orjson.OPT_INDENT_2
    )
    try:
        with path.open("xb") as handle:
            handle.write(data + b"\n")
    except FileExistsError:
        raise EvidenceExists(f"{path} exists and evidence is never overwritten") from None


def load_evidence(path: Path) -> LiveEvidence:
    """Read an artifact back through the validator (a tampered count fails here)."""
    return LiveEvidence.model_validate_json(path.read_bytes())


def percentile(values: Sequence[float], fraction: float) -> float:
    """Nearest-rank percentile; 0.0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]
