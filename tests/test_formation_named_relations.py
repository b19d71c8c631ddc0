"""A named person's relation ("Marta's brother is Luis") is a relationship in the
user's circle, filed under whose relation it is; a possessive that names no relation
("Ben's bakery is on Elm Street") stays what the user said."""

from __future__ import annotations

import pytest

from memory_es.formation.extractor import ClauseExtractor, SourceTurn


def formed(text: str) -> list[tuple[str, tuple[str, ...], str]]:
    turn = SourceTurn("t1", 1, "user", text, True, "2026-03-02T09:00:00Z")
    return [
        (p.belief_type.value, tuple(p.subjects), p.statement)
        for p in ClauseExtractor().extract([turn])
    ]


@pytest.mark.parametrize(
    "text, expected",
    [
        (
            "Marta's brother is Luis.",
            ("relationship", ("Marta's brother",), "Marta's brother is Luis."),
        ),
        ("Jonas's wife is Elke.", ("relationship", ("Jonas's wife",), "Jonas's wife is Elke.")),
    ],
)
def test_a_named_persons_relation_is_a_relationship(
    text: str, expected: tuple[str, tuple[str, ...], str]
) -> None:
    assert formed(text) == [expected]


@pytest.mark.parametrize(
    "text",
    [
        "She's the one whose mother is Rosa.",
        "His sister is Noor.",
        "Ben's bakery is on Elm Street.",
    ],
)
def test_no_relationship_without_a_named_owner_and_a_relation(text: str) -> None:
    assert all(kind != "relationship" for kind, _, _ in formed(text))
