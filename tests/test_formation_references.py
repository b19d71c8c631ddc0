"""formation@5: names said in passing, cross-sentence reference, states implied
by events, dated events, and corrections said the way people say them
(docs/formation.md, "Rule families of formation@5")."""

from __future__ import annotations

import pytest

import memory_es
from memory_es.domain.values import Authority, Status
from memory_es.formation.corrections import CorrectionTarget, resolve_corrections
from memory_es.formation.extractor import ClauseExtractor, Proposal, SourceTurn
from memory_es.formation.patterns import extract_clauses
from memory_es.formation.patterns.corrections import read_correction
from tests.conftest import START


def formed(text: str) -> list[tuple[str, str, Authority]]:
    return [(f.rule, f.statement, f.authority) for f in extract_clauses(text)]


def statements(text: str) -> list[str]:
    return [f.statement for f in extract_clauses(text)]


# -- names in passing and cross-sentence reference -------------------------------------


@pytest.mark.parametrize(
    "text, statement",
    [
        ("My partner Kim and I are thinking about the backyard.", "User's partner is Kim."),
        ("Update: my roommate Dario brought home a puppy.", "User's roommate is Dario."),
        ("My daughter, Ines, just started kindergarten.", "User's daughter is Ines."),
        ("Our vet is Dr. Amrani.", "User's vet is Dr. Amrani."),
    ],
)
def test_a_relation_named_in_passing_forms_its_relationship_as_a_direct_statement(
    text: str, statement: str
) -> None:
    got = [f for f in extract_clauses(text) if f.statement == statement]
    assert len(got) == 1 and got[0].authority is Authority.USER


def test_a_pronoun_names_the_relation_of_the_previous_sentence() -> None:
    got = formed("It's for my son. His name is Leo and he turns nine next month.")
    assert ("relationship.named_by_reference", "User's son is Leo.", Authority.USER) in got
    assert (
        "reference.person_fact",
        "User's son Leo turns nine next month.",
        Authority.INFERRED,
    ) in got
    pet = statements("We adopted a rescue cat from the shelter, her name is Miso.")
    assert "User's cat is Miso." in pet


def test_a_name_set_off_before_its_relation_is_read_as_an_apposition() -> None:
    assert statements("Quick thing: Lily, my daughter, is turning 5 next week.") == [
        "User's daughter is Lily.",
        "User's daughter Lily is turning 5 next week.",
    ]


def test_we_named_him_names_the_pet_of_the_previous_sentence() -> None:
    assert "User's dog is Biscuit." in statements("We got a dog last week. We named him Biscuit.")
    assert "User's baby is Ava." in statements("We had a baby girl last month, her name is Ava.")


def test_a_first_person_have_names_its_relations() -> None:
    assert "User's kids are Mia and Sam." in statements("I have two kids, Mia and Sam.")
    assert "User's puppy is Pretzel." in statements("We got a puppy called Pretzel.")
    # Someone else's pet is not the user's.
    assert not [
        s
        for s in statements("My roommate Dario brought home a puppy called Pretzel.")
        if s.startswith("User's puppy")
    ]


def test_a_restriction_that_is_no_food_forms_nothing() -> None:
    assert statements("I can't have kids.") == []


def test_a_pronoun_that_cannot_point_at_the_relation_names_nothing() -> None:
    assert "User's son is Ana." not in statements("It's for my son. Her name is Ana.")


def test_a_reference_reaches_one_sentence_back_and_no_further() -> None:
    text = "It's for my son. The weather was awful. His name is Leo."
    assert "User's son is Leo." not in statements(text)


def test_person_facts_are_inferred_states_never_activities_or_reports() -> None:
    got = formed("My sister is Priya. She's a nurse in Denver.")
    assert (
        "reference.person_fact",
        "User's sister Priya is a nurse in Denver.",
        Authority.INFERRED,
    ) in got
    assert statements("My husband Raj is diabetic, so I cook with less sugar.")[:2] == [
        "User's husband is Raj.",
        "User's husband Raj is diabetic.",
    ]
    # The seed's worked example stays exact: a plan in progress is no person fact.
    assert statements("My wife is Morgan. She is planning our anniversary trip.") == [
        "User's wife is Morgan."
    ]
    assert not [s for s in statements("My manager is Idris. He wants a note.") if "wants" in s]


def test_two_facts_about_one_person_in_one_sentence_are_one_reading() -> None:
    got = statements("My sister is Priya. She's a nurse in Denver, so she's my go-to.")
    assert got == [
        "User's sister is Priya.",
        "User's sister Priya is a nurse in Denver, and is their go-to.",
    ]


# -- states implied by events, dated events -----------------------------------------------


@pytest.mark.parametrize(
    "text, statement",
    [
        ("Big life update: we just moved to Lyon last month!", "User lives in Lyon."),
        ("I went pescatarian at the start of the year.", "User is pescatarian."),
        ("I've been getting into bouldering lately.", "User is into bouldering."),
        ("I took up the cello.", "User is into the cello."),
        ("I live on Marsh Lane now.", "User lives on Marsh Lane."),
        ("I handed in my notice and accepted an offer from Quillmark.", "User works at Quillmark."),
        ("We're based in Denver.", "User lives in Denver."),
        ("I'm starting at Stripe next month.", "User works at Stripe."),
        ("I'm a vegetarian.", "User is vegetarian."),
        ("I'm a PhD student at ETH Zurich.", "User studies at ETH Zurich."),
        ("I can't eat gluten.", "User can not eat gluten."),
        ("I can't have dairy.", "User can not have dairy."),
        ("My goal is to pass the B1 exam.", "User's goal is to pass the B1 exam."),
        ("I retired last year.", "User is retired."),
        ("I got married in June!", "User is married."),
        ("I got married to Sam in June.", "User is married to Sam."),
        ("Allergic to penicillin, by the way.", "User is allergic to penicillin."),
        (
            "I teach third grade at Lincoln Elementary.",
            "User teaches third grade at Lincoln Elementary.",
        ),
        ("Our anniversary is June 3rd.", "User's anniversary is on June 3rd."),
    ],
)
def test_an_event_forms_the_state_it_leaves(text: str, statement: str) -> None:
    got = [f for f in extract_clauses(text) if f.statement == statement]
    assert len(got) == 1 and got[0].authority is Authority.USER


@pytest.mark.parametrize(
    "text, statement, subject",
    [
        ("I'm no longer vegetarian.", "User is no longer vegetarian.", "diet"),
        ("I'm not vegan anymore.", "User is no longer vegan.", "diet"),
        ("I'm not at Acme anymore.", "User no longer works at Acme.", "employment"),
        ("I broke up with Ana last week.", "User is no longer with Ana.", "partner"),
        ("Update: Ana and I split up.", "User is no longer with Ana.", "partner"),
    ],
)
def test_a_state_that_ended_retracts_its_key(text: str, statement: str, subject: str) -> None:
    got = [f for f in extract_clauses(text) if f.statement == statement]
    assert len(got) == 1 and got[0].polarity is False and got[0].subjects[0] == subject


def test_a_vague_pastime_forms_nothing() -> None:
    assert not [s for s in statements("I've been getting into a new hobby.") if "into" in s]
    assert not [s for s in statements("I've been really into making this.") if "into" in s]


def test_a_dated_event_and_a_personal_date_are_facts_keyed_by_the_event() -> None:
    party = [f for f in extract_clauses("We picked a day: the party is on May 10.")][-1]
    assert (party.statement, party.subjects, party.key) == (
        "The party is on May 10.",
        ("party", "party date"),
        "date/party",
    )
    start = extract_clauses("I start on June 15.")[0]
    assert (start.statement, start.subjects) == ("User starts on June 15.", ("start date",))


# -- corrections said without their subject ----------------------------------------------


@pytest.mark.parametrize(
    "sentence, reading",
    [
        ("Actually it's the 12th, not the 10th.", ("10th", "12th")),
        ("I start on June 22, not June 15.", ("June 15", "June 22")),
        ("My teacher is Lucila, not Lucía.", ("Lucía", "Lucila")),
        ("I run three mornings a week, not four.", None),  # "week" is no count
        ("I prefer tea, not coffee.", None),  # a preference, not a correction
        ("It was fine, not great.", None),
    ],
)
def test_a_correction_is_read_only_between_values_of_one_shape(
    sentence: str, reading: tuple[str, str] | None
) -> None:
    assert read_correction(sentence) == reading


def _turn(text: str) -> SourceTurn:
    return SourceTurn("t9", 1, "user", text, True, "2026-03-10T09:00:00Z")


def test_a_correction_becomes_the_belief_it_corrects_with_the_value_replaced() -> None:
    proposals = ClauseExtractor().extract([_turn("Actually it's the 12th, not the 10th.")])
    assert [p.corrects for p in proposals] == [("10th", "12th")]
    party = CorrectionTarget(
        statement="The party is on May 10.",
        belief_type="fact",
        subjects=("party", "party date"),
        key="date/party",
        authority=int(Authority.USER),
        polarity=True,
    )
    got = resolve_corrections(proposals, lambda: [party])
    assert [(p.statement, p.subjects, p.key, p.authority, p.corrects) for p in got] == [
        ("The party is on May 12.", ("party", "party date"), "date/party", Authority.USER, None)
    ]


def test_a_correction_that_corrects_nothing_forms_nothing() -> None:
    proposals: list[Proposal] = ClauseExtractor().extract(
        [_turn("Actually it's the 12th, not the 10th.")]
    )
    assert resolve_corrections(proposals, lambda: []) == []


def test_a_natural_correction_supersedes_what_it_corrects_in_every_store(
    any_store_url: str,
) -> None:
    clock = memory_es.FixedClock(START)
    with memory_es.open(any_store_url, clock=clock, ids=memory_es.SequentialIds()) as memory:
        first = memory.open_session("kim")
        memory.say(first, "Okay, we finally picked a day: the party is on May 10.")
        memory.close_session(first)
        clock.advance(86400)
        second = memory.open_session("kim")
        memory.say(second, "Change of plans. Actually it's the 12th, not the 10th.")
        memory.close_session(second)
        by_statement = {b.statement: b for b in memory.list_beliefs("kim")}
        assert by_statement["The party is on May 12."].status is Status.ACTIVE
        assert by_statement["The party is on May 10."].status is Status.SUPERSEDED
        lines = memory.context(memory.open_session("kim"), "What day is the party?").recall
        assert any("May 12" in item.line for item in lines)
        assert not any("May 10" in item.line for item in lines)


def test_a_household_move_supersedes_the_older_city_in_every_store(any_store_url: str) -> None:
    clock = memory_es.FixedClock(START)
    with memory_es.open(any_store_url, clock=clock, ids=memory_es.SequentialIds()) as memory:
        first = memory.open_session("ana")
        memory.say(first, "I live in Toronto and it's minus twenty out.")
        memory.close_session(first)
        clock.advance(86400 * 60)
        second = memory.open_session("ana")
        memory.say(second, "Big life update: we just moved to Lyon last month!")
        memory.close_session(second)
        by_statement = {b.statement: b.status for b in memory.list_beliefs("ana")}
        assert by_statement["User lives in Lyon."] is Status.ACTIVE
        assert by_statement["User lives in Toronto."] is Status.SUPERSEDED
