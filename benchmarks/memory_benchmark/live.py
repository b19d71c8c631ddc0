"""The live arm: every probe asked twice of a real model, with memory and without.

with_memory     the deterministic driver (``LiveScenario``): the scenario's sessions
                formed on a fixed clock, then per probe the context pack built for the
                bare question, with the corpus's probe instruction appended to the turn
without_memory  a fresh empty composition per probe (``bare_prompt``) with the same
                session metadata — principal, project scope, the probe's instant — and
                the probe alone

A *run* is one probe arm asked once: one model call. Before every run the cost guard
adds the per-run ceiling (USD 0.05) to what the invocation has spent and refuses the run
if that would pass the invocation ceiling (USD 4.00): the arm stops with
``stopped_by="cost_ceiling"`` and nothing is published. If the first completed run cost
nothing, the prices cannot bound anything and the arm aborts with
``PRICING_UNAVAILABLE``. Within a run the output allowance is cut so the run cannot pass
its own ceiling on the prices given; a run that did anyway is a ceiling hit.

A run that ended without an answer is retried once, on a composition built the same way
but freshly, through the same admission check — unless it ended in one of the four
terminations the runtime decided on (``KEPT_TERMINATIONS``), which are kept on the first
attempt. An incomplete run records its terminal status, its error class (never a
message), whether a call was billed and what it cost.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Any, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from memory_es.benchmarks.memory_benchmark.answers import AnswerScore, score_answer
from memory_es.benchmarks.memory_benchmark.corpus import (
    BenchmarkProbe,
    BenchmarkScenario,
    LoadedCorpus,
)
from memory_es.benchmarks.memory_benchmark.driver import (
    LiveScenario,
    Profile,
    Prompt,
    SystemVersions,
    bare_prompt,
    fresh_prompt,
)
from memory_es.benchmarks.memory_benchmark.evidence import (
    INVOCATION_CEILING_USD,
    RUN_CEILING_USD,
    ArmSummary,
    EvidenceProbe,
    LiveEvidence,
    RunIdentity,
    derive_counts,
    percentile,
    publication_failures,
)
from memory_es.benchmarks.memory_benchmark.metrics import score_probe
from memory_es.benchmarks.memory_benchmark.run import BENCHMARK_VERSION
from memory_es.errors import UsageError
from memory_es.model import ChatMessage, ChatModel, ContextOverflow, ModelError, ModelRejected

Arm = Literal["with_memory", "without_memory"]
ARMS: tuple[Arm, ...] = ("with_memory", "without_memory")

PRICING_UNAVAILABLE = "model pricing unavailable; ceiling unenforceable"

COMPLETED = "completed"
BUDGET_EXHAUSTED = "budget_exhausted"  # the per-run ceiling stopped it
STEP_EXHAUSTED = "step_exhausted"  # the output allowance ran out (finish_reason=length)
CONTEXT_OVERFLOW = "context_overflow"  # the prompt does not fit (pack or model window)
PERMANENT_MODEL_ERROR = "permanent_model_error"  # the server refused the request itself
FAILED = "failed"  # anything else: transient errors, a malformed or empty answer
KEPT_TERMINATIONS = frozenset(
    {BUDGET_EXHAUSTED, STEP_EXHAUSTED, CONTEXT_OVERFLOW, PERMANENT_MODEL_ERROR}
)


class _Policy(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ModelPolicy(_Policy):
    """How every live call is asked (``--model-policy PATH``, JSON); its digest is the
    compiled policy version every run is recorded under."""

    temperature: float = Field(default=0.0, ge=0, le=2)
    max_output_tokens: int = Field(default=64, ge=1, le=4096)

    def version(self) -> str:
        canonical = orjson.dumps(self.model_dump(), option=orjson.OPT_SORT_KEYS)
        return f"model-policy@1:{hashlib.sha256(canonical).hexdigest()[:12]}"


def load_model_policy(path: Path | None) -> ModelPolicy:
    if path is None:
        return ModelPolicy()
    try:
        return ModelPolicy.model_validate_json(path.read_bytes())
    except OSError as error:
        raise UsageError(f"cannot read model policy {path}: {error.strerror}") from None
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "policy"
        raise UsageError(f"invalid model policy {path}: {where}: {first['msg']}") from None


class CeilingReached(Exception):
    """The pre-admission check refused a run."""


class PricingUnavailable(Exception):
    """The first completed run cost nothing: the ceiling cannot be enforced."""


@dataclass
class CostGuard:
    invocation_ceiling: float = INVOCATION_CEILING_USD
    run_ceiling: float = RUN_CEILING_USD
    spent: float = 0.0
    priced: bool = False  # a completed run has shown a non-zero cost

    def admit(self) -> None:
        if self.spent + self.run_ceiling > self.invocation_ceiling + 1e-12:
            raise CeilingReached

    def charge(self, run: RunRecord) -> None:
        self.spent += run.cost_usd
        if run.status == COMPLETED and not self.priced:
            if run.cost_usd <= 0:
                raise PricingUnavailable
            self.priced = True


@dataclass(frozen=True)
class RunRecord:
    arm: Arm
    scenario: str
    probe: str
    attempt: int  # 1, or 2 for the retry
    status: str  # COMPLETED or a termination
    error_class: str | None
    billed: bool
    cost_usd: float
    input_tokens: int = 0
    output_tokens: int = 0
    latency_seconds: float | None = None  # None when no call answered
    answer: str | None = None
    identity: RunIdentity | None = None
    ceiling_hit: bool = False

    @property
    def completed(self) -> bool:
        return self.status == COMPLETED

    def line(self) -> str:
        """One line per incomplete run: what the command prints (never a message)."""
        return (
            f"incomplete {self.arm} {self.scenario}/{self.probe} attempt {self.attempt}:"
            f" status={self.status} class={self.error_class} billed={str(self.billed).lower()}"
            f" cost_usd={self.cost_usd:.6f}"
        )


def ask(
    model: ChatModel,
    prompt: Prompt,
    policy: ModelPolicy,
    guard: CostGuard,
    *,
    arm: Arm,
    scenario: str,
    probe: str,
    attempt: int,
) -> RunRecord:
    """One admitted run: at most one model call, bounded by the per-run ceiling."""
    guard.admit()

    def ended(status: str, error_class: str, **more: Any) -> RunRecord:
        return RunRecord(arm, scenario, probe, attempt, status, error_class, **more)

    if prompt.error is not None:
        status = CONTEXT_OVERFLOW if prompt.error == "FixedBodyOverflow" else FAILED
        return ended(status, prompt.error, billed=False, cost_usd=0.0)
    # The output allowance the per-run ceiling leaves after the (estimated) prompt.
    left = guard.run_ceiling - prompt.estimated_tokens * model.price_input / 1_000_000
    allowance = policy.max_output_tokens
    if model.price_output > 0:
        allowance = min(allowance, int(left * 1_000_000 / model.price_output))
    if left <= 0 or allowance < 1:
        return ended(BUDGET_EXHAUSTED, "RunBudgetExceeded", billed=False, cost_usd=0.0)
    messages = [ChatMessage(role, content) for role, content in prompt.messages]
    try:
        completion = model.complete(messages, max_tokens=allowance, temperature=policy.temperature)
    except ModelError as error:
        if isinstance(error, ContextOverflow):
            status = CONTEXT_OVERFLOW
        elif isinstance(error, ModelRejected):
            status = PERMANENT_MODEL_ERROR
        else:
            status = FAILED
        return ended(status, type(error).__name__, billed=error.billed, cost_usd=0.0)
    identity = RunIdentity(
        provider=model.provider, model=completion.model, policy_version=policy.version()
    )

    def answered(
        status: str, error_class: str | None, answer: str | None = None, hit: bool = False
    ) -> RunRecord:
        return RunRecord(
            arm,
            scenario,
            probe,
            attempt,
            status,
            error_class,
            billed=True,
            cost_usd=completion.cost_usd,
            input_tokens=completion.input_tokens,
            output_tokens=completion.output_tokens,
            latency_seconds=completion.latency_seconds,
            answer=answer,
            identity=identity,
            ceiling_hit=hit,
        )

    if completion.cost_usd > guard.run_ceiling:
        return answered(BUDGET_EXHAUSTED, "RunBudgetExceeded", hit=True)
    if completion.finish_reason == "length":
        return answered(STEP_EXHAUSTED, "OutputAllowanceExhausted")
    if not completion.text.strip():
        return answered(FAILED, "EmptyAnswer")
    return answered(COMPLETED, None, answer=completion.text)


def ask_with_retry(
    model: ChatModel,
    policy: ModelPolicy,
    guard: CostGuard,
    first: Prompt,
    fresh: Callable[[], Prompt],
    *,
    into: list[RunRecord],
    arm: Arm,
    scenario: str,
    probe: str,
) -> list[RunRecord]:
    """The first run, and once more on a fresh composition unless it completed or ended
    in a kept termination. Every run is kept in ``into`` and charged before the guard can
    stop the invocation, so a failed billed call still counts its cost."""
    runs: list[RunRecord] = []
    for attempt in (1, 2):
        prompt = first if attempt == 1 else fresh()
        run = ask(
            model, prompt, policy, guard, arm=arm, scenario=scenario, probe=probe, attempt=attempt
        )
        runs.append(run)
        into.append(run)
        guard.charge(run)
        if run.completed or run.status in KEPT_TERMINATIONS:
            break
    return runs


@dataclass
class ProbeResult:
    scenario: BenchmarkScenario
    probe: BenchmarkProbe
    recoverable: bool
    runs: dict[Arm, list[RunRecord]] = field(default_factory=dict)
    scores: dict[Arm, AnswerScore | None] = field(default_factory=dict)


@dataclass
class LiveRun:
    """Everything an invocation did, published or not."""

    loaded: LoadedCorpus
    versions: SystemVersions
    provider: str
    model: str
    policy: ModelPolicy
    policy_profile: str
    probes: list[ProbeResult]
    runs: list[RunRecord]
    stopped_by: Literal["cost_ceiling", "pricing_unavailable"] | None
    spent: float
    usage_feedback: Counter[str]  # record_usage per with-memory answer: recorded,
    # unavailable (the library has no Memory.record_usage) or failed

    @property
    def incomplete(self) -> list[RunRecord]:
        """The last attempt of every probe arm that still has no answer."""
        last: dict[tuple[str, str, str], RunRecord] = {}
        for run in self.runs:
            last[(run.arm, run.scenario, run.probe)] = run
        return [run for run in last.values() if not run.completed]


def run_live(
    loaded: LoadedCorpus,
    model: ChatModel,
    *,
    versions: SystemVersions,
    policy: ModelPolicy,
    profile: Profile = None,
    policy_profile: str = "shipped",
    guard: CostGuard | None = None,
    progress: Callable[[], None] | None = None,
) -> LiveRun:
    corpus = loaded.corpus
    guard = guard or CostGuard()
    instruction = corpus.probe_instruction
    results: list[ProbeResult] = []
    runs: list[RunRecord] = []
    stopped_by: Literal["cost_ceiling", "pricing_unavailable"] | None = None
    feedback: Counter[str] = Counter()
    try:
        for scenario in corpus.scenarios:
            with LiveScenario(scenario, instruction, profile) as live:
                for probe, prompt in live.prompts():
                    result = ProbeResult(scenario, probe, _recoverable(scenario, probe, prompt))
                    results.append(result)
                    arm_runs = ask_with_retry(
                        model,
                        policy,
                        guard,
                        prompt,
                        partial(fresh_prompt, scenario, probe.id, instruction, profile),
                        into=runs,
                        arm="with_memory",
                        scenario=scenario.id,
                        probe=probe.id,
                    )
                    result.runs["with_memory"] = arm_runs
                    answer = arm_runs[-1].answer
                    if answer is not None and prompt.session_id is not None:
                        run_id = f"{scenario.id}/{probe.id}/with_memory"
                        feedback[live.record_usage(prompt.session_id, run_id, answer)] += 1
                    bare = bare_prompt(scenario, probe, instruction, profile)
                    arm_runs = ask_with_retry(
                        model,
                        policy,
                        guard,
                        bare,
                        partial(bare_prompt, scenario, probe, instruction, profile),
                        into=runs,
                        arm="without_memory",
                        scenario=scenario.id,
                        probe=probe.id,
                    )
                    result.runs["without_memory"] = arm_runs
                    for arm in ARMS:
                        result.scores[arm] = _score(result, arm, corpus.abstain_phrase)
                    if progress is not None:
                        progress()
    except CeilingReached:
        stopped_by = "cost_ceiling"
    except PricingUnavailable:
        stopped_by = "pricing_unavailable"
    return LiveRun(
        loaded=loaded,
        versions=versions,
        provider=model.provider,
        model=model.model,
        policy=policy,
        policy_profile=policy_profile,
        probes=results,
        runs=runs,
        stopped_by=stopped_by,
        spent=guard.spent,
        usage_feedback=feedback,
    )


def _recoverable(scenario: BenchmarkScenario, probe: BenchmarkProbe, prompt: Prompt) -> bool:
    """Answerable, and the with-memory pack recalled every needed label."""
    if probe.answer.kind == "abstain" or prompt.observation is None:
        return False
    row = score_probe(scenario, probe, prompt.observation)
    return row.needed_total > 0 and row.needed_recalled == row.needed_total


def _score(result: ProbeResult, arm: Arm, abstain_phrase: str) -> AnswerScore | None:
    answer = result.runs[arm][-1].answer
    if answer is None:
        return None
    return score_answer(
        answer,
        result.probe,
        abstain_phrase=abstain_phrase,
        protected=result.scenario.protected_statements,
    )


# -- the evidence ------------------------------------------------------------------------


def _arm_summary(runs: Iterable[RunRecord], scores: Sequence[AnswerScore | None]) -> ArmSummary:
    runs = list(runs)
    latencies = [r.latency_seconds for r in runs if r.latency_seconds is not None]
    done = [s for s in scores if s is not None]
    return ArmSummary(
        runs=len(runs),
        completed=sum(r.completed for r in runs),
        correct=sum(s.correct for s in done),
        abstained=sum(s.abstained for s in done),
        policy_failures=sum(s.policy_failure for s in done),
        protected_leaks=sum(s.leaked_protected for s in done),
        input_tokens=sum(r.input_tokens for r in runs),
        output_tokens=sum(r.output_tokens for r in runs),
        cost_usd=sum(r.cost_usd for r in runs),
        latency_p50_seconds=percentile(latencies, 0.50),
        latency_p95_seconds=percentile(latencies, 0.95),
    )


def _probe_row(result: ProbeResult) -> EvidenceProbe:
    def flag(arm: Arm, what: str) -> bool:
        score = result.scores.get(arm)
        return bool(score is not None and getattr(score, what))

    def answer(arm: Arm) -> str | None:
        runs = result.runs.get(arm)
        return runs[-1].answer if runs else None

    return EvidenceProbe(
        scenario=result.scenario.id,
        probe=result.probe.id,
        category=result.probe.category,
        answer_kind=result.probe.answer.kind,
        recoverable=result.recoverable,
        with_memory_answer=answer("with_memory"),
        without_memory_answer=answer("without_memory"),
        with_memory_correct=flag("with_memory", "correct"),
        without_memory_correct=flag("without_memory", "correct"),
        with_memory_abstained=flag("with_memory", "abstained"),
        without_memory_abstained=flag("without_memory", "abstained"),
        with_memory_policy_failure=flag("with_memory", "policy_failure"),
        without_memory_policy_failure=flag("without_memory", "policy_failure"),
        leaked_protected=flag("with_memory", "leaked_protected")
        or flag("without_memory", "leaked_protected"),
    )


def evidence_fields(live: LiveRun, *, build_ref: str, evaluated_at: datetime) -> dict[str, Any]:
    """The artifact's fields, counted from the run (validated only by ``LiveEvidence``)."""
    rows = [_probe_row(r) for r in live.probes]
    incomplete = live.incomplete
    arms = {
        arm: _arm_summary(
            (r for r in live.runs if r.arm == arm), [p.scores.get(arm) for p in live.probes]
        )
        for arm in ARMS
    }
    identities = {r.identity for r in live.runs if r.identity is not None}
    return {
        "benchmark_version": BENCHMARK_VERSION,
        "corpus_digest": live.loaded.sha256,
        "build_ref": build_ref,
        "provider": live.provider,
        "model": live.model,
        "policy_profile": live.policy_profile,
        "compiled_policy_version": live.policy.version(),
        "formation_policy": live.versions.formation_policy,
        "retrieval_policy": live.versions.retrieval_policy,
        "extractor": live.versions.extractor,
        "evaluated_at": evaluated_at,
        "stopped_by": live.stopped_by,
        "corpus_probe_count": sum(len(s.probes) for s in live.loaded.corpus.scenarios),
        **derive_counts(rows),
        "incomplete_runs": len(incomplete),
        "retried_runs": sum(1 for r in live.runs if r.attempt == 2),
        "ceiling_hits": sum(r.ceiling_hit for r in live.runs),
        "failure_classes": dict(sorted(Counter(str(r.error_class) for r in incomplete).items())),
        "total_cost_usd": live.spent,
        "cost_ceiling_usd": INVOCATION_CEILING_USD,
        "run_ceiling_usd": RUN_CEILING_USD,
        "run_identities": sorted(identities, key=lambda i: (i.provider, i.model, i.policy_version)),
        "arms": arms,
        "probes": rows,
    }


@dataclass(frozen=True)
class Verdict:
    evidence: LiveEvidence | None  # validated: every condition held
    diagnostics: list[str]
    fields: dict[str, Any]


def judge(live: LiveRun, *, build_ref: str, evaluated_at: datetime) -> Verdict:
    fields = evidence_fields(live, build_ref=build_ref, evaluated_at=evaluated_at)
    diagnostics = publication_failures(LiveEvidence.model_construct(**fields))
    if live.stopped_by == "pricing_unavailable":
        diagnostics.insert(0, PRICING_UNAVAILABLE)
    if diagnostics:
        return Verdict(None, diagnostics, fields)
    try:
        return Verdict(LiveEvidence.model_validate(fields), [], fields)
    except ValidationError as error:  # a field-level rule publication_failures can't see
        return Verdict(None, [str(e["msg"]) for e in error.errors()], fields)
