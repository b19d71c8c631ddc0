"""Reliability on the command line: quarantined events reported, short ids within a
principal, control characters refused — each failure one line and exit 2."""

from __future__ import annotations

import uuid

import orjson
import pytest

import memory_es
from memory_es.domain.principal import PrincipalMemory
from memory_es.domain.values import principal_aggregate_id
from tests.test_cli import run


def _formed(capsys: pytest.CaptureFixture[str], url: str, principal: str, text: str) -> None:
    _, out, _ = run(capsys, url, "session", "open", "--principal", principal)
    session = out.strip()
    run(capsys, url, "session", "say", session, text)
    assert run(capsys, url, "session", "close", session)[0] == 0


def test_projections_status_and_stats_report_quarantined_events(
    capsys: pytest.CaptureFixture[str], persistent_store_url: str
) -> None:
    url = persistent_store_url
    _formed(capsys, url, "ana", "I live in Oslo.")
    with memory_es.open(url) as memory:  # a pin of a belief never formed, forced in
        aggregate = memory.app.repository.get(principal_aggregate_id(principal="ana"))
        assert isinstance(aggregate, PrincipalMemory)
        aggregate.pin_belief(belief_id=str(uuid.UUID(int=9)), at="2026-03-02T10:00:00Z")
        memory.app.save(aggregate)
    code, out, err = run(capsys, url, "projections", "status")
    assert code == 0 and err == ""
    assert "current" in out and "1 event quarantined" in out
    code, out, _ = run(capsys, url, "projections", "status", "--json")
    status = orjson.loads(out)
    assert status["lag"] == 0 and status["quarantined_events"] == 1
    (entry,) = status["quarantined"]
    assert entry["topic"].endswith("BeliefPinned") and "never saw formed" in entry["error"]
    code, out, _ = run(capsys, url, "stats", "--json")
    assert code == 0 and orjson.loads(out)["quarantined_events"] == 1
    code, out, _ = run(capsys, url, "recall", "--principal", "ana", "where do I live")
    assert code == 0 and out.strip().endswith("User lives in Oslo.")


def test_a_short_id_needs_its_principal_on_the_command_line(
    capsys: pytest.CaptureFixture[str], persistent_store_url: str
) -> None:
    url = persistent_store_url
    _formed(capsys, url, "ana", "I live in Oslo.")
    _formed(capsys, url, "bea", "I live in Rome.")
    _, out, _ = run(capsys, url, "recall", "--principal", "ana", "live")
    short = out.split("]")[0].removeprefix("[m:")
    for action in ("reject", "pin", "confirm"):
        code, out, err = run(capsys, url, "memory", action, short)
        assert (code, out) == (2, "") and len(err.splitlines()) == 1 and "--principal" in err
        code, out, err = run(capsys, url, "memory", action, short, "--principal", "bea")
        assert (code, out) == (2, "") and "unknown belief" in err
    code, out, _ = run(capsys, url, "memory", "reject", short, "--principal", "ana")
    assert code == 0 and out.strip().endswith("User lives in Oslo.  (rejected)")


def test_a_turn_keeps_its_text_and_a_statement_refuses_control_characters(
    capsys: pytest.CaptureFixture[str], persistent_store_url: str
) -> None:
    url = persistent_store_url
    _, out, _ = run(capsys, url, "session", "open", "--principal", "ana")
    session = out.strip()
    code, out, err = run(capsys, url, "session", "say", session, "ring \x07 the bell")
    assert (code, out, err) == (0, "turn 1 recorded cleaned=1\n", "")
    code, _, err = run(capsys, url, "memory", "remember", "--principal", "ana", "esc \x1b[31m")
    assert code == 2 and "U+001B" in err
