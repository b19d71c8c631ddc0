"""A recurring activity of the user: how they live is an attribute (it travels with them
across projects); a recurrence pinned to the calendar is a scheduled fact. A habit about
the activity itself is filed under the activity and its schedule, and a dropped habit
retracts the habit whichever of the two it was filed as."""

from __future__ import annotations

import pytest

import memory_es
from memory_es.domain.values import LIVE_STATUSES
from memory_es.formation.extractor import ClauseExtractor, SourceTurn
from memory_es.ports import FixedClock

DAY = 86400


def formed(text: str) -> list[tuple[str, tuple[str, ...], str]]:
    turn = SourceTurn("t1", 1, "user", text, True, "2026-03-02T09:00:00Z")
    return [
        (p.belief_type.value, tuple(p.subjects), p.statement)
        for p in ClauseExtractor().extract([turn])
    ]


def typed(text: str) -> dict[str, str]:
    return {statement: kind for kind, _, statement in formed(text)}


@pytest.mark.parametrize(
    "text, statement",
    [
        ("I grow chillies every summer.", "User grows chillies every summer."),
        ("I brew my own cider.", "User brews their own cider."),
        ("I cycle to the studio four days a week.", "User cycles to the studio four days a week."),
        ("I swim twice a week.", "User swims twice a week."),
        ("I'm training for the autumn triathlon.", "User is training for the autumn triathlon."),
        ("I draft everything in Scrivener.", "User drafts everything in Scrivener."),
    ],
)
def test_how_the_user_lives_is_an_attribute(text: str, statement: str) -> None:
    assert typed(text)[statement] == "user_model_attr"


@pytest.mark.parametrize(
    "text, statement",
    [
        ("I have a violin lesson every Wednesday.", "User has a violin lesson every Wednesday."),
        ("I bake sourdough every Sunday.", "User bakes sourdough every Sunday."),
        ("I get paid on the 15th of each month.", "User gets paid on the 15th of each month."),
    ],
)
def test_a_recurrence_pinned_to_the_calendar_is_a_scheduled_fact(text: str, statement: str) -> None:
    assert typed(text)[statement] == "fact"


@pytest.mark.parametrize(
    "text, statement",
    [
        ("I miss my old flatmates.", "User misses their old flatmates."),
        ("I remember that ferry ride.", "User remembers that ferry ride."),
    ],
)
def test_a_verb_of_mind_or_feeling_is_no_way_of_life(text: str, statement: str) -> None:
    assert typed(text)[statement] == "fact"


@pytest.mark.parametrize(
    "text, subjects",
    [
        ("I cycle to the studio four days a week.", ("cycling schedule", "cycle")),
        ("I swim twice a week.", ("swimming schedule", "swim")),
        ("I jog every morning.", ("jogging schedule", "jog")),
        ("I play squash three times a week.", ("squash",)),
        ("I grow chillies every summer.", ("chillies",)),
        ("I'm training for the autumn triathlon.", ("training", "autumn triathlon")),
        ("I draft everything in Scrivener.", ("Scrivener",)),
    ],
)
def test_a_habit_is_filed_under_what_it_is_about(text: str, subjects: tuple[str, ...]) -> None:
    assert [s for _, s, _ in formed(text)] == [subjects]


def live(memory: memory_es.Memory) -> dict[str, str]:
    return {
        b.statement: b.belief_type for b in memory.list_beliefs("kim") if b.status in LIVE_STATUSES
    }


def say_in_sessions(
    memory: memory_es.Memory, clock: FixedClock, *texts: str, project: str | None = None
) -> None:
    for text in texts:
        clock.advance(DAY)
        session = memory.open_session("kim", project=project)
        memory.say(session, text)
        memory.close_session(session)


@pytest.mark.parametrize(
    "habit, dropped, now",
    [
        (
            "I grow chillies every summer.",
            "I'm not growing chillies anymore.",
            "User no longer grows chillies.",
        ),
        (
            "I bake sourdough every Sunday.",
            "I'm not baking sourdough anymore.",
            "User no longer bakes sourdough.",
        ),
    ],
)
def test_a_dropped_habit_retracts_the_attribute_and_the_scheduled_fact_alike(
    memory: memory_es.Memory, clock: FixedClock, habit: str, dropped: str, now: str
) -> None:
    say_in_sessions(memory, clock, habit, dropped)
    assert live(memory) == {now: "user_model_attr"}


def test_a_new_frequency_replaces_the_old_one(memory: memory_es.Memory, clock: FixedClock) -> None:
    say_in_sessions(
        memory, clock, "I swim twice a week.", "Small correction: I swim three times a week."
    )
    assert "User swims twice a week." not in live(memory)
    assert live(memory)["User swims three times a week."] == "user_model_attr"


def test_the_next_race_replaces_the_last(memory: memory_es.Memory, clock: FixedClock) -> None:
    say_in_sessions(
        memory, clock, "I'm training for the autumn triathlon.", "I'm training for the city 10K."
    )
    assert "User is training for the city 10K." in live(memory)
    assert "User is training for the autumn triathlon." not in live(memory)


def test_the_tool_the_user_works_in_is_recalled_in_another_project(
    memory: memory_es.Memory, clock: FixedClock
) -> None:
    say_in_sessions(memory, clock, "I draft everything in Scrivener.", project="novel")
    session = memory.open_session("kim", project="grant")
    pack = memory.context(session, "Which app do I draft my documents in?")
    lines = [item.line for item in (*pack.snapshot, *pack.recall, *pack.delta)]
    assert any("Scrivener" in line for line in lines)
