"""The residue (profile ``formation.residue_enabled``, on in the shipped profile since
formation@4): a declarative sentence of the user's that no rule reads forms "User said:
..." as an INFERRED, PROVISIONAL belief; one that asks, hedges, requests, talks about or
to the other party, carries a redaction or says too little forms nothing. An overlay
with ``residue_enabled: false`` forms what the rules alone read."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

import memory_es
from memory_es.benchmarks.external import run
from memory_es.formation.extractor import ClauseExtractor, SourceTurn
from memory_es.profiles import resolve_profile
from tests.external_fixtures import locomo_items, write_json

CONVERSATIONAL = Path(memory_es.__file__).parent / "profiles" / "conversational.yaml"


def formed(text: str, *, residue: bool) -> list[str]:
    turn = SourceTurn("t1", 1, "user", text, True, "2026-03-02T09:00:00Z")
    return [p.statement for p in ClauseExtractor(residue=residue).extract([turn])]


@pytest.mark.parametrize(
    "text, statement",
    [
        ("They're called Peruvian Lilies.", "User said: they're called Peruvian Lilies."),
        ("It's a mix of drama and romance!", "User said: it's a mix of drama and romance."),
        # (a named person's relation is read: "Ana's mother is Rosa" is a relationship)
        ("Ben's bakery is on Elm Street.", "User said: Ben's bakery is on Elm Street."),
        (  # an interjection opens the sentence; the statement after it stands
            "Yeah, the kids loved the beach trip last weekend.",
            "User said: the kids loved the beach trip the weekend before 2 March 2026.",
        ),
        (
            "Sapiens is a fascinating look at human history.",
            "User said: Sapiens is a fascinating look at human history.",
        ),
    ],
)
def test_an_unread_sentence_forms_what_the_user_said(text: str, statement: str) -> None:
    assert formed(text, residue=False) == []
    assert formed(text, residue=True) == [statement]


@pytest.mark.parametrize(
    "text",
    [
        "What kind of flowers do you grow?",  # a question
        "We're thinking of a small wedding, maybe forty guests.",  # a hedge
        "Please write that down somewhere for me.",  # a request
        "Your garden looks amazing this spring.",  # about the other party
        "Thanks for the lovely photos from the coast!",  # thanks
        "Long day.",  # too little
        "The building door code is 7302.",  # the code is redacted before formation
    ],
)
def test_the_residue_refuses_what_is_not_a_statement_of_the_user(text: str) -> None:
    from memory_es.formation.hazards import screen

    assert formed(screen(text).text, residue=True) == []


def test_an_intention_the_catalogue_declines_is_reported_as_said_never_as_a_fact() -> None:
    text = "I want to visit the Lisbon aquarium next spring."
    assert formed(text, residue=False) == []
    assert formed(text, residue=True) == [
        "User said: they want to visit the Lisbon aquarium in spring 2027."
    ]


def test_a_sentence_a_rule_reads_forms_no_residue_beside_it() -> None:
    assert formed("I live in Lisbon. They're called Peruvian Lilies.", residue=True) == [
        "User lives in Lisbon.",
        "User said: they're called Peruvian Lilies.",
    ]


def test_the_shipped_profile_keeps_the_residue_as_inferred_and_an_overlay_turns_it_off(
    tmp_path: Path,
) -> None:
    assert resolve_profile(None).formation.residue_enabled is True
    assert resolve_profile(CONVERSATIONAL).formation.residue_enabled is True
    off = tmp_path / "off.yaml"
    off.write_text("formation:\n  residue_enabled: false\n")
    text = "They're called Peruvian Lilies, the flowers on my balcony."
    with memory_es.open("memory://", profile=off) as memory:
        assert memory.extractor.name == "clauses@7"
        session = memory.open_session("audrey")
        memory.say(session, "They're called Peruvian Lilies.")
        memory.close_session(session)
        assert memory.list_beliefs("audrey") == []
    with memory_es.open("memory://") as memory:
        assert memory.extractor.name == "clauses@7+residue"
        session = memory.open_session("audrey")
        memory.say(session, text)
        memory.close_session(session)
        lines = memory.recall("audrey", "Which lilies?").lines()
        assert len(lines) == 1
        said = "User said: they're called Peruvian Lilies, the flowers on User's balcony."
        assert lines[0].endswith(said)
        (belief,) = memory.list_beliefs("audrey")
        assert (belief.authority, belief.status, belief.confidence) == (1, "provisional", 0.6)


def test_a_sentence_addressed_to_the_other_speaker_forms_no_residue() -> None:
    assert formed("That's so peaceful and calming, Melanie.", residue=True) == []
    assert formed("Take it easy, Evan!", residue=True) == []
    # a place after a place is no vocative
    assert formed("The market is in Portland, Oregon.", residue=True) == [
        "User said: the market is in Portland, Oregon."
    ]
    # the name is cut from a first-person sentence, which still forms
    assert formed("I went hiking at Mount Tam yesterday, Sam.", residue=False) == [
        "User went hiking at Mount Tam on 1 March 2026."
    ]


def test_a_sentence_a_rule_read_only_in_part_is_kept_whole_as_well() -> None:
    text = "I went to the lake and we saw the Perseid meteor shower light up the sky."
    assert formed(text, residue=True) == [
        "User and others saw the Perseid meteor shower light up the sky.",  # the rule's reading
        # ... leaves out where they were: the sentence is kept whole as well
        "User said: they went to the lake and they saw the Perseid meteor shower light up the sky.",
    ]
    # when the rules' statements carry the sentence's words, nothing is added
    assert formed("I volunteered at the homeless shelter last week.", residue=True) == [
        "User volunteered at the homeless shelter the week before 2 March 2026."
    ]


def test_the_external_runner_forms_with_the_profile_it_is_given(tmp_path: Path) -> None:
    path = write_json(tmp_path / "locomo.json", locomo_items())
    off = tmp_path / "off.yaml"
    off.write_text("formation:\n  residue_enabled: false\n")
    default = run("locomo", path, tmp_path / "default.json", progress=False)
    rules = run("locomo", path, tmp_path / "rules.json", progress=False, profile=off)
    assert default["policy"]["extractor"] == "clauses@7+residue"
    assert rules["policy"]["extractor"] == "clauses@7"
    written = json.loads((tmp_path / "rules.json").read_text())
    assert written["policy"]["extractor"] == "clauses@7"


def test_the_memory_benchmark_hard_gates_hold_with_the_residue_on(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from memory_es.cli import main

    argv = ["--profile", str(CONVERSATIONAL), "eval", "memory-benchmark", "--deterministic-only"]
    main([*argv, "--json"])  # against the shipped baseline it drifts: another extractor
    document = json.loads(capsys.readouterr().out)
    assert document["extractor"] == "clauses@7+residue"
    aggregate = document["aggregate"]
    for gate in (
        "abstention_leaks",
        "protected_rendered",
        "false_transfers",
        "currency_violations",
        "other_forbidden_rendered",
        "policy_failures",
    ):
        assert aggregate[gate] == 0, gate


def test_an_inferred_belief_is_found_by_its_turns_words_and_renders_only_its_own() -> None:
    clock = memory_es.FixedClock(datetime(2026, 3, 2, 9, tzinfo=UTC))
    with memory_es.open("memory://", clock=clock) as memory:
        session = memory.open_session("john")
        memory.say(
            session,
            "I threw a small party at the community hall last weekend. I live in Denver."
            " Have you ever met any veterans of the fire brigade?",
        )
        memory.close_session(session)
        lines = memory.recall("john", "What did John host for the veterans?").lines()
        # the question formed nothing, but its words are the episode's context
        assert lines[0].endswith(
            "User threw a small party at the community hall the weekend before 2 March 2026."
        )
        by_statement = {b.statement: b for b in memory.list_beliefs("john")}
        # a direct statement carries no context: "veterans" never finds where John lives
        assert "User lives in Denver." in by_statement
        assert not any("Denver" in line for line in lines)


def test_a_version_1_belief_formed_event_upcasts_with_no_context() -> None:
    from memory_es.domain.principal import PrincipalMemory

    state: dict[str, object] = {}
    PrincipalMemory.BeliefFormed.upcast_v1_v2(state)
    assert state == {"context": ""}
    assert PrincipalMemory.BeliefFormed.class_version == 2


# -- what a residue line must carry (patterns/residue.py, carries_nothing) ---------------


@pytest.mark.parametrize(
    "chatter",
    [
        "It was such a real gift to everyone there.",  # a verdict
        "Music can be so inspiring and uplifting.",  # a maxim
        "I bet they bring lots of joy to the whole house.",  # a reaction to the other's news
        "I can imagine how rewarding it must be to see them grow.",
        "Those colors are so vivid, it looks like a real sunset.",  # a comment on a photo
    ],
)
def test_talk_about_talk_forms_no_residue_line_beside_what_the_turn_says(chatter: str) -> None:
    assert formed(f"I live in Lisbon. {chatter}", residue=True) == ["User lives in Lisbon."]


@pytest.mark.parametrize(
    "said, line",
    [  # the speaker, their household, a name, a number, a time: about the user's world
        (
            "I'm glad we finally went to the dinosaur exhibit.",
            "User said: they are glad they finally went to the dinosaur exhibit.",
        ),
        ("Our neighbours are loud.", "User said: their neighbours are loud."),
        (
            "The kids loved the beach trip last weekend.",
            "User said: the kids loved the beach trip the weekend before 2 March 2026.",
        ),
        ("Two of them are Jack Russell mixes.", "User said: Two of them are Jack Russell mixes."),
        (
            "It has been a wild ride since the 3rd.",
            "User said: it has been a wild ride since the 3rd.",
        ),
    ],
)
def test_a_sentence_about_the_speaker_or_their_world_keeps_its_line(said: str, line: str) -> None:
    assert formed(f"I live in Lisbon. {said}", residue=True) == ["User lives in Lisbon.", line]


def test_a_turn_of_nothing_but_talk_about_talk_keeps_one_line_as_its_way_in() -> None:
    # The line is the turn's only belief, so the turn's words (its context) still find it;
    # the shortest, since it carries nothing itself.
    text = (
        "Music can be so inspiring and uplifting."
        " Those colors are vivid and the whole painting looks unified."
    )
    turn = SourceTurn("t1", 1, "user", text, True, "2026-03-02T09:00:00Z")
    (only,) = ClauseExtractor(residue=True).extract([turn])
    assert only.statement == "User said: Music can be inspiring and uplifting."
    assert {"colors", "painting", "unified"} <= set(only.context.split())


def test_a_sentence_an_episode_took_in_forms_no_second_line() -> None:
    text = "I started pottery classes in March. The kids loved the beach trip last weekend."
    assert formed(text, residue=True) == [
        "User started pottery classes in March, the kids loved the beach trip the weekend"
        " before 2 March 2026."
    ]
