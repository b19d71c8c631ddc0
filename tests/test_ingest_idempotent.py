"""Ingest is idempotent: a re-run adds nothing, a cut-off run is resumed, and a
line that repeats a key is refused. Run against every store kind."""

from __future__ import annotations

import errno
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

import memory_es
from memory_es import ingest as ingest_module
from memory_es.benchmarks.perf.synthetic import ingest_lines
from memory_es.benchmarks.reliability.edge_probes import ingest_end_state
from memory_es.errors import StoreUnavailable
from memory_es.ingest import IngestError, IngestInterrupted
from tests.test_cli import run

# Eight sessions of five turns over three principals; at a few events per batch every
# batch boundary falls inside a session.
LINES = ingest_lines(sessions=8, turns_per_session=5, principals=3, seed=5)
SMALL_BATCH = 4


@pytest.fixture(scope="module")
def uninterrupted() -> dict[str, Any]:
    with memory_es.open("memory://") as memory:
        report = memory.ingest(LINES, batch_events=SMALL_BATCH)
        assert (report.sessions, report.turns) == (8, 40)
        return ingest_end_state(memory, LINES)


def failing_save(fail_on_call: int, error: Exception) -> Callable[..., None]:
    """The batch save, failing (before it writes) on one call: a crash or a full disk."""
    real = ingest_module.save_collected
    calls = [0]

    def save(*args: Any) -> None:
        calls[0] += 1
        if calls[0] == fail_on_call:
            raise error
        real(*args)

    return save


def test_re_ingesting_a_file_adds_no_event(
    any_store_url: str, uninterrupted: dict[str, Any]
) -> None:
    with memory_es.open(any_store_url) as memory:
        memory.ingest(LINES)
        head = memory.projection_status().log_head
        again = memory.ingest(LINES)
        assert memory.projection_status().log_head == head
        assert (again.sessions, again.turns, again.transactions) == (0, 0, 0)
        assert (again.skipped_sessions, again.skipped_turns) == (8, 40)
        assert ingest_end_state(memory, LINES) == uninterrupted
    if any_store_url != "memory://":  # another process, later: the store is the record
        with memory_es.open(any_store_url) as memory:
            memory.ingest(LINES)
            assert memory.projection_status().log_head == head


def test_an_ingest_cut_off_mid_way_and_run_again_ends_as_an_uninterrupted_one(
    any_store_url: str, uninterrupted: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    crash = OSError(errno.EIO, "Input/output error")
    first = memory_es.open(any_store_url)
    monkeypatch.setattr(ingest_module, "save_collected", failing_save(4, crash))
    with pytest.raises(IngestInterrupted) as raised:
        first.ingest(LINES, batch_events=SMALL_BATCH)
    written = raised.value.turns_done
    assert 0 < written < len(LINES)
    monkeypatch.undo()
    cut = first.projection_status().log_head
    assert 0 < cut < uninterrupted["events"]
    # The run again: another process for a store that outlives one (memory:// does not).
    if any_store_url != "memory://":
        first.close()
    with first if any_store_url == "memory://" else memory_es.open(any_store_url) as memory:
        report = memory.ingest(LINES, batch_events=SMALL_BATCH)
        assert report.skipped_turns == written and report.turns == len(LINES) - written
        assert report.resumed_sessions == 1  # the cut fell inside a session
        assert ingest_end_state(memory, LINES) == uninterrupted


@pytest.mark.parametrize(
    "line",
    [
        '{"principal": "ana", "session": "s1", "at": "2026-03-02T09:00:00Z",'
        ' "text": "I live in Oslo.", "principal": "bo"}',
        # The same key spelt with an escape is the same key.
        '{"principal": "ana", "session": "s1", "at": "2026-03-02T09:00:00Z",'
        ' "text": "I live in Oslo.", "princ\\u0069pal": "bo"}',
        # A first value the model would refuse, hidden by the last.
        '{"principal": 7, "session": "s1", "at": "2026-03-02T09:00:00Z",'
        ' "text": "I live in Oslo.", "project": null, "principal": "bo"}',
    ],
)
def test_a_line_that_repeats_a_key_is_refused_with_its_line_number(
    memory: memory_es.Memory, line: str
) -> None:
    good = '{"principal": "cy", "session": "s0", "at": "2026-03-02T08:00:00Z", "text": "Hi."}'
    with pytest.raises(IngestError) as raised:
        memory.ingest([good, line])
    assert str(raised.value) == (
        "line 2: key 'principal' appears more than once; nothing was ingested"
    )
    assert memory.projection_status().log_head == 0


@pytest.mark.parametrize(
    "at", ["1969-12-31T23:59:59Z", "2201-01-01T00:00:00Z", "9999-12-31T00:00:00Z"]
)
def test_an_ingest_line_outside_1970_to_2200_is_refused(memory: memory_es.Memory, at: str) -> None:
    line = orjson.dumps({"principal": "ana", "session": "s", "at": at, "text": "Hi."})
    with pytest.raises(IngestError) as raised:
        memory.ingest([line])
    assert str(raised.value).startswith("line 1: at: ")
    assert "is outside 1970 through 2200 (UTC)" in str(raised.value)


def test_cli_a_full_disk_during_ingest_is_one_line_and_running_again_completes(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    uninterrupted: dict[str, Any],
) -> None:
    url = f"sqlite:///{tmp_path / 'm.db'}"
    path = tmp_path / "turns.jsonl"
    path.write_bytes(b"\n".join(LINES) + b"\n")
    full = OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(ingest_module, "save_collected", failing_save(4, full))
    code, out, err = run(capsys, url, "ingest", "--batch-events", str(SMALL_BATCH), str(path))
    assert code == StoreUnavailable.exit_code == 2 and out == ""
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("memory-es: error: the store failed: [Errno 28] No space left on")
    assert "run the same ingest again to resume" in err
    monkeypatch.undo()
    code, out, err = run(capsys, url, "ingest", "--batch-events", str(SMALL_BATCH), str(path))
    assert code == 0 and err == ""
    assert "already ingested: " in out and "1 resumed" in out
    with memory_es.open(url) as memory:
        assert ingest_end_state(memory, LINES) == uninterrupted


def test_a_field_name_said_as_a_value_or_an_escape_in_the_text_is_no_repeat(
    memory: memory_es.Memory,
) -> None:
    lines = [
        '{"principal": "ana", "session": "text", "at": "2026-03-02T09:00:00Z",'
        ' "text": "I live in Oslo. The \\"principal\\" said \\u00e9t\\u00e9."}'
    ]
    assert memory.ingest(lines).turns == 1
