"""The command-line contract, on SQLite and PostgreSQL."""

from __future__ import annotations

import subprocess
import sys
import uuid
from pathlib import Path

import pytest

import memory_es
from memory_es.cli import main

NOW = "2026-03-02T09:00:00Z"


def run(
    capsys: pytest.CaptureFixture[str], url: str, *args: str, now: str | None = NOW
) -> tuple[int, str, str]:
    argv = ["--store", url] + (["--now", now] if now else []) + list(args)
    try:
        code = main(argv)
    except SystemExit as exit_:
        code = int(exit_.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def log_head(capsys: pytest.CaptureFixture[str], url: str) -> str:
    code, out, _ = run(capsys, url, "projections", "status", "--json")
    assert code == 0
    return out


def test_session_open_prints_the_id_alone(
    capsys: pytest.CaptureFixture[str], persistent_store_url: str
) -> None:
    code, out, err = run(capsys, persistent_store_url, "session", "open", "--principal", "ana")
    assert code == 0 and err == ""
    assert out.endswith("\n") and "\n" not in out[:-1]
    uuid.UUID(out.strip())


def test_forms_and_recalls_a_belief_end_to_end(
    capsys: pytest.CaptureFixture[str], persistent_store_url: str
) -> None:
    url = persistent_store_url
    _, out, _ = run(capsys, url, "session", "open", "--principal", "ana")
    session = out.strip()
    assert run(capsys, url, "session", "say", session, "I live in Seattle.")[0] == 0
    code, out, _ = run(capsys, url, "session", "close", session)
    assert code == 0 and "committed=1" in out
    _, out, _ = run(
        capsys, url, "session", "open", "--principal", "ana", now="2026-04-20T10:00:00Z"
    )
    later = out.strip()
    run(capsys, url, "session", "say", later, "I live in Portland now.", now="2026-04-20T10:01:00Z")
    code, out, _ = run(capsys, url, "session", "close", later, "--json", now="2026-04-20T10:02:00Z")
    assert code == 0 and '"superseded":1' in out

    code, out, err = run(capsys, url, "recall", "--principal", "ana", "where do I live")
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("[m:") and lines[0].endswith("] User lives in Portland.")

    code, out, _ = run(capsys, url, "recall", "--principal", "ana", "--json", "where do I live")
    assert code == 0 and '"statement":"User lives in Portland."' in out

    code, out, _ = run(capsys, url, "memory", "list", "--principal", "ana")
    assert "User lives in Seattle.  (superseded)" in out
    code, out, _ = run(capsys, url, "memory", "list", "--principal", "ana", "--json")
    assert '"valid_from":"2026-04-20T10:01:00Z"' in out


def test_projections_status_and_rebuild(
    capsys: pytest.CaptureFixture[str], persistent_store_url: str
) -> None:
    url = persistent_store_url
    _, out, _ = run(capsys, url, "session", "open", "--principal", "ana")
    run(capsys, url, "session", "say", out.strip(), "I live in Oslo.")
    run(capsys, url, "session", "close", out.strip())
    code, out, _ = run(capsys, url, "projections", "status")
    assert code == 0 and "current" in out and "(lag 0)" in out
    code, out, _ = run(capsys, url, "projections", "rebuild")
    assert code == 0 and out.startswith("rebuilt recall_index:")
    code, out, _ = run(capsys, url, "recall", "--principal", "ana", "Oslo")
    assert out.strip().endswith("User lives in Oslo.")


@pytest.mark.parametrize(
    "args, message",
    [
        (("session", "say", "no-such-session", "hi"), "unknown session: no-such-session"),
        (("session", "close", "6b1c0f7e-0000-4000-8000-000000000001"), "unknown session"),
        (("session", "open"), "the following arguments are required: --principal"),
        (("recall", "--principal", "ana", "--limit", "0", "x"), "limit must be at least 1"),
        (("session", "open", "--principal", "   "), "non-empty name"),
    ],
)
def test_bad_input_exits_2_with_one_line_and_changes_nothing(
    capsys: pytest.CaptureFixture[str],
    persistent_store_url: str,
    args: tuple[str, ...],
    message: str,
) -> None:
    url = persistent_store_url
    memory_es.open(url).close()  # a store that exists: reads refuse a missing one
    before = log_head(capsys, url)
    code, out, err = run(capsys, url, *args)
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1 and message in err
    assert log_head(capsys, url) == before


def test_closed_sessions_refuse_more_turns_and_a_second_close(
    capsys: pytest.CaptureFixture[str], persistent_store_url: str
) -> None:
    url = persistent_store_url
    _, out, _ = run(capsys, url, "session", "open", "--principal", "ana")
    session = out.strip()
    run(capsys, url, "session", "say", session, "I live in Oslo.")
    run(capsys, url, "session", "close", session)
    before = log_head(capsys, url)
    for args in (("session", "say", session, "more"), ("session", "close", session)):
        code, _, err = run(capsys, url, *args)
        assert code == 2 and err.strip() == f"memory-es: error: session is closed: {session}"
    code, _, err = run(capsys, url, "session", "say", session, "  ")
    assert code == 2 and "non-empty text" in err
    assert log_head(capsys, url) == before


def test_memory_store_is_refused_by_stateful_commands(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "memory://", "session", "open", "--principal", "ana")
    assert code == 2 and "memory:// lives in one process" in err


@pytest.mark.parametrize(
    "url, message",
    [
        ("mysql://localhost/x", "unsupported store URL"),
        ("postgresql://postgres@127.0.0.1:1/postgres", "cannot open store"),
        ("sqlite:///:memory:", "use memory://"),
    ],
)
def test_unsupported_or_unreachable_stores_fail_with_one_line(
    capsys: pytest.CaptureFixture[str], url: str, message: str
) -> None:
    code, out, err = run(capsys, url, "recall", "--principal", "ana", "x")
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and message in err


def test_a_bad_now_is_a_usage_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(
        capsys, f"sqlite:///{tmp_path}/m.db", "recall", "--principal", "a", "x", now="yesterday"
    )
    assert code == 2 and "--now needs an ISO-8601 instant" in err


def test_the_console_script_runs() -> None:
    script = Path(sys.executable).with_name("memory-es")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "memory_es"]
    done = subprocess.run(
        [*command, "--help"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0 and "session" in done.stdout


def test_the_demo_walks_formation_supersession_recall_and_a_correction(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, err = run(capsys, f"sqlite:///{tmp_path}/demo.db", "demo", now=None)
    assert code == 0, err
    assert "stored as: For the deploy script the token is api_key=[redacted:credential]" in out
    assert "sk-demo-123" not in out.split("stored as:")[1]
    assert "(superseded)" in out and "User lives in Portland." in out
    assert "--- corrections (memory) ---" in out
    assert "no longer holds as of 2026-04-11T09:00:00Z; superseded by [m:" in out
