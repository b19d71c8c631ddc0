"""``recall`` on the command line: --limit, --as-of, --include-superseded, --json."""

from __future__ import annotations

import orjson
import pytest

from tests.test_cli import run


def _history(capsys: pytest.CaptureFixture[str], url: str) -> None:
    _, out, _ = run(capsys, url, "session", "open", "--principal", "ana")
    session = out.strip()
    run(capsys, url, "session", "say", session, "I live in Seattle. My wife is Morgan.")
    run(capsys, url, "session", "close", session)
    later = "2026-04-20T10:00:00Z"
    _, out, _ = run(capsys, url, "session", "open", "--principal", "ana", now=later)
    session = out.strip()
    run(capsys, url, "session", "say", session, "I live in Portland now.", now=later)
    run(capsys, url, "session", "close", session, now=later)


def test_recall_json_carries_scores_components_validity_and_a_trace(
    capsys: pytest.CaptureFixture[str], persistent_store_url: str
) -> None:
    url = persistent_store_url
    _history(capsys, url)
    code, out, err = run(capsys, url, "recall", "--principal", "ana", "--json", "where do I live")
    assert code == 0 and err == ""
    answer = orjson.loads(out)
    assert answer["policy"] == "retrieval@6" and answer["trace_id"]
    assert answer["terms"] == ["live"] and answer["boost_terms"] == ["user"]
    (item,) = answer["items"]
    assert item["statement"] == "User lives in Portland." and item["validity"] == "current"
    assert set(item["components"]) >= {
        "match",
        "confidence",
        "reinforce",
        "authority",
        "scope",
        "utility",
        "stale_penalty",
        "near_duplicate_penalty",
    }
    assert item["score"] > 0 and item["lexical"] > 0


def test_recall_as_of_reads_history_and_plain_output_is_belief_lines(
    capsys: pytest.CaptureFixture[str], persistent_store_url: str
) -> None:
    url = persistent_store_url
    _history(capsys, url)
    code, out, _ = run(
        capsys, url, "recall", "--principal", "ana", "--as-of", "2026-03-10T00:00:00Z", "live"
    )
    assert code == 0
    assert [line.split("] ", 1)[1] for line in out.splitlines()] == ["User lives in Seattle."]
    code, out, _ = run(capsys, url, "recall", "--principal", "ana", "--include-superseded", "live")
    # A closed belief mixed in says what it is; the live one stays a bare line.
    assert [line.split("] ", 1)[1] for line in out.splitlines()] == [
        "User lives in Portland.",
        "User lives in Seattle.  (superseded)",
    ]
    code, out, _ = run(capsys, url, "recall", "--principal", "ana", "--limit", "1", "user")
    assert code == 0 and len(out.splitlines()) == 1 and out.startswith("[m:")
    code, _, err = run(capsys, url, "recall", "--principal", "ana", "--as-of", "yesterday", "x")
    assert code == 2 and "argument --as-of:" in err and "as_of" not in err


def test_maintenance_run_expires_operator_trace_fields(
    capsys: pytest.CaptureFixture[str], persistent_store_url: str
) -> None:
    url = persistent_store_url
    _history(capsys, url)
    _, out, _ = run(capsys, url, "recall", "--principal", "ana", "--json", "live")
    trace_id = orjson.loads(out)["trace_id"]
    later = "2026-06-01T00:00:00Z"  # past the 30-day operator retention of that trace
    code, out, _ = run(capsys, url, "maintenance", "run", "--dry-run", now=later)
    assert code == 0 and "recall traces past their operator retention: would expire 1" in out
    code, out, _ = run(capsys, url, "maintenance", "run", "--json", now=later)
    assert code == 0 and orjson.loads(out)["traces"] == {"operator_fields_expired": 1}
    code, out, _ = run(capsys, url, "maintenance", "run", now=later)
    assert "expired 0" in out
    import memory_es

    with memory_es.open(url) as memory:
        trace = memory.trace(trace_id)
    assert trace is not None and trace.operator_expired and trace.total_ms is None
    assert trace.returned  # the user-safe tier survives
