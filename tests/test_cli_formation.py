"""Formation's commands: memory reject|remember|replay, maintenance run, eval formation."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import orjson
import pytest

import memory_es
from memory_es.errors import UsageError
from memory_es.ports import FixedClock
from tests.test_cli import run


class CollidingIds:
    """Ids whose eight-hex short forms all collide: what makes a short id ambiguous."""

    def __init__(self) -> None:
        self._n = 0

    def new_id(self) -> str:
        self._n += 1
        return str(uuid.UUID(f"aaaaaaaa00004000800000000000{self._n:04x}"))


def test_an_ambiguous_short_id_is_a_usage_error() -> None:
    clock = FixedClock(datetime(2026, 3, 2, 9, 0, tzinfo=UTC))
    with memory_es.open("memory://", clock=clock, ids=CollidingIds()) as memory:
        session = memory.open_session("ana")
        memory.say(session, "I live in Oslo. I have a Vespa.")
        memory.close_session(session)
        with pytest.raises(UsageError, match="ambiguous") as raised:
            memory.reject("aaaaaaaa", principal="ana")
        assert raised.value.exit_code == 2
        target = memory.list_beliefs("ana")[0]
        assert memory.reject(target.belief_id).status == "rejected"  # the full id works


def _formed_session(capsys: pytest.CaptureFixture[str], url: str) -> str:
    _, out, _ = run(capsys, url, "session", "open", "--principal", "ana")
    session = out.strip()
    run(capsys, url, "session", "say", session, "I live in Oslo. I have a Vespa.")
    code, _, _ = run(capsys, url, "session", "close", session)
    assert code == 0
    return session


def test_replay_refuses_without_confirm_and_prints_the_record_with_it(
    capsys: pytest.CaptureFixture[str], persistent_store_url: str
) -> None:
    url = persistent_store_url
    session = _formed_session(capsys, url)
    _, before, _ = run(capsys, url, "projections", "status", "--json")
    code, out, err = run(capsys, url, "memory", "replay", "--session", session)
    assert code == 2 and out == "" and "--confirm" in err and "opt-in" in err
    assert run(capsys, url, "projections", "status", "--json")[1] == before
    code, out, _ = run(capsys, url, "memory", "replay", "--session", session, "--confirm", "--json")
    record = orjson.loads(out)
    assert code == 0 and record["trigger"] == "replay"
    assert record["counts"]["same_source"] == 2 and record["policy"].startswith("formation@")


def test_reject_by_short_id_then_restating_never_brings_it_back(
    capsys: pytest.CaptureFixture[str], persistent_store_url: str
) -> None:
    url = persistent_store_url
    _formed_session(capsys, url)
    _, out, _ = run(capsys, url, "recall", "--principal", "ana", "Vespa")
    short = out.split("]")[0].removeprefix("[m:")
    code, out, _ = run(capsys, url, "memory", "reject", short, "--principal", "ana")
    assert code == 0 and out.strip().endswith("User has a Vespa.  (rejected)")
    _formed_session(capsys, url)
    assert run(capsys, url, "recall", "--principal", "ana", "Vespa")[1] == ""
    code, _, err = run(capsys, url, "memory", "reject", "0badc0de", "--principal", "ana")
    assert code == 2 and "unknown belief" in err


def test_remember_forms_and_maintenance_closes_idle_sessions(
    capsys: pytest.CaptureFixture[str], persistent_store_url: str
) -> None:
    url = persistent_store_url
    code, out, _ = run(
        capsys,
        url,
        "memory",
        "remember",
        "--principal",
        "ana",
        "The staging database is called Orion.",
    )
    assert code == 0 and out.strip().endswith("The staging database is called Orion.")
    _, out, _ = run(capsys, url, "session", "open", "--principal", "ana", "--project", "orbit")
    session = out.strip()
    run(capsys, url, "session", "say", session, "We decided to ship on Tuesdays.")
    later = "2026-03-02T11:00:00Z"
    code, out, _ = run(capsys, url, "maintenance", "run", "--dry-run", now=later)
    assert code == 0 and "would close 1" in out and session in out
    code, out, _ = run(capsys, url, "maintenance", "run", "--json", now=later)
    report = orjson.loads(out)
    (closed,) = report["idle_sessions"]["closed"]
    assert closed["session_id"] == session and closed["project"] == "orbit"
    assert closed["counts"]["committed"] == 1
    code, out, _ = run(capsys, url, "maintenance", "run", now=later)
    assert "closed 0" in out


def test_eval_formation_reports_precision_and_recall(
    capsys: pytest.CaptureFixture[str], persistent_store_url: str
) -> None:
    code, out, _ = run(capsys, persistent_store_url, "eval", "formation", "--json")
    report = orjson.loads(out)
    assert code == 0 and report["cases"] >= 60
    assert 0 < report["total"]["precision"] <= 1 and 0 < report["total"]["recall"] <= 1
    assert report["total"]["expected"] > 0
