"""The command line of time travel: rebuild, as-of-position, history, log export and
import — on SQLite and PostgreSQL (the library's cases run on every store)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memory_es.policy import formation_policy
from tests.test_cli import run


def _said(capsys: pytest.CaptureFixture[str], url: str, now: str, text: str) -> None:
    _, session, _ = run(capsys, url, "session", "open", "--principal", "ana", now=now)
    run(capsys, url, "session", "say", session.strip(), text, now=now)
    run(capsys, url, "session", "close", session.strip(), now=now)


def _status(capsys: pytest.CaptureFixture[str], url: str) -> dict[str, object]:
    code, out, _ = run(capsys, url, "projections", "status", "--json")
    assert code == 0
    value: dict[str, object] = json.loads(out)
    return value


def out_version(capsys: pytest.CaptureFixture[str], url: str) -> str:
    _, out, _ = run(capsys, url, "projections", "status")
    return out.splitlines()[0].split(", version ")[1].split(" — ")[0]


def test_status_reports_lag_versions_policies_and_no_leftover(
    capsys: pytest.CaptureFixture[str], persistent_store_url: str
) -> None:
    url = persistent_store_url
    _said(capsys, url, "2026-03-02T09:00:00Z", "I live in Oslo.")
    status = _status(capsys, url)
    assert status["lag"] == 0 and status["rebuild"] is None
    assert status["version"] == status["expected_version"] == out_version(capsys, url)
    code, out, _ = run(capsys, url, "projections", "status")
    lines = out.splitlines()
    assert lines[1].startswith(f"formation: {formation_policy()}/") and len(lines) == 2
    code, out, _ = run(capsys, url, "projections", "rebuild", "--from-scratch")
    assert code == 0 and out.startswith("rebuilt recall_index:")


def test_recall_as_of_position_reads_before_the_correction(
    capsys: pytest.CaptureFixture[str], persistent_store_url: str
) -> None:
    url = persistent_store_url
    _said(capsys, url, "2026-03-02T09:00:00Z", "I live in Oslo.")
    before = _status(capsys, url)["log_head"]
    _said(capsys, url, "2026-04-02T09:00:00Z", "I live in Bergen now.")
    _, now, _ = run(capsys, url, "recall", "--principal", "ana", "where do I live")
    code, then, err = run(
        capsys, url, "recall", "--principal", "ana", "--as-of-position", str(before), "live"
    )
    assert now.strip().endswith("User lives in Bergen.")
    assert code == 0 and err == "" and then.strip().endswith("User lives in Oslo.")
    code, out, err = run(
        capsys, url, "recall", "--principal", "ana", "--as-of-position", "9999", "live"
    )
    assert code == 2 and out == ""
    assert err.splitlines() == [
        f"memory-es: error: position 9999 is past the log head ({_status(capsys, url)['log_head']})"
    ]


def test_memory_history_prints_positions_and_source_turns(
    capsys: pytest.CaptureFixture[str], persistent_store_url: str
) -> None:
    url = persistent_store_url
    _said(capsys, url, "2026-03-02T09:00:00Z", "I live in Oslo.")
    _said(capsys, url, "2026-04-02T09:00:00Z", "I live in Bergen now.")
    _, out, _ = run(capsys, url, "memory", "list", "--principal", "ana", "--json")
    oslo = next(b for b in json.loads(out) if "Oslo" in b["statement"])
    code, out, err = run(capsys, url, "memory", "history", oslo["short_id"])
    assert code == 2 and "resolves only within a principal" in err  # the one resolver
    code, out, err = run(capsys, url, "memory", "history", oslo["short_id"], "--principal", "ana")
    lines = out.splitlines()
    assert code == 0 and err == ""
    assert lines[0] == f"{oslo['belief_id']}  User lives in Oslo.  (superseded)"
    assert lines[1].startswith("  position ") and "  BeliefFormed  v" in lines[1]
    assert lines[2].endswith("(user, 2026-03-02T09:00:00Z): I live in Oslo.")
    assert "  BeliefSuperseded  v" in lines[3]
    code, out, _ = run(capsys, url, "memory", "history", oslo["belief_id"], "--json")
    events = json.loads(out)["events"]
    assert [e["event"] for e in events] == ["BeliefFormed", "BeliefSuperseded"]
    assert [t["text"] for t in events[0]["source_turns"]] == ["I live in Oslo."]
    assert events[0]["position"] < events[1]["position"]
    code, out, err = run(capsys, url, "memory", "history", "0123abcd", "--principal", "ana")
    assert code == 2 and err.splitlines() == ["memory-es: error: unknown belief: 0123abcd"]


def test_log_export_then_import_into_an_empty_store_recalls_the_same(
    capsys: pytest.CaptureFixture[str], persistent_store_url: str, tmp_path: Path
) -> None:
    url = persistent_store_url
    _said(capsys, url, "2026-03-02T09:00:00Z", "I live in Oslo. I prefer tea.")
    path = tmp_path / "log.jsonl"
    code, out, _ = run(capsys, url, "log", "export", str(path), "--json")
    exported = json.loads(out)
    assert code == 0 and exported["events"] == _status(capsys, url)["log_head"]
    target = f"sqlite:///{tmp_path / 'target.db'}"
    keys = tmp_path / "keys.jsonl"  # the sealed text's keys move only when asked
    assert run(capsys, url, "keys", "export", str(keys))[0] == 0
    assert run(capsys, target, "keys", "import", str(keys))[0] == 0
    code, out, err = run(capsys, target, "log", "import", str(path), "--json")
    assert code == 0 and err == ""
    assert json.loads(out)["tracked_position"] == exported["events"]
    for query in ("where do I live", "tea"):
        source = run(capsys, url, "recall", "--principal", "ana", "--json", query)[1]
        copied = run(capsys, target, "recall", "--principal", "ana", "--json", query)[1]
        assert [i["line"] for i in json.loads(copied)["items"]] == [
            i["line"] for i in json.loads(source)["items"]
        ]
    code, out, err = run(capsys, target, "log", "import", str(path))
    assert code == 2 and len(err.splitlines()) == 1 and "already holds events" in err
    code, out, err = run(capsys, "memory://", "log", "import", str(path))
    assert code == 2 and "memory:// lives in one process" in err
    code, out, err = run(capsys, target, "log", "import", str(tmp_path / "missing.jsonl"))
    assert code == 2 and len(err.splitlines()) == 1 and "cannot read" in err
