"""A turn is kept whatever it holds: what no store can hold becomes U+FFFD,
other control characters are dropped and counted on the turn's event, a megabyte is
accepted — and no such turn ever bricks a store (close, rebuild, export, import)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import memory_es
from memory_es.domain.inputs import clean_turn
from memory_es.domain.session import Session
from memory_es.errors import InvalidInput
from memory_es.formation.hazards import MAX_TURN_CHARS
from memory_es.mcp.tools import MemoryTools
from memory_es.services.handlers import FORMATION_PREFIX_CHARS

# What pasted terminal output and broken encodings put into a turn.
TERMINAL_LOG = "I live in Oslo.\n\x1b[31mERROR\x1b[0m build failed\x0c\r\n"
UNSTORABLE = "I work at Acme.\x00 a lone \ud800 surrogate"


def test_what_no_store_holds_becomes_the_replacement_character() -> None:
    assert clean_turn(UNSTORABLE) == ("I work at Acme.\ufffd a lone \ufffd surrogate", 2)


def test_other_control_characters_are_dropped_and_tab_and_newline_kept() -> None:
    assert clean_turn(TERMINAL_LOG) == ("I live in Oslo.\n[31mERROR[0m build failed\n", 4)
    assert clean_turn("a\tb\nc\x7f\x85") == ("a\tb\nc", 2)
    assert clean_turn("Zu\u0308rich") == ("Z\u00fcrich", 0)  # NFC, nothing counted


def test_the_count_is_on_the_turn_event_and_an_older_event_reads_zero() -> None:
    with memory_es.open("memory://") as memory:
        session = memory.open_session("ana")
        assert memory.say(session, TERMINAL_LOG).cleaned_characters == 4
        turn = next(
            e
            for e in memory.session_events(memory.session(session).id)
            if isinstance(e, Session.TurnRecorded)
        )
        assert turn.cleaned_characters == 4 and "\x1b" not in turn.text
        older = object.__new__(Session.TurnRecorded)  # an event stored before the field
        assert older.cleaned_characters == 0


def test_a_turn_of_a_megabyte_is_kept_whole_and_formation_reads_its_prefix() -> None:
    assert MAX_TURN_CHARS >= 1_048_576
    opening = "I live in Oslo. "
    filler = "nothing to remember here. " * (MAX_TURN_CHARS // 26)
    text = (opening + filler)[:FORMATION_PREFIX_CHARS] + "I work at Acme. " + filler
    text = text[:MAX_TURN_CHARS]
    with memory_es.open("memory://") as memory:
        session = memory.open_session("ana")
        memory.say(session, text)
        memory.close_session(session)
        assert [t.text for t in memory.session_turns(session)] == [text]
        statements = [b.statement for b in memory.list_beliefs("ana")]
        assert "User lives in Oslo." in statements
        assert not any("Acme" in s for s in statements)  # past the prefix formation reads


def test_the_mcp_tool_and_ingest_keep_such_turns_too() -> None:
    with memory_es.open("memory://") as memory:
        tools = MemoryTools(memory)
        session = tools.open_session("ana")
        line = tools.record_turn("ana", session, TERMINAL_LOG)
        assert line.startswith("recorded turn 1") and "4 control characters" in line
        report = memory.ingest(
            [
                json.dumps(
                    {
                        "principal": "bo",
                        "session": "s",
                        "at": "2026-03-02T09:00:00Z",
                        # JSON carries a NUL; a lone surrogate escape is not valid JSON.
                        "text": TERMINAL_LOG + "\x00",
                    }
                )
            ]
        )
        assert report.turns == 1
        assert "User lives in Oslo." in [b.statement for b in memory.list_beliefs("bo")]


def test_a_store_given_such_turns_closes_rebuilds_exports_and_imports(
    persistent_store_url: str, tmp_path: Path
) -> None:
    exported = tmp_path / "log.jsonl"
    with memory_es.open(persistent_store_url) as memory:
        session = memory.open_session("ana")
        for text in (TERMINAL_LOG, UNSTORABLE, "\x00" * 10 + "I like tea."):
            memory.say(session, text)
        memory.close_session(session)
        before = sorted(b.statement for b in memory.list_beliefs("ana"))
        assert "User lives in Oslo." in before
        memory.rebuild_projections()
        assert sorted(b.statement for b in memory.list_beliefs("ana")) == before
        turns = [t.text for t in memory.session_turns(session)]
        memory.export_log(exported)
        memory.export_keys(tmp_path / "keys.json")  # the log's sealed text travels with them
    with memory_es.open(f"sqlite:///{tmp_path / 'copy.db'}") as copy:
        copy.import_keys(tmp_path / "keys.json")
        copy.import_log(exported)
        assert sorted(b.statement for b in copy.list_beliefs("ana")) == before
        assert [t.text for t in copy.session_turns(session)] == turns
        assert copy.projection_status().quarantined == 0


def test_a_turn_of_nothing_but_dropped_characters_is_refused_as_empty() -> None:
    line = {"principal": "ana", "session": "s", "at": "2026-03-02T09:00:00Z", "text": "\x1b\x07"}
    with memory_es.open("memory://") as memory:
        session = memory.open_session("ana")
        head = memory.projection_status().log_head
        with pytest.raises(InvalidInput, match="non-empty"):
            memory.say(session, "\x1b\x07\x7f")
        with pytest.raises(InvalidInput, match="nothing but control characters"):
            memory.ingest([json.dumps(line)])
        assert memory.projection_status().log_head == head
