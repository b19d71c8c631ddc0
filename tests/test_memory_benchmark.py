"""The memory benchmark's deterministic arm, its metrics and its exact baseline, and the
`eval memory-benchmark` command: gate.memory.bench_reproducible,
gate.memory.bench_no_regression, gate.memory.bench_baseline_current,
gate.memory.bench_protected_never_rendered and gate.memory.bench_supersession_current."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from memory_es.benchmarks.memory_benchmark.baseline import (
    SHIPPED_BASELINE,
    BaselineError,
    baseline_document,
    compare,
    load_baseline,
    write_baseline,
)
from memory_es.benchmarks.memory_benchmark.corpus import (
    SHIPPED_CORPUS,
    BenchmarkScenario,
    LoadedCorpus,
    load_corpus,
)
from memory_es.benchmarks.memory_benchmark.driver import drive_scenario
from memory_es.benchmarks.memory_benchmark.metrics import score_formation, score_probe
from memory_es.benchmarks.memory_benchmark.observations import (
    BeliefView,
    MomentView,
    ProbeObservation,
    ScenarioObservation,
    SessionOutcome,
)
from memory_es.benchmarks.memory_benchmark.run import BenchmarkResult, run_deterministic
from memory_es.cli import main

ROOT = Path(__file__).resolve().parent.parent
START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def loaded() -> LoadedCorpus:
    return load_corpus()


@pytest.fixture(scope="module")
def result(loaded: LoadedCorpus) -> BenchmarkResult:
    return run_deterministic(loaded)


@pytest.fixture(scope="module")
def observed(loaded: LoadedCorpus) -> dict[str, ScenarioObservation]:
    return {s.id: drive_scenario(s) for s in loaded.corpus.scenarios}


def scenario(loaded: LoadedCorpus, scenario_id: str) -> BenchmarkScenario:
    return next(s for s in loaded.corpus.scenarios if s.id == scenario_id)


# -- gate.memory.bench_reproducible ----------------------------------------------------------------


def test_bench_reproducible_deterministic_arm_is_reproducible(
    loaded: LoadedCorpus, result: BenchmarkResult
) -> None:
    again = run_deterministic(loaded)
    assert again.metrics() == result.metrics()
    assert again.header() == result.header()
    assert result.aggregate["max_distinct_prefixes_per_probe"] <= 1
    assert all(row.distinct_prefixes <= 1 for row in result.probes)
    assert result.aggregate["model_calls"] == result.aggregate["probes"]


def test_bench_reproducible_output_is_byte_identical_across_processes_and_hash_seeds() -> None:
    command = [sys.executable, "-m", "memory_es", "eval", "memory-benchmark"]
    runs = [
        subprocess.Popen(
            [*command, "--deterministic-only", "--json"],
            cwd=ROOT,
            env={**os.environ, "PYTHONHASHSEED": seed},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for seed in ("0", "4242")
    ]
    outputs = []
    for process in runs:
        out, err = process.communicate(timeout=120)
        assert process.returncode == 0, err.decode()
        outputs.append(out)
    assert outputs[0] == outputs[1]
    document = json.loads(outputs[0])
    assert {"aggregate", "per_category", "probes", "comparison"} <= set(document)


# -- gate.memory.bench_no_regression and gate.memory.bench_baseline_current ------------------------


def test_bench_no_regression_benchmark_does_not_regress(result: BenchmarkResult) -> None:
    comparison = compare(result, load_baseline(SHIPPED_BASELINE))
    assert comparison.drift == []
    assert comparison.regressions == []
    assert comparison.no_regression


def test_bench_baseline_current(result: BenchmarkResult) -> None:
    comparison = compare(result, load_baseline(SHIPPED_BASELINE))
    assert comparison.changes == [], (
        "the deterministic arm moved: re-record the baseline in this change "
        "(see docs/benchmark.md) and state the delta in the commit message"
    )
    assert comparison.baseline_current


def _baseline(result: BenchmarkResult) -> dict[str, Any]:
    return copy.deepcopy(baseline_document(result, build_ref="test", recorded_at="now"))


def _probe_row(document: dict[str, Any], index: int = 0) -> dict[str, Any]:
    row: dict[str, Any] = document["probes"][index]
    return row


def test_comparison_reports_drift_when_the_corpus_or_policy_differs(
    result: BenchmarkResult,
) -> None:
    for field in ("corpus_digest", "formation_policy", "retrieval_policy", "extractor"):
        document = _baseline(result)
        document[field] = "something else"
        comparison = compare(result, document)
        assert [c.metric for c in comparison.drift] == [field]
        assert not comparison.no_regression and not comparison.baseline_current
    document = _baseline(result)
    document["aggregate"]["needed_total"] += 1
    assert [c.metric for c in compare(result, document).drift] == ["aggregate.needed_total"]
    document = _baseline(result)
    document["aggregate"]["needed_by_distance"][0]["needed"] += 1
    assert compare(result, document).drift
    document = _baseline(result)
    document["probes"].pop()
    assert compare(result, document).drift  # a probe row appeared


def test_comparison_sorts_regressions_improvements_and_shifts(result: BenchmarkResult) -> None:
    # The baseline recalled more than this run: a regression.
    document = _baseline(result)
    document["aggregate"]["needed_recalled"] += 1
    comparison = compare(result, document)
    assert [c.metric for c in comparison.regressions] == ["aggregate.needed_recalled"]
    assert not comparison.no_regression

    # The baseline had more noise than this run: an improvement, still not current.
    document = _baseline(result)
    document["aggregate"]["noise_total"] += 1
    comparison = compare(result, document)
    assert [c.metric for c in comparison.improvements] == ["aggregate.noise_total"]
    assert comparison.no_regression and not comparison.baseline_current

    # A lower-is-better count rose.
    document = _baseline(result)
    document["aggregate"]["abstention_leaks"] = result.aggregate["abstention_leaks"] - 1
    assert [c.metric for c in compare(result, document).regressions] == [
        "aggregate.abstention_leaks"
    ]

    # One probe lost a recalled label even though the aggregate held.
    document = _baseline(result)
    recalled = next(i for i, r in enumerate(result.probes) if r.needed_recalled)
    _probe_row(document, recalled)["needed_recalled"] += 1
    comparison = compare(result, document)
    assert any(c.metric.endswith(".needed_recalled") for c in comparison.regressions)

    # Attribution moved: a shift, neither better nor worse.
    document = _baseline(result)
    document["aggregate"]["needed_recalled_snapshot_only"] += 1
    document["aggregate"]["needed_recalled_in_turn_only"] -= 1
    comparison = compare(result, document)
    assert len(comparison.shifts) == 2 and not comparison.regressions
    assert comparison.no_regression and not comparison.baseline_current

    # A count with no direction (formed) only makes the baseline stale.
    document = _baseline(result)
    document["aggregate"]["formed"] += 3
    comparison = compare(result, document)
    assert comparison.no_regression and not comparison.baseline_current
    assert [c.metric for c in comparison.changes] == ["aggregate.formed"]


def test_a_baseline_is_never_overwritten(result: BenchmarkResult, tmp_path: Path) -> None:
    path = tmp_path / "baseline.json"
    write_baseline(path, _baseline(result))
    recorded = path.read_bytes()
    with pytest.raises(BaselineError, match="never overwritten"):
        write_baseline(path, _baseline(result))
    assert path.read_bytes() == recorded
    assert compare(result, load_baseline(path)).baseline_current


def test_the_baseline_holds_no_trace_or_belief_ids() -> None:
    text = SHIPPED_BASELINE.read_text()
    document = json.loads(text)
    assert "trace" not in text and "belief_id" not in text and "[m:" not in text
    assert all(set(row) >= {"scenario", "probe", "category"} for row in document["probes"])
    labels = ("scenario", "probe", "category", "needed_by_distance")
    ints = [v for row in document["probes"] for k, v in row.items() if k not in labels]
    assert ints and all(isinstance(v, int) for v in ints)


# -- gate.memory.bench_protected_never_rendered ----------------------------------------------------


def test_bench_protected_never_rendered_protected_content_never_forms_and_never_renders(
    loaded: LoadedCorpus, result: BenchmarkResult, observed: dict[str, ScenarioObservation]
) -> None:
    assert result.aggregate["policy_failures"] == 0
    assert result.aggregate["protected_rendered"] == 0
    assert result.aggregate["abstention_leaks"] == 0
    protected = [s for s in loaded.corpus.scenarios if s.protected_statements]
    assert len(protected) >= 4
    for s in protected:
        fragments = [f.casefold() for f in s.protected_statements]
        for belief in observed[s.id].beliefs:
            assert not any(f in belief.statement.casefold() for f in fragments)
        for _, probe in observed[s.id].probes:
            lines = [line for m in probe.in_turn for line in m.lines]
            if probe.snapshot is not None:
                lines += probe.snapshot.lines
            assert not any(f in line.casefold() for f in fragments for line in lines)


TRANSFER = "mb-project-transfer-protected-001"
RELOCATION = "mb-relocation-update-001"


def _view(belief_id: str, btype: str, subjects: tuple[str, ...], text: str) -> BeliefView:
    return BeliefView(belief_id, btype, subjects, text, "active")


def _observation(
    beliefs: tuple[BeliefView, ...],
    *,
    snapshot: tuple[str, ...] = (),
    in_turn: tuple[str, ...] = (),
) -> ProbeObservation:
    by_id = {b.belief_id: b for b in beliefs}

    def moment(ids: tuple[str, ...]) -> MomentView:
        return MomentView(returned=ids, lines=tuple(f"[m:x] {by_id[i].statement}" for i in ids))

    return ProbeObservation(
        at=START,
        beliefs=beliefs,
        snapshot=moment(snapshot) if snapshot else None,
        in_turn=(moment(in_turn),),
        prefix_digests=("d",),
        completed=True,
    )


def test_bench_protected_never_rendered_a_leak_would_be_counted(loaded: LoadedCorpus) -> None:
    s = scenario(loaded, TRANSFER)
    token = _view("b1", "fact", ("deploy token",), "The deploy token is REDACTED-DEPLOY-TOKEN.")
    manager = _view("b2", "relationship", ("manager",), "User's manager is Dana.")
    leaked = score_probe(s, s.probes[3], _observation((token, manager), in_turn=("b1",)))
    assert leaked.abstention_leaks == 1 and leaked.protected_rendered == 1
    formed = ScenarioObservation(
        scenario=s.id,
        sessions=(SessionOutcome("s01", START, 1, 1, 0),),
        beliefs=(
            token,
            BeliefView("b2", "relationship", ("manager",), manager.statement, "rejected"),
        ),
        probes=(),
    )
    assert score_formation(s, formed).policy_failures == 2  # whatever the status


# -- gate.memory.bench_supersession_current --------------------------------------------------------


def test_bench_supersession_current_formed_update_never_renders_what_it_superseded(
    loaded: LoadedCorpus, result: BenchmarkResult
) -> None:
    currency = [r for r in result.probes if r.category in ("update", "correction")]
    assert len(currency) >= 6
    for row in currency:
        if row.needed_formed == row.needed_total:
            assert row.currency_violations == 0, (row.scenario, row.probe)
    assert result.aggregate["currency_violations"] == 0


def test_bench_supersession_current_an_unformed_successor_is_counted_apart(
    loaded: LoadedCorpus,
) -> None:
    s = scenario(loaded, RELOCATION)
    update = s.probes[0]
    seattle = _view("b1", "user_model_attr", ("home location",), "User lives in Seattle.")
    portland = _view("b2", "user_model_attr", ("home location",), "User lives in Portland.")
    unformed = score_probe(s, update, _observation((seattle,), in_turn=("b1",)))
    assert (unformed.currency_violations, unformed.currency_unformed) == (0, 1)
    formed = score_probe(s, update, _observation((seattle, portland), in_turn=("b2", "b1")))
    assert (formed.currency_violations, formed.currency_unformed) == (1, 0)
    assert formed.needed_recalled == 1 and formed.noise_total == 1


# -- the driver --------------------------------------------------------------------------------


def test_the_driver_moves_the_clock_before_each_session_turn_and_probe(
    loaded: LoadedCorpus, observed: dict[str, ScenarioObservation]
) -> None:
    for s in loaded.corpus.scenarios:
        timeline = s.timeline()
        seen = observed[s.id]
        assert {o.session: o.closed_at for o in seen.sessions} == timeline.session_end
        assert {pid: o.at for pid, o in seen.probes} == timeline.probe_at


def test_probes_never_form_so_they_cannot_interfere(
    observed: dict[str, ScenarioObservation],
) -> None:
    for seen in observed.values():
        for _, probe in seen.probes:
            assert probe.beliefs == seen.beliefs
            assert probe.completed and len(probe.in_turn) == len(probe.prefix_digests) == 1


# -- the scoring arithmetic -------------------------------------------------------------------


def test_recall_is_attributed_to_the_moment_that_found_it(loaded: LoadedCorpus) -> None:
    s = scenario(loaded, RELOCATION)
    multi_hop = s.probes[1]  # needs wife_morgan (s02, distance 2) and employer_acme (s01, 3)
    wife = _view("b1", "relationship", ("wife",), "User's wife is Morgan.")
    acme = _view("b2", "user_model_attr", ("employment",), "User works at Acme Labs.")
    noise = _view("b3", "preference", ("answer style",), "User prefers concise answers.")
    row = score_probe(
        s, multi_hop, _observation((wife, acme, noise), snapshot=("b1", "b3"), in_turn=("b1", "b2"))
    )
    assert row.needed_formed == 2 and row.needed_recalled == 2
    assert (
        row.needed_recalled_snapshot_only,
        row.needed_recalled_in_turn_only,
        row.needed_recalled_both,
    ) == (0, 1, 1)
    assert (row.returned_snapshot, row.returned_in_turn, row.returned_total) == (2, 2, 3)
    assert (row.noise_snapshot, row.noise_in_turn, row.noise_total) == (1, 0, 1)
    assert [(b.distance, b.needed, b.recalled) for b in row.needed_by_distance] == [
        (2, 1, 1),
        (3, 1, 1),
    ]


def test_formation_counts_supported_stale_and_fabricated(loaded: LoadedCorpus) -> None:
    s = scenario(loaded, RELOCATION)
    views = (
        _view("b1", "user_model_attr", ("home location",), "User lives in Seattle."),  # stale
        _view("b2", "user_model_attr", ("location",), "user lives in PORTLAND now!"),
        _view("b3", "preference", ("answer style",), "User prefers concise answers."),
        _view("b4", "preference", ("preference",), "User prefers concise answers."),  # subject
        _view("b5", "fact", ("weather",), "It is raining."),  # fabricated
        BeliefView("b6", "relationship", ("wife",), "User's wife is Morgan.", "superseded"),
    )
    observed = ScenarioObservation(
        scenario=s.id, sessions=(SessionOutcome("s01", START, 7, 5, 2),), beliefs=views, probes=()
    )
    row = score_formation(s, observed)
    assert (row.labels, row.expected, row.supported, row.formed) == (6, 5, 2, 5)
    assert (row.stale_live, row.fabricated, row.dropped_for_ceiling) == (1, 2, 2)


def test_a_failed_context_build_is_a_run_not_completed(loaded: LoadedCorpus) -> None:
    s = scenario(loaded, RELOCATION)
    failed = ProbeObservation(
        at=START,
        beliefs=(),
        snapshot=None,
        in_turn=(),
        prefix_digests=(),
        completed=False,
        error="boom",
    )
    row = score_probe(s, s.probes[0], failed)
    assert (row.run_completed, row.model_calls, row.returned_total) == (0, 0, 0)


# -- the command --------------------------------------------------------------------------------


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    try:
        code = main(["eval", "memory-benchmark", "--deterministic-only", *args])
    except SystemExit as exit_:
        code = int(exit_.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_the_command_compares_against_the_shipped_baseline(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(capsys)
    assert code == 0, err
    assert "baseline: no regression; current" in out
    assert (
        "forgetting (forgetting.v1.json, through the CLI): 6/6 probes pass,"
        " 0 forgotten statements rendered  (cascade 2/2  deletion 4/4)"
    ) in out
    for category in ("single_hop", "abstention", "transfer", "all"):
        assert f"\n{category} " in out
    code, out, _ = run(capsys, "--json")
    document = json.loads(out)
    assert code == 0 and document["comparison"]["baseline_current"] is True
    assert len(document["probes"]) == document["aggregate"]["probes"]
    assert set(document["per_category"]) >= {"update", "correction", "preference"}


def test_another_corpus_runs_without_a_baseline(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # Twelve scenarios that still meet every corpus rule.
    document = json.loads(SHIPPED_CORPUS.read_text())
    dropped = {
        "mb-family-household-001",
        "mb-career-change-001",
        "mb-commute-car-001",
        "mb-garden-season-001",
    }
    # The seed's sixteen (the first sixteen), less four.
    document["scenarios"] = [s for s in document["scenarios"][:16] if s["id"] not in dropped]
    corpus = tmp_path / "twelve.json"
    corpus.write_text(json.dumps(document))
    code, out, err = run(capsys, "--corpus", str(corpus), "--json")
    assert code == 0, err
    result = json.loads(out)
    assert result["aggregate"]["scenarios"] == 12 and result["comparison"] is None
    # The forgetting scenarios' counts ride along, whatever the corpus (their own set).
    assert {k: result["forgetting"][k] for k in ("probes", "passed", "leaked", "failed")} == {
        "probes": 6,
        "passed": 6,
        "leaked": 0,
        "failed": [],
    }

    # Recorded, then compared: current. A baseline that recalled more: exit 1.
    baseline = tmp_path / "baseline.json"
    assert run(capsys, "--corpus", str(corpus), "--write-baseline", str(baseline))[0] == 0
    code, out, _ = run(capsys, "--corpus", str(corpus), "--baseline", str(baseline), "--json")
    assert code == 0 and json.loads(out)["comparison"]["baseline_current"]
    recorded = json.loads(baseline.read_text())
    recorded["aggregate"]["needed_recalled"] += 1
    baseline.write_text(json.dumps(recorded))
    code, out, _ = run(capsys, "--corpus", str(corpus), "--baseline", str(baseline))
    assert code == 1 and "FAILED" in out and "aggregate.needed_recalled" in out
    # The shipped baseline against another corpus is drift.
    code, out, _ = run(capsys, "--corpus", str(corpus), "--baseline", str(SHIPPED_BASELINE))
    assert code == 1 and "drift" in out


def test_usage_errors_exit_2_and_write_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _, err = run(capsys, "--output", str(tmp_path / "evidence.json"))
    assert code == 2 and "--output is refused" in err
    assert not (tmp_path / "evidence.json").exists()

    existing = tmp_path / "existing.json"
    existing.write_text("{}")
    code, _, err = run(capsys, "--write-baseline", str(existing))
    assert code == 2 and "never overwritten" in err and existing.read_text() == "{}"

    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps({"schema_version": 1, "scenarios": []}))
    code, _, err = run(capsys, "--corpus", str(broken))
    assert code == 2 and "invalid corpus" in err

    code, _, err = run(capsys, "--baseline", str(tmp_path / "absent.json"))
    assert code == 2 and "no baseline" in err


def test_production_code_never_imports_the_benchmarks() -> None:
    probe = (
        "import sys, memory_es, memory_es.cli, memory_es.projections\n"
        "memory_es.cli.build_parser()\n"
        "leaked = sorted(m for m in sys.modules if m.split('.')[0] == 'benchmarks'"
        " or m.startswith('memory_es.benchmarks'))\n"
        "assert not leaked, leaked\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr


def test_a_memory_that_does_not_forget_fails_the_deterministic_arm(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memory_es.app import Memory

    forget = Memory.forget

    def dry_run_only(self: Memory, **kwargs: Any) -> Any:
        return forget(self, **{**kwargs, "confirm": False})

    monkeypatch.setattr(Memory, "forget", dry_run_only)
    document = json.loads(SHIPPED_CORPUS.read_text())
    document["scenarios"] = [
        s
        for s in document["scenarios"][:16]
        if s["id"]
        not in {
            "mb-family-household-001",
            "mb-career-change-001",
            "mb-commute-car-001",
            "mb-garden-season-001",
        }
    ]
    corpus = tmp_path / "twelve.json"
    corpus.write_text(json.dumps(document))
    code, out, _ = run(capsys, "--corpus", str(corpus), "--json")
    forgetting = json.loads(out)["forgetting"]
    assert code == 1 and forgetting["leaked"] == 3 and len(forgetting["failed"]) == 3
