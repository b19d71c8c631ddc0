"""What a preference is filed under: what it is for when its end says so ("... in
plans"), the thing the preferred quality is of ("terse commit messages" -> "commit
messages"), an answer's layout apart from its length, and the order of an answer's parts;
a comparison ("more than ...") is no part of the thing preferred."""

from __future__ import annotations

import pytest

import memory_es
from memory_es.domain.values import LIVE_STATUSES
from memory_es.formation.extractor import ClauseExtractor, SourceTurn
from memory_es.ports import FixedClock

DAY = 86400


def subjects(text: str) -> list[tuple[str, ...]]:
    turn = SourceTurn("t1", 1, "user", text, True, "2026-03-02T09:00:00Z")
    return [tuple(p.subjects) for p in ClauseExtractor().extract([turn])]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("I prefer tables over long lists in reports.", ("reports", "answer format")),
        ("I prefer terse commit messages.", ("terse commit messages", "commit messages")),
        ("I prefer afternoon check-ins.", ("afternoon check-ins", "check-ins")),
        ("I like loose-leaf teas more than tea bags.", ("loose-leaf teas", "teas", "drink")),
        ("I love getting the conclusion first.", ("conclusion first", "answer structure")),
        ("I prefer numbered lists.", ("answer format",)),
        ("I prefer detailed answers.", ("answer style",)),
    ],
)
def test_a_preference_names_what_it_is_about(text: str, expected: tuple[str, ...]) -> None:
    assert subjects(text) == [expected]


def live(memory: memory_es.Memory) -> list[str]:
    return sorted(b.statement for b in memory.list_beliefs("kim") if b.status in LIVE_STATUSES)


def say_in_sessions(memory: memory_es.Memory, clock: FixedClock, *texts: str) -> None:
    for text in texts:
        clock.advance(DAY)
        session = memory.open_session("kim")
        memory.say(session, text)
        memory.close_session(session)


def test_a_layout_replaces_a_layout_and_leaves_the_length(
    memory: memory_es.Memory, clock: FixedClock
) -> None:
    say_in_sessions(
        memory,
        clock,
        "I prefer detailed answers.",
        "I prefer numbered lists.",
        "Actually I prefer short paragraphs now.",
    )
    assert live(memory) == ["User prefers detailed answers.", "User prefers short paragraphs."]


def test_a_preference_for_one_kind_of_document_leaves_the_answer_style(
    memory: memory_es.Memory, clock: FixedClock
) -> None:
    say_in_sessions(
        memory, clock, "I prefer detailed answers.", "I prefer tables over long lists in reports."
    )
    assert live(memory) == [
        "User prefers detailed answers.",
        "User prefers tables over long lists in reports.",
    ]
