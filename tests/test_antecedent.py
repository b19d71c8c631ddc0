"""An answer is read with the message it answers: an inferred reading of a user's turn
indexes the last content words of the other side's turn just before it in its session
(docs/retrieval.md, "The turn before"), so "Three times a week." is found by the question
that asked how often."""

from __future__ import annotations

from pathlib import Path

import memory_es
from memory_es.ports import FixedClock
from memory_es.projections.projector import ANTECEDENT_WORDS, antecedent_words
from tests.conftest import START

QUESTION = "How often do you work out with your family?"
ANSWER = "Three times a week, it keeps us on track."
ASKED = "how often do I work out with my family?"


def _answered(memory: memory_es.Memory, *, asked: bool = True) -> str:
    session = memory.open_session("alice")
    if asked:
        memory.say(session, QUESTION, role="assistant")
    memory.say(session, ANSWER)
    memory.close_session(session)
    return session


def _found(memory: memory_es.Memory, text: str = ASKED) -> list[str]:
    return [s.record.statement for s in memory.recall("alice", text).items]


def test_an_answer_is_found_by_the_words_of_the_question_it_answers(any_store_url: str) -> None:
    clock = FixedClock(START)
    with memory_es.open(any_store_url, clock=clock, ids=memory_es.SequentialIds()) as memory:
        _answered(memory)
        (statement,) = _found(memory)
        assert "Three times a week" in statement and "family" not in statement  # never rendered


def test_without_the_question_the_answer_shares_no_word_with_it(any_store_url: str) -> None:
    with memory_es.open(any_store_url, clock=FixedClock(START)) as memory:
        _answered(memory, asked=False)
        assert _found(memory) == []
        assert _found(memory, "three times a week") != []  # formed, by its own words


def test_a_rebuild_reads_the_turn_before_as_the_live_projector_did(
    persistent_store_url: str,
) -> None:
    clock = FixedClock(START)
    with memory_es.open(persistent_store_url, clock=clock, ids=memory_es.SequentialIds()) as m:
        _answered(m)
        live, lines = m.index.dump(), m.recall("alice", ASKED).lines()
        m.rebuild_projections(resume=False)
        assert m.index.dump() == live and m.recall("alice", ASKED).lines() == lines


def test_a_statement_the_user_made_is_found_by_its_own_words_alone(any_store_url: str) -> None:
    with memory_es.open(any_store_url, clock=FixedClock(START)) as memory:
        session = memory.open_session("alice")
        memory.say(session, "Where do you keep your Vespa these days?", role="assistant")
        memory.say(session, "I live in Oslo.")
        memory.close_session(session)
        assert _found(memory, "where do I live") == ["User lives in Oslo."]
        assert _found(memory, "the vespa") == []


def test_the_user_s_own_turn_lends_the_next_one_nothing(any_store_url: str) -> None:
    with memory_es.open(any_store_url, clock=FixedClock(START)) as memory:
        session = memory.open_session("alice")
        memory.say(session, "I work out with my family on Sundays.")
        memory.say(session, ANSWER)
        memory.close_session(session)
        assert not any("Three times a week" in line for line in _found(memory))


def test_a_forgotten_question_lends_the_answer_nothing(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'memory.db'}"
    with memory_es.open(url, clock=FixedClock(START), ids=memory_es.SequentialIds()) as memory:
        session = memory.open_session("alice")
        question = memory.say(session, QUESTION, role="assistant")
        memory.say(session, ANSWER)
        memory.close_session(session)
        assert len(_found(memory)) == 1
        memory.forget(turn=question.turn_id, confirm=True)
        assert _found(memory) == []


def test_the_words_lent_are_the_last_content_words_of_the_turn() -> None:
    long_turn = " ".join(f"word{n}" for n in range(ANTECEDENT_WORDS + 10)) + " and the end?"
    words = antecedent_words(long_turn).split()
    assert len(words) == ANTECEDENT_WORDS and words[-1] == "end"
    assert antecedent_words("How often do you work out?") == "often work"
