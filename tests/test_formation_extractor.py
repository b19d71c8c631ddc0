"""The deterministic extractor: the labeled case file, the seed's worked examples, and
what must never form (questions, requests, greetings, assistant turns, hedges)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memory_es.formation.evaluation import Case, evaluate, load_cases, run_case
from memory_es.formation.extractor import ClauseExtractor, SourceTurn

CASES, DIGEST, CASES_PATH = load_cases()
HOLDOUT = Path(__file__).parent / "data" / "formation_holdout.jsonl"


def triples(text: str, *, role: str = "user") -> list[tuple[str, tuple[str, ...], str, bool]]:
    turn = SourceTurn("t1", 1, role, text, True, "2026-03-02T09:00:00Z")
    return [
        (p.belief_type.value, p.subjects, p.statement, p.polarity)
        for p in ClauseExtractor().extract([turn])
    ]


def test_the_case_file_is_large_and_has_negatives() -> None:
    assert len(CASES) >= 60
    assert sum(1 for c in CASES if not c.expected) >= 15
    assert len({c.id for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_labeled_case_forms_exactly_its_beliefs(case: Case) -> None:
    result = run_case(case, ClauseExtractor())
    assert result.missed == [] and result.extra == []


def test_the_held_out_cases_clear_the_seed_floor() -> None:
    """Written after the extractor, never tuned against: a floor, not a target."""
    cases, _, _ = load_cases(HOLDOUT)
    report = evaluate(cases)
    assert report.total.expected >= 25
    assert report.total.precision >= 0.8 and report.total.recall >= 0.8


def test_the_seed_worked_examples_form_their_exact_triples() -> None:
    assert triples(
        "Hi! Quick context before we start. I live in Seattle. "
        "I work at Acme Labs as a data engineer."
    ) == [
        ("user_model_attr", ("home location", "location"), "User lives in Seattle.", True),
        ("user_model_attr", ("employment",), "User works at Acme Labs as a data engineer.", True),
    ]
    assert triples("By the way, I prefer concise answers.") == [
        ("preference", ("answer style",), "User prefers concise answers.", True)
    ]
    assert triples("My wife is Morgan. She is planning our anniversary trip.") == [
        ("relationship", ("wife", "spouse"), "User's wife is Morgan.", True)
    ]
    assert triples("Also, we decided to deploy on Fridays for the rest of the quarter.") == [
        (
            "fact",
            ("project decision",),
            "The team decided to deploy on Fridays for the rest of the quarter.",
            True,
        )
    ]
    assert triples("I no longer use my Apple Watch. The Garmin is enough.") == [
        ("user_model_attr", ("Apple Watch",), "User no longer uses an Apple Watch.", False)
    ]


@pytest.mark.parametrize(
    "text",
    [
        "Can you help me draft a note to my team about the Q2 roadmap?",
        "where do i live",
        "Hello! Good morning.",
        "Please write a bio saying I live in Paris.",
        "I think I prefer the blue one.",
        "If I lived in Rome I would walk more.",
        "I used to work at Initech.",
        "I have a question about pandas.",
        "Thanks!! that fixed it",
    ],
)
def test_questions_requests_greetings_and_hedges_form_nothing(text: str) -> None:
    assert triples(text) == []


def test_assistant_turns_form_nothing() -> None:
    assert triples("I live in Seattle and I prefer concise answers.", role="assistant") == []


def test_untrusted_turns_form_nothing() -> None:
    turn = SourceTurn("t1", 1, "user", "I live in Seattle.", False, "2026-03-02T09:00:00Z")
    assert ClauseExtractor().extract([turn]) == []


def test_casual_typing_contractions_and_typos_form_the_same_beliefs() -> None:
    assert triples("btw im based in seattle") == triples("I live in Seattle.")
    assert triples("i perfer concise anwsers") == triples("I prefer concise answers.")
    assert triples("I'm a data engineer at Acme Labs") == triples(
        "I work at Acme Labs as a data engineer."
    )


def test_a_fact_after_a_colon_or_dash_or_inside_a_longer_sentence_forms() -> None:
    expected = [("user_model_attr", ("home location", "location"), "User lives in Lisbon.", True)]
    assert triples("Quick context: I live in Lisbon.") == expected
    assert triples("Moving news \u2014 I live in Lisbon now") == expected
    assert triples("We can meet whenever, since I live in Lisbon and work from home.") == [
        *expected,
        ("user_model_attr", ("work arrangement",), "User works from home.", True),
    ]


def test_team_decisions_key_on_what_was_decided() -> None:
    turn = SourceTurn(
        "t1",
        1,
        "user",
        "We decided to deploy on Fridays. We decided to use"
        " Postgres. We decided to use Redis for caching.",
        True,
        "2026-03-02T09:00:00Z",
    )
    keys = [p.key for p in ClauseExtractor().extract([turn])]
    assert keys == [
        "project decision/deploy",
        "project decision/use postgres",
        "project decision/use redis",
    ]
