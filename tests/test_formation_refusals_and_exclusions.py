"""A preference said as a refusal or a request: "I never answer calls after 8" is a
standing rule of the user's (a preference, against); "leave out the olives, I can't
stand them" forms the request to leave them out and the dislike of them, so a later
question about what to leave out finds it. A portable habit said in one project ("I use
Zotero for everything") is recalled in another."""

from __future__ import annotations

import pytest

import memory_es
from memory_es.formation.extractor import ClauseExtractor, SourceTurn
from memory_es.ports import FixedClock

DAY = 86400


def formed(text: str) -> list[tuple[str, tuple[str, ...], str, bool]]:
    turn = SourceTurn("t1", 1, "user", text, True, "2026-03-02T09:00:00Z")
    return [
        (p.belief_type.value, tuple(p.subjects), p.statement, p.polarity)
        for p in ClauseExtractor().extract([turn])
    ]


@pytest.mark.parametrize(
    "text, statement, subject",
    [
        (
            "I never answer work calls after 8 p.m.",
            "User never answers work calls after 8 p.m.",
            "work calls",
        ),
        (
            "I don't book flights before 7 a.m.",
            "User does not book flights before 7 a.m.",
            "flights",
        ),
        ("I don't work weekends.", "User does not work weekends.", "weekends"),
    ],
)
def test_a_standing_refusal_is_a_preference_against(
    text: str, statement: str, subject: str
) -> None:
    assert ("preference", statement, subject, False) in [
        (t, s, subs[0], p) for t, subs, s, p in formed(text)
    ]


def test_a_refusal_with_a_clock_time_is_one_sentence_and_the_next_its_own() -> None:
    statements = [s for _, _, s, _ in formed("I don't take calls before 9 a.m. Evenings are mine.")]
    assert statements[0] == "User does not take calls before 9 a.m."


@pytest.mark.parametrize(
    "text, expected",
    [
        (
            "Leave out the olives, I can't stand them.",
            [
                ("preference", ("olives",), "User prefers leaving out the olives.", False),
                ("preference", ("olives",), "User can't stand olives.", False),
            ],
        ),
        (
            "Please skip the mayo, I hate it.",
            [
                ("preference", ("mayo",), "User prefers skipping the mayo.", False),
                ("preference", ("mayo",), "User hates mayo.", False),
            ],
        ),
        (
            "Leave the anchovies out.",
            [("preference", ("anchovies",), "User prefers leaving out the anchovies.", False)],
        ),
    ],
)
def test_a_request_to_leave_something_out_is_a_preference_and_its_pronoun_the_thing(
    text: str, expected: list[tuple[str, tuple[str, ...], str, bool]]
) -> None:
    assert formed(text) == expected


def test_a_dislike_of_a_bare_pronoun_still_forms_nothing() -> None:
    assert formed("I can't stand it.") == []


def say(memory: memory_es.Memory, clock: FixedClock, text: str, project: str | None = None) -> None:
    clock.advance(DAY)
    session = memory.open_session("kim", project=project)
    memory.say(session, text)
    memory.close_session(session)


def recalled(memory: memory_es.Memory, question: str, project: str | None = None) -> list[str]:
    session = memory.open_session("kim", project=project)
    pack = memory.context(session, question)
    return [item.line for item in (*pack.snapshot, *pack.recall, *pack.delta)]


def test_what_to_leave_out_is_recalled_when_asked(
    memory: memory_es.Memory, clock: FixedClock
) -> None:
    say(memory, clock, "Leave out the olives, I can't stand them.")
    say(memory, clock, "My sister is visiting next week.")
    lines = recalled(memory, "Which topping should you always leave out?")
    assert any("olives" in line for line in lines)


def test_the_refusal_and_the_dislike_both_stay_live(
    memory: memory_es.Memory, clock: FixedClock
) -> None:
    say(memory, clock, "Leave out the olives, I can't stand them.")
    live = sorted(b.statement for b in memory.list_beliefs("kim") if b.status == "active")
    assert live == ["User can't stand olives.", "User prefers leaving out the olives."]


def test_a_portable_preference_said_in_a_project_is_recalled_in_another(
    memory: memory_es.Memory, clock: FixedClock
) -> None:
    say(memory, clock, "I use Zotero for everything.", project="dissertation")
    belief = next(b for b in memory.list_beliefs("kim") if "Zotero" in b.statement)
    assert belief.belief_type in ("preference", "user_model_attr")
    assert any(
        "Zotero" in line for line in recalled(memory, "Which reference manager do I use?", "grant")
    )
