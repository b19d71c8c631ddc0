"""Temporal questions (docs/retrieval.md, "The dated component"): a question asking when
favours statements that carry a time; a question naming a period favours what was said
in it. Both are the ranking's ``dated`` component, 0 for any other question."""

from __future__ import annotations

from datetime import UTC, datetime

from memory_es.profiles import load_profile
from memory_es.retrieval.query import form_query
from memory_es.retrieval.ranking import rank
from memory_es.retrieval.temporal import dated, named_period, temporal_question
from memory_es.retrieval.tokenizer import lexemes
from tests.test_ranking import NOW, PROFILE, belief, offered


def asks_when(text: str) -> bool:
    return temporal_question(lexemes(text))


def period(text: str) -> tuple[datetime, datetime] | None:
    return named_period(lexemes(text))


def day(y: int, m: int, d: int) -> datetime:
    return datetime(y, m, d, tzinfo=UTC)


def test_a_question_asking_when_is_temporal_and_others_are_not() -> None:
    assert asks_when("When did I move to Lyon?")
    assert asks_when("What year did she start at Brightline?")
    assert asks_when("How long have I had the bike?")
    assert asks_when("Which month was the wedding?")
    assert asks_when("How many weeks passed between the two trips?")
    assert not asks_when("Where do I live?")
    assert not asks_when("What do I do for a living?")
    assert not asks_when("How are you?")
    assert not asks_when("How many pets do I have?")


def test_a_statement_is_dated_by_a_time_word_or_a_year() -> None:
    def is_dated(statement: str) -> bool:
        return dated(frozenset(lexemes(statement)))

    assert is_dated("User moved to Lyon last month.")
    assert is_dated("User went to a support group yesterday.")
    assert is_dated("User started at Brightline in 2021.")
    assert is_dated("User's wedding is in June.")
    assert not is_dated("User lives in Lyon.")
    assert not is_dated("User may visit Lyon.")  # "may" is a modal, not a month
    assert not is_dated("User has 3000 photos.")


def test_a_month_and_year_with_or_without_a_day_names_a_period() -> None:
    assert period("What did I do on May 8, 2022?") == (day(2022, 5, 8), day(2022, 5, 16))
    assert period("What did I do on 8 May 2022?") == (day(2022, 5, 8), day(2022, 5, 16))
    assert period("Where did I travel in July 2023?") == (day(2023, 7, 1), day(2023, 8, 8))
    assert period("What happened in December 2023?") == (day(2023, 12, 1), day(2024, 1, 8))
    assert period("What did I do in summer 2023?") == (day(2023, 6, 1), day(2023, 9, 8))
    # No year: which year is a guess; a winter spans two.
    assert period("What did I do in July?") is None
    assert period("What did I do in winter 2023?") is None
    assert period("May I ask about 2023?") is None
    # No such day: the month.
    assert period("February 30, 2024") == (day(2024, 2, 1), day(2024, 3, 8))


def test_the_query_former_carries_both_signals() -> None:
    q = form_query("When did I visit Lisbon in July 2023?", project="general")
    assert q.temporal and q.period == (day(2023, 7, 1), day(2023, 8, 8))
    plain = form_query("Where do I live?", project="general")
    assert not plain.temporal and plain.period is None


def test_a_question_asking_when_ranks_the_dated_statement_first() -> None:
    undated = belief(1, "User likes Lyon.")
    timed = belief(2, "User moved to Lyon last month.")
    # The undated statement matches better; asked when, the dated one leads.
    pool = offered(undated, relevance=1.0) + offered(timed, relevance=0.8)
    asked = rank(pool, now=NOW, project="general", profile=PROFILE, temporal=True)
    assert [s.record.position for s in asked] == [2, 1]
    assert asked[0].components.dated == 1.0 and asked[1].components.dated == 0.0
    plain = rank(pool, now=NOW, project="general", profile=PROFILE)
    assert [s.record.position for s in plain] == [1, 2]
    assert asked[0].score == round(plain[1].score + PROFILE.ranking_weights.dated, 9)
    assert all(s.components.dated == 0.0 for s in plain)


def test_a_named_period_ranks_what_was_said_in_it_first() -> None:
    before = belief(1, "User went to a concert.", valid_from="2023-06-20T10:00:00Z")
    within = belief(2, "User went to a festival.", valid_from="2023-07-09T10:00:00Z")
    pool = offered(before, relevance=1.0) + offered(within, relevance=0.8)
    july = (day(2023, 7, 1), day(2023, 8, 8))
    ranked = rank(pool, now=NOW, project="general", profile=PROFILE, period=july)
    assert [s.record.position for s in ranked] == [2, 1]
    # The end is exclusive; the start inclusive.
    edge = belief(3, "User left.", valid_from="2023-08-08T00:00:00Z")
    start = belief(4, "User came.", valid_from="2023-07-01T00:00:00Z")
    scored = rank(offered(edge, start), now=NOW, project="general", profile=PROFILE, period=july)
    assert {s.record.position: s.components.dated for s in scored} == {3: 0.0, 4: 1.0}


def test_the_dated_weight_is_a_profile_knob() -> None:
    off = load_profile({"retrieval": {"ranking_weights": {"dated": 0.0}}}).retrieval
    timed = belief(2, "User moved to Lyon last month.")
    (item,) = rank(offered(timed), now=NOW, project="general", profile=off, temporal=True)
    (plain,) = rank(offered(timed), now=NOW, project="general", profile=off)
    assert item.components.dated == 1.0 and item.score == plain.score


def test_a_relative_period_is_where_to_look_not_what_the_question_is_about() -> None:
    from memory_es.retrieval.query import form_query

    # "this year", "the last four months", "the past few weeks" frame the question: the
    # words would meet every line anchored "the week before ..." or "32 years old"
    assert form_query("How many weddings did I attend this year?", project="g").terms == (
        "attend",
        "wed",
    )
    months = form_query("What did I spend on pottery in the last four months?", project="g")
    assert not {"last", "four", "month"} & set(months.terms)
    assert "potteri" in months.terms
    weeks = form_query("Which parks did I visit over the past few weeks?", project="g")
    assert not {"past", "week"} & set(weeks.terms)
    # look-alikes: a unit that is asked for, and "last" before a thing, stay; a period
    # with nothing else to ask keeps its words
    assert "day" in form_query("How many days did I spend camping?", project="g").terms
    assert "last" in form_query("What was the last book I read?", project="g").terms
    assert form_query("What did I do last year?", project="g").terms == ("last", "year")
