"""Cross-turn screening: a credential asked for or named in a turn opens a
short screening context for the session's next turns, derived from the session's own
events, in which a bare value is redacted before its event is written."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

import memory_es
from memory_es.benchmarks.hazards.fresh_measure import stored_text_since
from memory_es.domain.session import FOLLOW_UP_TURNS
from memory_es.formation.hazards import screen


@pytest.mark.parametrize(
    ("role", "asked", "answer", "secret"),
    [
        ("user", "what's the wifi password?", "it's Pumpkin-Spice-31", "Pumpkin-Spice-31"),
        ("assistant", "Could you send me the PIN?", "4821", "4821"),
        ("assistant", "What PIN did you set for the card?", "Walnut77!", "Walnut77!"),
        ("user", "¿cuál es la contraseña?", "es Tortilla-88", "Tortilla-88"),
    ],
)
def test_a_credential_asked_for_screens_the_bare_answer_of_the_next_turn(
    role: str, asked: str, answer: str, secret: str
) -> None:
    with memory_es.open("memory://") as memory:
        head = memory.projection_status().log_head
        session = memory.open_session("ana")
        memory.say(session, asked, role=role)
        receipt = memory.say(session, answer)
        memory.close_session(session)
        assert receipt.redactions
        assert secret not in stored_text_since(memory, head)


def test_the_same_bare_value_with_no_credential_named_before_is_kept() -> None:
    assert screen("4821").redactions == ()
    assert screen("it's Pumpkin-Spice-31").redactions == ()
    assert screen("it's Pumpkin-Spice-31", context=("password",)).redactions == ("password",)


def test_the_context_closes_after_the_follow_up_turns() -> None:
    with memory_es.open("memory://") as memory:
        session = memory.open_session("ana")
        memory.say(session, "what's the door code?")
        for _ in range(FOLLOW_UP_TURNS):
            memory.say(session, "let me check")
        assert memory.say(session, "room 4120 is free").redactions == ()


def test_a_store_reopened_between_question_and_answer_screens_alike(tmp_path: Path) -> None:
    """The context lives in the session's events: a new process rebuilds it."""
    url = f"sqlite:///{tmp_path / 'memory.db'}"
    with memory_es.open(url) as memory:
        session = memory.open_session("ana")
        memory.say(session, "What is the alarm code?", role="assistant")
    with memory_es.open(url) as memory:
        assert memory.say(session, "7719").redactions == ("pin",)


def test_ingest_screens_a_session_s_turns_in_order() -> None:
    lines = [
        {"principal": "ana", "session": "s1", "at": "2026-03-02T09:00:00Z", "text": t, "role": r}
        for r, t in (("assistant", "What's the passcode for your phone?"), ("user", "190284"))
    ]
    with memory_es.open("memory://") as memory:
        head = memory.projection_status().log_head
        memory.ingest([orjson.dumps(line).decode() for line in lines])
        assert "190284" not in stored_text_since(memory, head)
