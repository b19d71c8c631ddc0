"""`memory-es bench`: the suite's machinery end to end at a tiny scale (no timings asserted)."""

from __future__ import annotations

import orjson
import pytest

from memory_es.benchmarks.perf.suite import loglog_exponent, render_table
from memory_es.cli import main


def test_bench_quick_json_reports_every_figure_the_issue_asks_for(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The hidden --scale picks the tiny workload; SQLite only, to keep the suite fast.
    code = main(["bench", "--quick", "--json", "--no-postgres", "--scale", "tiny"])
    out, _ = capsys.readouterr()
    assert code == 0
    report = orjson.loads(out)  # one JSON object on stdout, nothing else
    assert report["scale"] == "tiny"
    assert report["environment"]["python_loop_ms"] > 0  # the machine's yardstick
    sqlite = report["stores"]["sqlite"]
    for scale in ("100", "300"):
        assert set(sqlite["recall"][scale]) >= {"recall_p50_ms", "recall_p95_ms", "recall_p99_ms"}
        assert sqlite["recall"][scale]["queries"] > 0
        # The first command of a fresh instance, open to return, and the snapshot's size.
        for key in ("first_command_ms", "first_recall_ms", "snapshot_kb_per_1k_beliefs"):
            assert sqlite["recall"][scale][key] > 0, key
    for key in (
        "append_events_per_s",
        "append_ratio",
        "formation_turns_per_s",
        "formation_beliefs_per_s",
        "rebuild_events_per_s",
        "rebuild_ratio",
        "formation_600_turn_close_s",
        # Beside eventsourcing's own aggregate path and its bare insert.
        "append_record_save_events_per_s",
        "append_library_events_per_s",
        "append_library_insert_events_per_s",
        "append_of_library",
        "append_of_library_insert",
    ):
        assert sqlite[key] > 0, key
    assert sqlite["belief_heavy"]["rebuild_ratio"] > 0
    for log in (sqlite, sqlite["belief_heavy"]):  # what bounds the ratio, beside it
        assert log["physical_floor_ratio"] > 0 and 0 < log["ceiling_ratio"] < 1
        # The projector alone, no writes: its figures, from a replay of the whole log that
        # built the very read model the real rebuild wrote (not one that did nothing).
        for key in (
            "projector_only_events_per_s",
            "projector_only_ratio",
            "projector_only_read_s",
            "projector_only_project_s",
            "projector_only_read_ratio",
        ):
            assert log[key] > 0, key
        assert log["projector_only_events"] == log["rebuild_events"]
        assert log["projector_only_beliefs"] == log["rebuild_beliefs"] > 0
        assert log["projector_only_postings"] == log["rebuild_postings"] > 0
        assert log["projector_only_same_read_model"] is True
        # 1 and 2 workers, both reported, the better against the ceiling; the
        # two rebuilds built the same read model.
        for key in (
            "rebuild_of_ceiling_1_worker",
            "rebuild_of_ceiling_2_workers",
            "rebuild_2_workers_events_per_s",
            "rebuild_cpu_s",
            "rebuild_2_workers_cpu_s",
        ):
            assert log[key] > 0, key
        assert log["rebuild_of_ceiling"] == max(
            log["rebuild_of_ceiling_1_worker"], log["rebuild_of_ceiling_2_workers"]
        )
        assert log["rebuild_2_workers_same_read_model"] is True
    assert sqlite["physical"]["insert_batched_rows_per_s"] > 0
    assert set(sqlite["commands"]) == {"30", "90"}
    assert (
        sqlite["commands"]["90"]["principal_events"] > sqlite["commands"]["30"]["principal_events"]
    )
    assert {k.split(".")[1] for k in report["peak_rss_mb"] if k.startswith("sqlite.")} == {
        "physical",
        "append",
        "formation",
        "recall",
        "rebuild",
        "rebuild_belief_heavy",
        "commands",
    }
    # How the size-dependent figures grow across the run's sizes ('s scale figures).
    growth = sqlite["scaling"]
    # (snapshot_bytes: the aggregate holds no belief, so its snapshot is a few hundred
    # bytes at every size and snapshot_mb rounds to 0.)
    for metric in ("recall_p95_ms", "snapshot_bytes", "rebuild_s", "first_command_ms"):
        assert isinstance(growth[metric]["exponent"], float), metric
        assert len(growth[metric]["points"]) == 2, metric
    rebuilt = [x for x, _ in growth["rebuild_s"]["points"]]
    assert rebuilt[0] < rebuilt[1]  # the whole log at each size: the second holds the first
    assert set(growth) >= {"say_p50_ms", "close_p50_ms"}
    assert report["stores"]["postgres"] == {"skipped": "--no-postgres"}
    assert report["cli"]["cli_help_ms"] > 0
    assert report["cli"]["recall_cpu_ratio"] > 0 and report["cli"]["say_cpu_ratio"] > 0
    table = render_table(report)
    assert "rebuild_ratio" in table and "recall p95 ms" in table and "ceiling" in table
    assert "append_of_library" in table
    assert table.count("projector_only_ratio") == 2  # both logs
    assert "log-log exponent" in table


def test_the_growth_exponent_is_the_slope_of_the_log_log_fit() -> None:
    assert loglog_exponent([(1_000, 2.0), (10_000, 2.0), (100_000, 2.0)]) == 0.0  # flat
    linear = loglog_exponent([(1_000, 1.0), (10_000, 10.0), (100_000, 100.0)])
    assert linear is not None and abs(linear - 1.0) < 1e-9
    square_root = loglog_exponent([(100, 1.0), (10_000, 10.0)])
    assert square_root is not None and abs(square_root - 0.5) < 1e-9
    assert loglog_exponent([(1_000, 3.0)]) is None  # one size says nothing of growth
    assert loglog_exponent([(1_000, 0.0), (10_000, 3.0)]) is None  # a zero has no log


def test_an_unknown_bench_scale_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["bench", "--scale", "galactic"])
    assert exit_.value.code == 2
    assert "unknown bench scale 'galactic'" in capsys.readouterr().err


def test_bench_runs_one_phase_at_the_belief_counts_asked(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["bench", "--json", "--no-postgres", "--scale", "tiny", "--phase", "recall"]
    code = main([*argv, "--recall-scales", "50,120"])
    out, _ = capsys.readouterr()
    assert code == 0
    report = orjson.loads(out)
    sqlite = report["stores"]["sqlite"]
    assert set(sqlite["recall"]) == {"50", "120"}
    for figures in sqlite["recall"].values():
        assert figures["close_session_ms"] > 0 and figures["cold_close_session_ms"] > 0
        # The exact size beside the rounded one (the aggregate holds no belief, so its
        # snapshot is a few hundred bytes and snapshot_mb rounds to 0): the growth fit.
        assert isinstance(figures["snapshot_bytes"], int) and figures["snapshot_bytes"] > 0
    assert isinstance(sqlite["scaling"]["snapshot_bytes"]["exponent"], float)
    assert set(report["peak_rss_mb"]) == {"sqlite.recall"} and "cli" not in report
    assert "120 beliefs: close_session ms" in render_table(report)


def test_a_rebuild_phase_asked_alone_also_builds_the_store_it_replays(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["bench", "--json", "--no-postgres", "--scale", "tiny", "--phase", "rebuild"]
    assert main(argv) == 0
    report = orjson.loads(capsys.readouterr().out)
    assert set(report["peak_rss_mb"]) == {"sqlite.formation", "sqlite.rebuild"}
    sqlite = report["stores"]["sqlite"]
    assert sqlite["rebuild_events"] > 0 and sqlite["rebuild_ratio"] > 0


def test_an_unknown_bench_phase_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["bench", "--scale", "tiny", "--phase", "warp"])
    assert exit_.value.code == 2
    assert "unknown bench phase 'warp'" in capsys.readouterr().err


def test_bench_sealing_measures_each_figure_plain_against_sealed_in_one_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from memory_es.benchmarks.perf import sealing

    monkeypatch.setattr(sealing, "ROUNDS", 1)
    monkeypatch.setattr(sealing, "SAY_SESSIONS", 2)
    monkeypatch.setattr(sealing, "REBUILD_PAIRS", 3)
    monkeypatch.setattr(sealing, "RECALL_PASSES", 1)
    result = sealing.measure(100)
    assert result["rebuild_pairs"] == 3  # the rebuild's cost: the median of 3 pairs' ratios
    assert result["recall_passes"] == 1  # recall: each query on both arms, alternated
    names = {"bulk_append", "say", "recall_p95", "rebuild"}
    assert set(result["cost"]) == set(result["cpu_cost"]) == names
    # Only the sealed arm has keys: a key per turn of the say sessions (~124 bytes each).
    assert result["plain"]["key_store_bytes"] == 0
    per_turn = result["sealed"]["key_store_bytes_per_1k_sessions"] / 1000 / sealing.SAY_TURNS
    assert 100 < per_turn < 200
    assert "per 1k sessions" in sealing.render(result)
