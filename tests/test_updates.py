"""Updates the benchmark's currency gate found: a later statement about the same thing,
phrased differently, supersedes what it replaces (through the real extractor)."""

from __future__ import annotations

import pytest

import memory_es
from memory_es.ports import FixedClock
from tests.conformance import START

DAY = 86400


def live_statements(memory: memory_es.Memory, principal: str) -> list[str]:
    return sorted(b.statement for b in memory.list_beliefs(principal) if b.status == "active")


def say_in_sessions(memory: memory_es.Memory, clock: FixedClock, project: str, *texts: str) -> None:
    for text in texts:
        clock.advance(DAY)
        session = memory.open_session("kim", project=project)
        memory.say(session, text)
        memory.close_session(session)


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock(START)


@pytest.fixture
def memory(clock: FixedClock) -> memory_es.Memory:
    return memory_es.open("memory://", clock=clock, ids=memory_es.SequentialIds())


def test_a_switch_decision_supersedes_the_decision_it_moves_away_from(
    memory: memory_es.Memory, clock: FixedClock
) -> None:
    say_in_sessions(
        memory,
        clock,
        "harbor",
        "We decided to use Jenkins for the build pipelines.",
        "We decided to switch from Jenkins to GitHub Actions.",
        "We decided to move from GitHub Actions to Buildkite.",
    )
    assert live_statements(memory, "kim") == [
        "The team decided to move from GitHub Actions to Buildkite."
    ]


def test_unrelated_decisions_stand_side_by_side(
    memory: memory_es.Memory, clock: FixedClock
) -> None:
    say_in_sessions(
        memory,
        clock,
        "harbor",
        "We decided to use Jenkins for the build pipelines.",
        "We decided to deploy on Fridays.",
    )
    assert len(live_statements(memory, "kim")) == 2


def test_a_new_partner_role_supersedes_the_old_one(
    memory: memory_es.Memory, clock: FixedClock
) -> None:
    say_in_sessions(
        memory, clock, "general", "My girlfriend is Ana.", "She said yes!! Ana is my fiancée now."
    )
    assert live_statements(memory, "kim") == ["User's fiancée is Ana."]
