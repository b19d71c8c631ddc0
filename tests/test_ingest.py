"""`memory-es ingest`: bulk turns from JSON Lines, all or nothing, one session per key."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

import memory_es
from memory_es.ingest import IngestError
from tests.conformance import SCRIPT, script_as_jsonl
from tests.test_cli import run


def _line(**fields: object) -> str:
    row: dict[str, object] = {
        "principal": "ana",
        "session": "s1",
        "at": "2026-03-02T09:00:00Z",
        "text": "I live in Seattle.",
    }
    row.update(fields)
    return orjson.dumps({k: v for k, v in row.items() if v is not None}).decode()


def _write(tmp_path: Path, lines: list[str], name: str = "turns.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return path


BAD_LINES = [
    ("not json at all", "not valid JSON"),
    ("[1, 2]", "not a JSON object"),
    (_line(text="   "), "text: must not be empty"),
    (_line(principal=""), "principal: must not be empty"),
    (_line(role="system"), "role: Input should be 'user' or 'assistant'"),
    (_line(at="2026-03-02T09:00:00"), "at: Input should have timezone info"),
    (_line(at=1772442000), "at: Input should be a valid datetime"),
    (_line(mood="happy"), "mood: Extra inputs are not permitted"),
    (_line(text=None), "text: Field required"),
]


@pytest.mark.parametrize(("bad", "message"), BAD_LINES)
def test_a_bad_line_is_named_and_nothing_is_written(
    memory: memory_es.Memory, bad: str, message: str
) -> None:
    lines = [_line(), _line(session="s2", principal="bo"), bad, _line(session="s3")]
    with pytest.raises(IngestError) as raised:
        memory.ingest(lines)
    assert [b.line for b in raised.value.bad] == [3]
    assert str(raised.value).startswith(f"line 3: {message}")
    assert str(raised.value).endswith("nothing was ingested")
    assert memory.projection_status().log_head == 0


def test_lines_of_one_session_must_agree_and_never_go_back_in_time(
    memory: memory_es.Memory,
) -> None:
    lines = [
        _line(at="2026-03-02T09:05:00Z"),
        _line(principal="bo"),  # line 2: another principal under the same key
        _line(project="acme"),  # line 3: another project under the same key
        _line(at="2026-03-02T09:04:59Z"),  # line 4: before line 1
        "",  # blank lines are skipped but counted
        _line(at="2026-03-02T09:06:00Z", text="   "),  # line 6
    ]
    with pytest.raises(IngestError) as raised:
        memory.ingest(lines)
    bad = raised.value.bad
    assert [b.line for b in bad] == [2, 3, 4, 6]
    assert "belongs to principal 'ana' (line 1), not 'bo'" in bad[0].message
    assert "is at project 'general' (line 1), not 'acme'" in bad[1].message
    assert "(line 1): a session's clock never goes back" in bad[2].message
    assert str(raised.value).endswith("(and 3 more bad lines); nothing was ingested")
    assert memory.projection_status().log_head == 0


def test_each_session_key_becomes_one_closed_and_formed_session(
    memory: memory_es.Memory,
) -> None:
    lines = [
        _line(session="a", at="2026-03-02T09:00:00Z", text="I live in Seattle."),
        _line(session="b", principal="bo", at="2026-03-02T09:01:00Z", text="I live in Lisbon."),
        _line(session="a", at="2026-03-02T09:02:00Z", role="assistant", text="Noted, Seattle."),
        _line(session="a", at="2026-03-02T09:03:00Z", text="My wife is Morgan."),
        _line(session="c", at="2026-04-20T10:00:00Z", text="I live in Portland now."),
    ]
    report = memory.ingest(lines)
    assert (report.sessions, report.turns, report.formed) == (3, 5, 4)
    assert report.counts["superseded"] == 1
    for key in ("a", "b", "c"):
        assert memory.session(report.session_ids[key]).is_closed
    session_a = memory.session(report.session_ids["a"])
    # `at` drives the clock: opened at the first line, closed at the last.
    assert session_a.opened_at == "2026-03-02T09:00:00Z"
    assert session_a.closed_at == "2026-03-02T09:03:00Z"
    assert [t.at for t in memory.session_turns(report.session_ids["a"])] == [
        "2026-03-02T09:00:00Z",
        "2026-03-02T09:02:00Z",
        "2026-03-02T09:03:00Z",
    ]
    beliefs = {b.statement: b for b in memory.list_beliefs("ana")}
    assert beliefs["User lives in Seattle."].status == "superseded"
    assert beliefs["User lives in Portland."].valid_from == "2026-04-20T10:00:00Z"
    assert beliefs["User's wife is Morgan."].formed_at == "2026-03-02T09:03:00Z"
    assert memory.recall("bo", "where do I live").lines()[0].endswith("User lives in Lisbon.")


def test_secrets_in_ingested_turns_are_redacted_before_the_log(
    memory: memory_es.Memory,
) -> None:
    memory.ingest([_line(text="The deploy token is api_key=sk-LIVE-9f8e7d6c5b4a.")])
    stored = memory.app.recorder.select_notifications(start=None, limit=1000)
    assert stored and all(b"sk-LIVE-9f8e7d6c5b4a" not in n.state for n in stored)


def test_cli_ingest_reports_and_refuses_a_bad_file_whole(
    capsys: pytest.CaptureFixture[str], persistent_store_url: str, tmp_path: Path
) -> None:
    url = persistent_store_url
    good = _write(tmp_path, script_as_jsonl(), "good.jsonl")
    code, out, err = run(capsys, url, "ingest", str(good), now=None)
    assert code == 0 and err == ""  # no progress bar: stderr is not a terminal
    assert out.startswith(f"ingested {len(SCRIPT)} sessions, 5 turns in 1 transaction;")
    code, out, _ = run(capsys, url, "projections", "status", "--json", now=None)
    head = orjson.loads(out)["log_head"]

    bad = _write(tmp_path, [_line(), _line(session="s2"), '{"principal": "ana"'], "bad.jsonl")
    code, out, err = run(capsys, url, "ingest", str(bad), now=None)
    assert code == 2 and out == ""
    assert err.startswith("memory-es: error: line 3: not valid JSON")
    assert err.count("\n") == 1
    _, out, _ = run(capsys, url, "projections", "status", "--json", now=None)
    assert orjson.loads(out)["log_head"] == head

    code, out, _ = run(capsys, url, "recall", "--principal", "alice", "where do I live", now=None)
    assert out.strip().endswith("User lives in Portland.")

    more = _write(tmp_path, [_line(principal="cy", text="I live in Oslo.")], "more.jsonl")
    code, out, _ = run(capsys, url, "ingest", "--json", str(more), now=None)
    report = orjson.loads(out)
    assert code == 0 and (report["sessions"], report["counts"]["committed"]) == (1, 1)


def test_cli_ingest_of_a_missing_file_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    url = f"sqlite:///{tmp_path / 'm.db'}"
    code, _, err = run(capsys, url, "ingest", str(tmp_path / "nope.jsonl"), now=None)
    assert code == 2 and "cannot read" in err
    assert not (tmp_path / "m.db").exists()


def test_a_batch_that_loses_a_concurrency_race_is_run_again_whole(
    memory: memory_es.Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    from eventsourcing.persistence import RecordConflictError

    from memory_es import ingest as ingest_module

    real_save = ingest_module.save_collected
    calls: list[int] = []

    def racing_save(*args: object) -> None:
        calls.append(1)
        if len(calls) == 1:
            raise RecordConflictError("another writer saved this principal first")
        real_save(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(ingest_module, "save_collected", racing_save)
    report = memory.ingest(script_as_jsonl())
    assert len(calls) == 2 and report.transactions == 1
    assert (report.sessions, report.turns) == (len(SCRIPT), 5)
    assert report.formed == 7  # counted once, not once per attempt
    statements = sorted((b.statement, b.status) for b in memory.list_beliefs("alice"))
    assert ("User lives in Portland.", "active") in statements
    assert len(statements) == 5
