"""The speaker as "User" (``memory_es.formation.patterns.phrases.speaker_as_user``): a
sentence in the user's own words, kept as said of them. Only the speaker's words are
rewritten; a word that is not about the user never becomes "User"."""

from __future__ import annotations

import pytest

from memory_es.formation.patterns.phrases import speaker_as_user, third


def test_the_speaker_as_object_or_owner_becomes_user() -> None:
    assert speaker_as_user("the song got me through my first winter") == (
        "the song got User through User's first winter"
    )
    assert speaker_as_user("that bike is mine") == "that bike is User's"


def test_a_reflexive_reads_themselves_never_user() -> None:
    assert speaker_as_user("painting helps me express myself") == (
        "painting helps User express themselves"
    )


@pytest.mark.parametrize(
    "said",
    [
        "New year, new me.",
        "It brought out the real me.",
        'Her motto was "never let me down".',
        "Write to me@example.org or my.name@example.org.",
        "See https://example.org/about-me for more.",
    ],
)
def test_a_word_that_is_not_the_speaker_is_never_rewritten(said: str) -> None:
    assert speaker_as_user(said) == said


def test_the_third_person_rewrite_keeps_a_quoted_string_as_said() -> None:
    assert third('my motto "call me maybe"') == 'their motto "call me maybe"'


def test_the_third_person_of_i_agrees_with_its_verb() -> None:
    assert third("I wish I wasn't so busy") == "they wish they weren't so busy"


@pytest.mark.parametrize(
    "said, formed_as",
    [
        ("I retook the aptitude test on Friday.", "User retook the aptitude test on Friday."),
        ("I outgrew my old bike.", "User outgrew their old bike."),
        ("I rebuilt the garden shed.", "User rebuilt the garden shed."),
    ],
)
def test_an_irregular_past_with_a_prefix_stays_past(said: str, formed_as: str) -> None:
    from memory_es.formation.extractor import ClauseExtractor, SourceTurn

    turn = SourceTurn("t1", 1, "user", said, True, "2026-03-02T09:00:00Z")
    assert [p.statement for p in ClauseExtractor().extract([turn])] == [formed_as]
