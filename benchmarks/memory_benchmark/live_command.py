"""``memory-es eval memory-benchmark --no-deterministic-only``: the live arm's command.

Reached through a lazy import only. Opt-in: without ``RUN_LIVE_MODEL_TESTS=1`` it prints
a skip and exits 0. An existing ``--output`` is refused (exit 2) before the model is
configured or called; an unconfigured model is a usage error (exit 2). A run publishes
its evidence at ``--output`` and exits 0 only when every publication condition held;
otherwise it writes nothing and exits 1 with the diagnostics. Either way the result
document is printed as JSON on stdout, and a one-line summary, one line per incomplete
run, on stderr.
"""

from __future__ import annotations

import hashlib
import os
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from memory_es.benchmarks.memory_benchmark.corpus import (
    SHIPPED_CORPUS,
    CorpusError,
    LoadedCorpus,
    load_corpus,
)
from memory_es.benchmarks.memory_benchmark.driver import SystemVersions, system_versions
from memory_es.benchmarks.memory_benchmark.evidence import LiveEvidence, write_evidence
from memory_es.benchmarks.memory_benchmark.live import (
    LiveRun,
    ModelPolicy,
    Verdict,
    judge,
    load_model_policy,
    run_live,
)
from memory_es.errors import UsageError
from memory_es.model import ChatModel
from memory_es.profiles import resolve_profile

OPT_IN = "RUN_LIVE_MODEL_TESTS"
PROFILE_ENV = "MEMORY_ES_PROFILE"


def profile_label(profile: Path | None) -> str:
    """What the policy profile was: the shipped one, or an overlay by name and digest."""
    if profile is None:
        return "shipped"
    try:
        digest = hashlib.sha256(profile.read_bytes()).hexdigest()[:12]
    except OSError as error:
        raise UsageError(f"cannot read policy profile {profile}: {error.strerror}") from None
    return f"{profile.name}@sha256:{digest}"


def live_benchmark(
    *,
    output: Path,
    build_ref: str,
    corpus: Path | None,
    model_policy: Path | None,
    policy_profile: Path | None,
) -> int:
    if os.environ.get(OPT_IN) != "1":
        print(
            f"live arm skipped: set {OPT_IN}=1 to run it (it calls a paid model)", file=sys.stderr
        )
        _print({"arm": "live", "skipped": True, "reason": f"{OPT_IN} is not 1"})
        return 0
    if output.exists():
        raise UsageError(f"{output} exists and evidence is never overwritten")
    if not output.parent.is_dir():
        raise UsageError(f"the evidence folder {output.parent} does not exist")
    try:
        loaded = load_corpus(corpus if corpus is not None else SHIPPED_CORPUS)
    except CorpusError as error:
        raise UsageError(str(error)) from None
    policy = load_model_policy(model_policy)
    if policy_profile is None and os.environ.get(PROFILE_ENV):
        policy_profile = Path(os.environ[PROFILE_ENV])
    label = profile_label(policy_profile)
    if resolve_profile(policy_profile).formation.extractor == "provider":
        # Its formation calls would spend outside the pre-admission ceiling.
        raise UsageError(
            "the live arm forms with the deterministic extractor: a policy profile with"
            " formation.extractor: provider would spend outside the cost ceiling"
        )
    from memory_es.model import model_from_env  # ModelNotConfigured is a UsageError

    model = model_from_env()
    versions = system_versions(policy_profile)
    live = _run(loaded, model, versions, policy, policy_profile, label)
    verdict = judge(live, build_ref=build_ref, evaluated_at=datetime.now(tz=UTC))
    published = False
    if verdict.evidence is not None:
        try:
            write_evidence(output, verdict.evidence)
            published = True
        except OSError as error:  # EvidenceExists included: never overwritten
            verdict.diagnostics.append(f"evidence not written: {error}")
    _report(live, verdict, output if published else None)
    return 0 if published else 1


def _run(
    loaded: LoadedCorpus,
    model: ChatModel,
    versions: SystemVersions,
    policy: ModelPolicy,
    profile: Path | None,
    label: str,
) -> LiveRun:
    total = sum(len(s.probes) for s in loaded.corpus.scenarios)
    if not sys.stderr.isatty():
        return run_live(
            loaded, model, versions=versions, policy=policy, profile=profile, policy_profile=label
        )
    from tqdm import tqdm

    with tqdm(total=total, desc="live probes", unit="probe", file=sys.stderr) as bar:
        return run_live(
            loaded,
            model,
            versions=versions,
            policy=policy,
            profile=profile,
            policy_profile=label,
            progress=bar.update,
        )


def _report(live: LiveRun, verdict: Verdict, written: Path | None) -> None:
    fields = verdict.fields
    arms = fields["arms"]
    w, wo = arms["with_memory"], arms["without_memory"]
    state = f"published {written}" if written is not None else "not published"
    print(
        f"live arm: {state}; {fields['probe_count']}/{fields['corpus_probe_count']} probes,"
        f" with memory {fields['with_memory_correct']} correct, without"
        f" {fields['without_memory_correct']} (lift {fields['lift']}, minimum"
        f" {fields['minimum_lift']}); cost USD {fields['total_cost_usd']:.4f}"
        f" (with {w.cost_usd:.4f}, without {wo.cost_usd:.4f}); p50/p95 s with"
        f" {w.latency_p50_seconds:.3f}/{w.latency_p95_seconds:.3f} without"
        f" {wo.latency_p50_seconds:.3f}/{wo.latency_p95_seconds:.3f}"
        + (f"; stopped_by={live.stopped_by}" if live.stopped_by else ""),
        file=sys.stderr,
    )
    for run in live.incomplete:
        print(run.line(), file=sys.stderr)
    for line in verdict.diagnostics:
        print(f"diagnostic: {line}", file=sys.stderr)
    document = LiveEvidence.model_construct(**fields).model_dump(mode="json")
    document.update(
        arm="live",
        skipped=False,
        published=written is not None,
        output=str(written) if written is not None else None,
        diagnostics=verdict.diagnostics,
        incomplete=[run.line() for run in live.incomplete],
        usage_feedback=dict(sorted(live.usage_feedback.items())),
    )
    _print(document)


def _print(document: dict[str, Any]) -> None:
    sys.stdout.write(orjson.dumps(document, option=orjson.OPT_SORT_KEYS).decode() + "\n")
