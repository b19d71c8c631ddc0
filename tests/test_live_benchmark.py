"""gate.memory.bench_evidence_publish and gate.memory.bench_cost_ceiling: the live arm's evidence
and its cost ceiling, against a real
chat-completions server on 127.0.0.1 (``tests/chat_server.py``) with scripted answers,
token counts and prices. No network; the HTTP layer is real."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from memory_es.benchmarks.memory_benchmark.corpus import load_corpus
from memory_es.benchmarks.memory_benchmark.evidence import (
    INVOCATION_CEILING_USD,
    RUN_CEILING_USD,
    EvidenceExists,
    LiveEvidence,
    load_evidence,
    minimum_supported_case_count,
    write_evidence,
)
from memory_es.benchmarks.memory_benchmark.live import PRICING_UNAVAILABLE
from memory_es.cli import main
from tests.chat_server import Reply, Script, ScriptedChatServer, chat_server

CORPUS = load_corpus().corpus
PROBES = [(s, p) for s in CORPUS.scenarios for p in s.probes]
BUILD_REF = "0123456789abcdef0123456789abcdef01234567"


def _question(body: dict[str, Any]) -> str:
    return str(body["messages"][-1]["content"]).split("\n\n", 1)[0]


def _memory_text(body: dict[str, Any]) -> str:
    """The memory lines (``[m:<id>] statement``) before the turn: the snapshot block in
    the prefix, the recall and delta blocks."""
    return "\n".join(
        line
        for m in body["messages"][:-1]
        for line in str(m["content"]).splitlines()
        if line.startswith("[m:")
    )


def reading_model(body: dict[str, Any], n: int) -> Reply:
    """A model that reads its context: it answers a probe's gold values when they appear
    in the memory it was given, and abstains otherwise. So the arms differ exactly
    where retrieval put the answer in front of it."""
    question, memory = _question(body), _memory_text(body).casefold()
    for _, probe in PROBES:
        if probe.question != question or probe.answer.kind == "abstain":
            continue
        seen = [v for v in probe.answer.values if v.casefold() in memory]
        if probe.answer.kind == "all_of" and len(seen) == len(probe.answer.values):
            return Reply(content=" and ".join(seen), prompt_tokens=400, completion_tokens=8)
        if probe.answer.kind != "all_of" and seen:
            return Reply(content=seen[0], prompt_tokens=400, completion_tokens=8)
    return Reply(content=CORPUS.abstain_phrase, prompt_tokens=300, completion_tokens=8)


@pytest.fixture
def live_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("RUN_LIVE_MODEL_TESTS", "1")
    monkeypatch.delenv("MEMORY_ES_PROFILE", raising=False)
    yield


@contextmanager
def _served(
    script: Script, monkeypatch: pytest.MonkeyPatch, **prices: float
) -> Iterator[ScriptedChatServer]:
    """The scripted server, with the model settings pointing at it."""
    with chat_server(script) as server:
        for name, value in server.env(**prices).items():
            monkeypatch.setenv(name, value)
        yield server


def _live(output: Path, *more: str) -> list[str]:
    return [
        "eval",
        "memory-benchmark",
        "--no-deterministic-only",
        "--output",
        str(output),
        "--build-ref",
        BUILD_REF,
        *more,
    ]


def _document(capsys: pytest.CaptureFixture[str]) -> tuple[dict[str, Any], str]:
    captured = capsys.readouterr()
    return json.loads(captured.out), captured.err


# -- gate.memory.bench_evidence_publish: evidence exists only when every pass condition held -------


def test_bench_evidence_publish(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    live_env: None,
) -> None:
    """gate.memory.bench_evidence_publish: a passing run publishes one artifact with the
    identities, its validator re-derives every threshold from the counts; a tampered
    artifact fails validation; an existing artifact is refused before any model call."""
    output = tmp_path / "evidence.json"
    with _served(reading_model, monkeypatch) as server:
        assert main(_live(output)) == 0
        document, err = _document(capsys)
        calls = len(server.requests)
        with pytest.raises(SystemExit) as refused:
            main(_live(output))
        assert refused.value.code == 2
        assert len(server.requests) == calls
        assert "never overwritten" in capsys.readouterr().err

    assert document["published"] is True and document["diagnostics"] == []
    assert "live arm: published" in err
    evidence = load_evidence(output)
    for name in (
        "corpus_digest",
        "build_ref",
        "provider",
        "model",
        "policy_profile",
        "compiled_policy_version",
        "formation_policy",
        "retrieval_policy",
    ):
        assert getattr(evidence, name), name
    assert evidence.corpus_digest == load_corpus().sha256
    assert evidence.build_ref == BUILD_REF
    assert evidence.provider.startswith("openai-compatible@127.0.0.1:")
    assert evidence.model == "scripted-model" and evidence.policy_profile == "shipped"
    assert evidence.evaluated_at.utcoffset() is not None
    # Both arms asked every probe once: one model call per run.
    assert evidence.probe_count == len(PROBES) == evidence.corpus_probe_count
    assert calls == 2 * len(PROBES) == sum(a.runs for a in evidence.arms.values())
    # Thresholds derived from counts inside the artifact.
    abstain = sum(1 for _, p in PROBES if p.answer.kind == "abstain")
    assert evidence.abstain_expected == abstain
    assert evidence.answerable == len(PROBES) - abstain
    assert evidence.minimum_lift == (evidence.answerable + 4) // 5
    assert evidence.minimum_abstain_correct == minimum_supported_case_count(abstain)
    assert evidence.minimum_recoverable_correct == minimum_supported_case_count(
        evidence.recoverable_probe_count
    )
    assert evidence.lift >= evidence.minimum_lift > 0
    # Without memory the reading model can only abstain: right exactly on abstention.
    assert evidence.without_memory_correct == abstain
    assert evidence.abstain_with_memory_correct >= evidence.minimum_abstain_correct
    # Cost: 400 or 300 input and 8 output tokens at USD 1 and 2 per million.
    assert 0 < evidence.total_cost_usd <= INVOCATION_CEILING_USD
    assert evidence.arms["with_memory"].latency_p95_seconds >= (
        evidence.arms["with_memory"].latency_p50_seconds
    )
    # Written with an exclusive create: even a direct write never replaces it.
    before = output.read_bytes()
    with pytest.raises(EvidenceExists):
        write_evidence(output, evidence)
    assert output.read_bytes() == before
    # A tampered count is refused by the evidence model's own validator.
    raw = json.loads(output.read_text())
    for name, value in (
        ("with_memory_correct", raw["with_memory_correct"] + 1),
        ("minimum_lift", raw["minimum_lift"] - 1),
        ("incomplete_runs", 1),
        ("evaluated_at", "2026-12-01T10:00:00"),
    ):
        with pytest.raises(ValueError):
            LiveEvidence.model_validate({**raw, name: value})


def test_bench_evidence_publish_failing_run_writes_nothing(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    live_env: None,
) -> None:
    """A model that always abstains shows no lift: diagnostics, exit 1, no artifact."""
    output = tmp_path / "evidence.json"

    def abstains(body: dict[str, Any], n: int) -> Reply:
        return Reply(content=CORPUS.abstain_phrase)

    with _served(abstains, monkeypatch):
        assert main(_live(output)) == 1
    document, err = _document(capsys)
    assert not output.exists()
    assert document["published"] is False
    assert any(line.startswith("lift 0 < minimum_lift") for line in document["diagnostics"])
    assert "diagnostic: lift 0 < minimum_lift" in err


def test_bench_evidence_publish_one_model_across_every_run(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    live_env: None,
) -> None:
    """A server that routes some runs to another model publishes nothing."""
    output = tmp_path / "evidence.json"

    def switches(body: dict[str, Any], n: int) -> Reply:
        reply = reading_model(body, n)
        return Reply(content=reply.content, model="other-model" if n == 7 else None)

    with _served(switches, monkeypatch):
        assert main(_live(output)) == 1
    document, _ = _document(capsys)
    assert not output.exists()
    assert any("identities" in line for line in document["diagnostics"])


# -- gate.memory.bench_cost_ceiling: the live arm stops before it exceeds its ceiling --------------


def test_bench_cost_ceiling(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    live_env: None,
) -> None:
    """gate.memory.bench_cost_ceiling: at USD 0.045 a run the pre-admission check admits
    88 runs (88 * 0.045 + 0.05 > 4.00) and refuses the 89th before calling the model;
    the arm records stopped_by=cost_ceiling and publishes nothing."""
    output = tmp_path / "evidence.json"

    def expensive(body: dict[str, Any], n: int) -> Reply:
        return Reply(content="Portland", prompt_tokens=45_000, completion_tokens=0)

    with _served(expensive, monkeypatch, price_input=1.0, price_output=2.0) as server:
        # The output allowance is cut to fit the run ceiling, so the prompt is what costs.
        assert main(_live(output)) == 1
        calls = len(server.requests)
    document, _ = _document(capsys)
    assert not output.exists()
    per_run = 45_000 * 1.0 / 1_000_000
    admitted = 0
    while admitted * per_run + RUN_CEILING_USD <= INVOCATION_CEILING_USD + 1e-12:
        admitted += 1
    assert calls == admitted == 88
    assert document["stopped_by"] == "cost_ceiling"
    assert document["total_cost_usd"] == pytest.approx(calls * per_run)
    assert document["total_cost_usd"] <= INVOCATION_CEILING_USD
    assert document["total_cost_usd"] + RUN_CEILING_USD > INVOCATION_CEILING_USD
    assert any("stopped_by=cost_ceiling" in line for line in document["diagnostics"])


@pytest.mark.parametrize("why", ["zero price", "no usage reported"])
def test_bench_cost_ceiling_zero_price_aborts(
    why: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    live_env: None,
) -> None:
    """A model priced at zero (or a server that bills nothing) aborts after the first
    completed run instead of running the corpus for free."""
    output = tmp_path / "evidence.json"

    def free(body: dict[str, Any], n: int) -> Reply:
        if why == "no usage reported":
            return Reply(content="Portland", prompt_tokens=None, completion_tokens=None)
        return Reply(content="Portland")

    prices = {"price_input": 0.0, "price_output": 0.0} if why == "zero price" else {}
    with _served(free, monkeypatch, **prices) as server:
        assert main(_live(output)) == 1
        calls = len(server.requests)
    document, err = _document(capsys)
    assert calls == 1
    assert not output.exists()
    assert document["stopped_by"] == "pricing_unavailable"
    assert document["diagnostics"][0] == PRICING_UNAVAILABLE
    assert f"diagnostic: {PRICING_UNAVAILABLE}" in err


# -- the retry-once rule, the kept terminations, the incomplete-run lines ------------------

FIRST = PROBES[0]
FIRST_RUN = f"with_memory {FIRST[0].id}/{FIRST[1].id}"


def _run_with(
    first_replies: list[Reply],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> tuple[int, dict[str, Any], str, int]:
    """The reading model, except that the first requests get ``first_replies``."""
    output = tmp_path / "evidence.json"

    def script(body: dict[str, Any], n: int) -> Reply:
        return first_replies[n] if n < len(first_replies) else reading_model(body, n)

    with _served(script, monkeypatch) as server:
        code = main(_live(output))
        calls = len(server.requests)
    document, err = _document(capsys)
    assert output.exists() == (code == 0)
    return code, document, err, calls


def test_a_failed_run_is_retried_once_on_a_fresh_composition(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    live_env: None,
) -> None:
    code, document, _, calls = _run_with([Reply(status=503)], tmp_path, monkeypatch, capsys)
    assert code == 0, document["diagnostics"]
    assert calls == 2 * len(PROBES) + 1
    assert document["retried_runs"] == 1 and document["incomplete_runs"] == 0
    assert document["arms"]["with_memory"]["runs"] == len(PROBES) + 1


def test_a_second_failure_is_kept_and_counted(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    live_env: None,
) -> None:
    code, document, err, calls = _run_with(
        [Reply(status=503), Reply(content="   ")], tmp_path, monkeypatch, capsys
    )
    assert code == 1 and calls == 2 * len(PROBES) + 1
    assert document["retried_runs"] == 1 and document["incomplete_runs"] == 1
    assert document["failure_classes"] == {"EmptyAnswer": 1}
    # The empty answer was billed, and its cost counts.
    line = f"incomplete {FIRST_RUN} attempt 2: status=failed class=EmptyAnswer billed=true"
    assert line in err and document["incomplete"][0].startswith(line)
    assert "incomplete_runs 1 != 0" in document["diagnostics"]


@pytest.mark.parametrize(
    ("reply", "status", "error_class", "billed"),
    [
        (Reply(status=401), "permanent_model_error", "ModelRejected", "false"),
        (
            Reply(status=400, error={"code": "context_length_exceeded"}),
            "context_overflow",
            "ContextOverflow",
            "false",
        ),
        (Reply(content="Port", finish_reason="length"), "step_exhausted", None, "true"),
        (
            Reply(content="Portland", prompt_tokens=60_000),
            "budget_exhausted",
            "RunBudgetExceeded",
            "true",
        ),
    ],
    ids=["permanent", "overflow", "steps", "budget"],
)
def test_the_four_kept_terminations_are_not_retried(
    reply: Reply,
    status: str,
    error_class: str | None,
    billed: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    live_env: None,
) -> None:
    code, document, err, calls = _run_with([reply], tmp_path, monkeypatch, capsys)
    assert code == 1 and calls == 2 * len(PROBES)
    assert document["retried_runs"] == 0 and document["incomplete_runs"] == 1
    expected_class = error_class or "OutputAllowanceExhausted"
    assert document["failure_classes"] == {expected_class: 1}
    line = f"incomplete {FIRST_RUN} attempt 1: status={status} class={expected_class}"
    assert f"{line} billed={billed}" in err
    assert document["ceiling_hits"] == int(status == "budget_exhausted")


def test_the_live_arm_is_opt_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("RUN_LIVE_MODEL_TESTS", raising=False)
    output = tmp_path / "evidence.json"
    assert main(_live(output)) == 0
    document, err = _document(capsys)
    assert document == {"arm": "live", "skipped": True, "reason": "RUN_LIVE_MODEL_TESTS is not 1"}
    assert "live arm skipped" in err and not output.exists()


def test_live_usage_errors(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    live_env: None,
) -> None:
    for name in ("MEMORY_ES_MODEL_BASE_URL", "MEMORY_ES_MODEL"):
        monkeypatch.delenv(name, raising=False)
    output = tmp_path / "evidence.json"
    provider = tmp_path / "provider.yaml"
    provider.write_text("formation:\n  extractor: provider\n")
    base = ["eval", "memory-benchmark", "--no-deterministic-only"]
    for argv, message in (
        ([*base, "--build-ref", BUILD_REF], "needs --output PATH and --build-ref"),
        ([*base, "--output", str(output)], "needs --output PATH and --build-ref"),
        (_live(output), "no model configured"),
        (_live(tmp_path / "missing" / "evidence.json"), "does not exist"),
        (_live(output, "--policy-profile", str(provider)), "outside the cost ceiling"),
        (
            ["eval", "memory-benchmark", "--model-policy", "p.json"],
            "--model-policy goes with --no-deterministic-only",
        ),
    ):
        with pytest.raises(SystemExit) as refused:
            main(argv)
        assert refused.value.code == 2
        assert message in capsys.readouterr().err
    assert not output.exists()


def test_the_with_memory_arm_reports_each_final_message_for_usage_feedback(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    live_env: None,
) -> None:
    """Where the library has ``Memory.record_usage`` the live arm calls it once per
    completed with-memory run, on the probe's own session, with the final message.
    (A recorder stands in for it until the lifecycle work lands.)"""
    import memory_es

    recorded: list[tuple[str, str, str]] = []

    def record_usage(self: Any, session_id: str, run_id: str, final_message: str) -> None:
        assert self.session(session_id).principal == "benchmark-user"
        recorded.append((session_id, run_id, final_message))

    if not hasattr(memory_es.Memory, "record_usage"):
        monkeypatch.setattr(memory_es.Memory, "record_usage", record_usage, raising=False)
    with _served(reading_model, monkeypatch):
        assert main(_live(tmp_path / "evidence.json")) == 0
    document, _ = _document(capsys)
    assert document["usage_feedback"] == {"recorded": len(PROBES)}
    if recorded:  # the stand-in: one call per probe, the with-memory answer verbatim
        assert [r[1] for r in recorded] == [f"{s.id}/{p.id}/with_memory" for s, p in PROBES]
        answers = {(r["scenario"], r["probe"]): r["with_memory_answer"] for r in document["probes"]}
        assert [r[2] for r in recorded] == [answers[(s.id, p.id)] for s, p in PROBES]
