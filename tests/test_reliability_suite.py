"""The reliability suite runs (quick: memory and SQLite, small counts) and its edge probes
hold: re-ingest and kill -9 add nothing, bad inputs and --now edges are refused cleanly
(docs/reliability.md)."""

from __future__ import annotations

import inspect

import orjson
import pytest

from memory_es.benchmarks.reliability import QUICK_ENV
from memory_es.benchmarks.reliability.__main__ import main, probe_modules, table
from memory_es.benchmarks.reliability.probe import ProbeResult


def test_the_suite_discovers_every_probe_module_with_a_run_function() -> None:
    modules = dict(probe_modules())
    assert "edge_probes" in modules
    for run in modules.values():
        assert list(inspect.signature(run).parameters) == ["workdir", "postgres_url"]


def test_the_edge_probes_run_quick_and_hold(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(QUICK_ENV, "")  # --quick sets it: restored after the test
    assert main(["--quick", "--json", "--only", "edge_probes"]) == 0
    document = orjson.loads(capsys.readouterr().out)
    rows = [ProbeResult(**row) for row in document["results"]]
    assert document["quick"] and not document["postgres"]
    probes = {r.probe.removesuffix(" (sqlite)") for r in rows}
    assert {
        "kill -9 mid-ingest, run again",
        "re-ingest of an ingested file",
        "lines repeating a key refused",
        "disk full mid-ingest (ENOSPC), run again",
        "bad inputs: one line, exit 2, no traceback, no store made",
        "--now from 1970 through 2200; back in time in a session refused",
        "secrets in natural sentences, ingested: raw in the log",
        "injection styles, ingested: formed a belief",
    } <= probes
    for row in rows:
        assert row.tried > 0 and 0 <= row.failed <= row.tried
        if row.area != "hazards":  # the hazard figures are the hazard tests' to hold
            assert row.failed == 0, row
    assert "| area" in table(rows).splitlines()[0]
