"""Relative times are anchored on the day of the turn that said them: a belief read
months later still says when ("yesterday" -> "on 7 May 2023"), from the source turn's
time, never the clock; a time said before the subject stays with its clause."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

import memory_es
from memory_es.formation.anchoring import anchor_times
from memory_es.formation.extractor import ClauseExtractor, SourceTurn

SAID_ON = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)  # a Monday


def formed(text: str, at: str = "2023-05-08T13:56:00+00:00") -> list[str]:
    turn = SourceTurn("t1", 1, "user", text, True, at)
    return [p.statement for p in ClauseExtractor(residue=True).extract([turn])]


@pytest.mark.parametrize(
    "said, anchored",
    [
        ("User went to a support group yesterday.", "User went to a support group on 7 May 2023."),
        ("User ran a race last Sunday.", "User ran a race the Sunday before 8 May 2023."),
        ("User gave a talk last week.", "User gave a talk the week before 8 May 2023."),
        ("User hiked last weekend.", "User hiked the weekend before 8 May 2023."),
        (
            "User went camping two weekends ago.",
            "User went camping two weekends before 8 May 2023.",
        ),
        ("User was in Paris 3 days ago.", "User was in Paris on 5 May 2023."),
        ("User painted it last year.", "User painted it in 2022."),
        ("User is going camping next month.", "User is going camping in June 2023."),
        ("User moved here 4 years ago.", "User moved here 4 years ago (2019)."),
        ("User flies out tomorrow.", "User flies out on 9 May 2023."),
        ("It all started in August last year.", "It all started in August 2022."),
        ("User was in Rome last June.", "User was in Rome in June 2022."),
        ("User was in Bogota last summer.", "User was in Bogota in summer 2022."),
    ],
)
def test_a_relative_time_names_the_day_or_period_it_meant(said: str, anchored: str) -> None:
    assert anchor_times(said, SAID_ON) == anchored


@pytest.mark.parametrize(
    "said",
    ["User went hiking recently.", "User went on Friday.", "User went the other day."],
)
def test_a_time_that_names_no_period_is_left_as_said(said: str) -> None:
    assert anchor_times(said, SAID_ON) == said


def test_formation_anchors_on_the_source_turn_not_the_clock() -> None:
    assert formed("I went to a pottery class yesterday.") == [
        "User went to a pottery class on 7 May 2023."
    ]
    assert formed("I went to a pottery class yesterday.", at="2023-06-02T09:00:00+00:00") == [
        "User went to a pottery class on 1 June 2023."
    ]


def test_a_time_said_before_the_subject_stays_with_its_clause() -> None:
    assert formed("Last Friday I went to a council meeting for adoption.") == [
        "User went to a council meeting for adoption the Friday before 8 May 2023."
    ]
    assert formed("Yesterday, I went to the park with my kids.") == [
        "User went to the park with their kids on 7 May 2023."
    ]


def test_the_same_words_said_on_two_days_are_two_episodes() -> None:
    clock = memory_es.FixedClock(datetime(2023, 5, 8, 9, tzinfo=UTC))
    with memory_es.open("memory://", clock=clock) as memory:
        for day in (8, 15):
            clock.set(datetime(2023, 5, day, 9, tzinfo=UTC))
            session = memory.open_session("ana")
            memory.say(session, "I went to the gym yesterday.")
            memory.close_session(session)
        statements = sorted(b.statement for b in memory.list_beliefs("ana"))
    assert statements == [
        "User went to the gym on 14 May 2023.",
        "User went to the gym on 7 May 2023.",
    ]


def test_a_long_inferred_reading_renders_its_first_clauses_and_indexes_the_rest() -> None:
    from memory_es.formation.anchoring import INFERRED_MAX_WORDS

    text = (
        "I went to an LGBTQ conference two days ago and it was really special, I got the"
        " chance to meet people who've gone through similar journeys, such a welcoming place."
    )
    turn = SourceTurn("t1", 1, "user", text, True, "2023-07-12T10:00:00+00:00")
    (proposal,) = ClauseExtractor(residue=True).extract([turn])
    assert proposal.statement == (
        "User went to an LGBTQ conference on 10 July 2023 and it was special."
    )
    assert len(proposal.statement.split()) <= INFERRED_MAX_WORDS
    assert {"journeys", "welcoming"} <= set(proposal.context.split())


def test_an_inferred_reading_renders_without_the_degree_words_that_only_grade_it() -> None:
    def said(text: str) -> str:
        turn = SourceTurn("t1", 1, "user", text, True, "2023-07-12T10:00:00+00:00")
        (proposal,) = ClauseExtractor(residue=True).extract([turn])
        return proposal.statement

    assert said("I went to the quilting fair and it was so fun.") == (
        "User went to the quilting fair and it was fun."
    )
    assert said("I am super excited about the regatta.") == "User is excited about the regatta."
    # "so" that is no degree, and anything after "not", stay
    assert said("I have not really finished the mural so far.") == (
        "User has not really finished the mural so far."
    )
    # a direct statement keeps its words: the rule has read it already
    turn = SourceTurn("t1", 1, "user", "I really love Thai food.", True, "2023-07-12T10:00:00Z")
    assert [p.statement for p in ClauseExtractor(residue=True).extract([turn])] == [
        "User loves Thai food."
    ]


def test_a_colon_inside_a_word_is_no_clause_boundary() -> None:
    turn = SourceTurn(
        "t1",
        1,
        "user",
        "I played CS:GO in a tournament at 9:30 yesterday.",
        True,
        "2023-07-12T10:00:00+00:00",
    )
    (proposal,) = ClauseExtractor(residue=True).extract([turn])
    assert proposal.statement == "User played CS:GO in a tournament at 9:30 on 11 July 2023."
