"""Episodes: what the user did, is doing, plans and feels forms a fact, with a key of
its own, so one episode never supersedes another; a dropped habit does update the habit.
Reactions, questions and talk about the other speaker still form nothing."""

from __future__ import annotations

import pytest

import memory_es
from memory_es.domain.values import LIVE_STATUSES
from memory_es.formation.extractor import ClauseExtractor, SourceTurn
from memory_es.ports import FixedClock
from tests.conformance import START

DAY = 86400


def formed(text: str, *, role: str = "user") -> list[tuple[str, str, str | None]]:
    turn = SourceTurn("t1", 1, role, text, True, "2026-03-02T09:00:00Z")
    return [(p.belief_type.value, p.statement, p.key) for p in ClauseExtractor().extract([turn])]


def statements(text: str) -> list[str]:
    return [s for _, s, _ in formed(text)]


@pytest.mark.parametrize(
    "text, statement",
    [
        (
            "I went to a pottery class yesterday and it was so relaxing.",
            "User went to a pottery class on 1 March 2026 and it was relaxing.",
        ),
        (
            "Searching for a used piano \u2014 it has been a dream of mine.",
            "User is searching for a used piano, it has been a dream of theirs.",
        ),
        ("Just got back from Oslo!", "User got back from Oslo."),
        (
            "We went kayaking on the fjord last weekend.",
            "User and others went kayaking on the fjord the weekend before 2 March 2026.",
        ),
        ("My dad and I rebuilt a 1972 motorbike.", "User and their dad rebuilt a 1972 motorbike."),
        (
            "My neighbor painted a mural on the garage.",
            "User's neighbor painted a mural on the garage.",
        ),
        ("I'm planning to visit Kyoto in April.", "User is planning to visit Kyoto in April."),
        ("Excited for my recital on Sunday!", "User is excited for their recital on Sunday."),
    ],
)
def test_a_first_person_episode_forms_a_faithful_fact(text: str, statement: str) -> None:
    assert statement in statements(text)
    assert all(t == "fact" for t, s, _ in formed(text) if s == statement)


@pytest.mark.parametrize(
    "text",
    [
        "That's awesome! Wow, congrats!",
        "I'm so happy for you!",
        "Loved it!",
        "Thinking of you today.",
        "Did you go to the concert?",
        "Let me know when you get back.",
        "I'll call you tomorrow.",
        "I was wondering whether the gallery opens on Mondays.",
        "We're thinking of maybe moving someday.",
    ],
)
def test_reactions_questions_hedges_and_talk_about_the_other_form_nothing(text: str) -> None:
    assert formed(text) == []


def test_assistant_and_untrusted_turns_still_form_nothing() -> None:
    assert formed("I went to a pottery class yesterday.", role="assistant") == []
    turn = SourceTurn("t1", 1, "user", "I went to Rome last week.", False, "2026-03-02T09:00Z")
    assert ClauseExtractor().extract([turn]) == []


def test_a_redacted_secret_never_becomes_an_episode() -> None:
    assert formed("I set the token to [redacted:api_token] yesterday.") == []


def test_episodes_key_on_their_own_statement() -> None:
    keys = [k for _, _, k in formed("I went to Rome in May. I went to Lisbon in June.")]
    assert len(keys) == 2 and len(set(keys)) == 2
    assert all(k is not None and k.startswith("episode/") for k in keys)


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock(START)


@pytest.fixture
def memory(clock: FixedClock) -> memory_es.Memory:
    return memory_es.open("memory://", clock=clock, ids=memory_es.SequentialIds())


LIVE = {s.value for s in LIVE_STATUSES}


def live(memory: memory_es.Memory) -> list[str]:
    return sorted(b.statement for b in memory.list_beliefs("kim") if b.status in LIVE)


def say_in_sessions(memory: memory_es.Memory, clock: FixedClock, *texts: str) -> None:
    for text in texts:
        clock.advance(DAY)
        session = memory.open_session("kim")
        memory.say(session, text)
        memory.close_session(session)


def test_unrelated_episodes_stand_side_by_side(memory: memory_es.Memory, clock: FixedClock) -> None:
    say_in_sessions(
        memory,
        clock,
        "I went to a pottery class on Saturday.",
        "I went to a jazz concert on Friday.",
        "We adopted a rescue greyhound last month.",
    )
    assert live(memory) == [
        "User and others adopted a rescue greyhound in February 2026.",
        "User went to a jazz concert on Friday.",
        "User went to a pottery class on Saturday.",
    ]


def test_a_dropped_habit_supersedes_the_habit(memory: memory_es.Memory, clock: FixedClock) -> None:
    say_in_sessions(
        memory,
        clock,
        "I bake sourdough every Sunday.",
        "I went to a bakery in Porto.",
        "I'm not baking sourdough anymore.",
    )
    assert live(memory) == [
        "User no longer bakes sourdough.",
        "User went to a bakery in Porto.",
    ]


def test_last_is_an_adverb_of_an_episode_not_its_verb() -> None:
    # "since we last talked" is the conversation itself: no episode of "last" + "talked"
    assert statements("It has been ages since we last talked.") == []
    assert "User and others last went to Lisbon in 2019." in statements(
        "We last went to Lisbon in 2019."
    )
