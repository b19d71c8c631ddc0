"""Currency: remember forms like a turn; a retraction reaches what it retracts, whatever
its type; a superseded belief takes its turn's inferences naming the old value along."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import memory_es
from memory_es.domain.resolver import Evidence, retracted_objects
from memory_es.domain.values import Authority


@pytest.fixture
def memory() -> Iterator[memory_es.Memory]:
    with memory_es.open("memory://") as m:
        yield m


def said(memory: memory_es.Memory, *turns: str) -> None:
    session = memory.open_session("ana")
    for text in turns:
        memory.say(session, text)
    memory.close_session(session)


def statuses(memory: memory_es.Memory) -> dict[str, str]:
    return {b.statement: b.status.value for b in memory.list_beliefs("ana")}


def test_remember_reads_its_text_like_a_turn_and_conflicts_with_a_user_statement(
    memory: memory_es.Memory,
) -> None:
    said(memory, "I live in Oslo.")
    memory.remember("ana", "I live in Faro.")
    beliefs = {b.statement: b for b in memory.list_beliefs("ana")}
    assert "I live in Faro." not in beliefs  # the verbatim text is the evidence only
    faro, oslo = beliefs["User lives in Faro."], beliefs["User lives in Oslo."]
    assert faro.authority == int(Authority.AFFIRMED) and faro.status.value == "active"
    assert faro.conflicts_with == (oslo.belief_id,)
    listed = {c.belief.statement for c in memory.conflicts("ana")}
    assert listed == {"User lives in Faro.", "User lives in Oslo."}


def test_remember_from_the_user_supersedes_at_the_same_authority(
    memory: memory_es.Memory,
) -> None:
    said(memory, "I live in Oslo.")
    memory.remember("ana", "I live in Faro.", from_user=True)
    assert statuses(memory) == {
        "User lives in Faro.": "active",
        "User lives in Oslo.": "superseded",
    }
    lines = memory.recall("ana", "where do I live").lines()
    assert any("Faro" in line for line in lines) and not any("Oslo" in line for line in lines)


def test_remember_of_text_no_rule_reads_forms_word_for_word(memory: memory_es.Memory) -> None:
    memory.remember("ana", "Project Zeus ships on May 3")
    assert statuses(memory) == {"Project Zeus ships on May 3.": "active"}


def test_an_affirmed_retraction_conflicts_with_a_user_preference_of_another_subject_key(
    memory: memory_es.Memory,
) -> None:
    said(memory, "I prefer my coffee black.")
    memory.remember("ana", "I don't drink coffee anymore")
    assert statuses(memory) == {
        "User prefers their coffee black.": "active",
        "User no longer drinks coffee.": "active",
    }
    assert len(memory.conflicts("ana")) == 2  # each partner listed


def test_a_users_retraction_reaches_a_habit_and_a_possession_of_another_type(
    memory: memory_es.Memory,
) -> None:
    said(memory, "I sing with the Hillside choir on Thursdays.", "I have a boat called Wren.")
    said(memory, "I quit the choir.", "I sold the boat in March.")
    found = statuses(memory)
    assert found["User quit the choir."] == "active"
    assert found["User no longer has a boat."] == "active"
    assert found["User has a boat called Wren."] == "superseded"
    assert [s for s, status in found.items() if "Hillside" in s] != []
    assert all(status == "superseded" for s, status in found.items() if "Hillside" in s)


def test_a_retraction_reaches_a_residue_line_carrying_the_old_state(
    memory: memory_es.Memory,
) -> None:
    said(memory, "I have been vegetarian since college, but it is getting harder.")
    said(memory, "I'm not vegetarian anymore, I eat fish now.")
    lines = memory.recall("ana", "am I vegetarian").lines()
    assert any("no longer vegetarian" in line for line in lines)
    assert not any("since college" in line for line in lines)


def test_a_superseded_belief_takes_its_turns_inferences_naming_the_old_value(
    memory: memory_es.Memory,
) -> None:
    said(memory, "I live in Bristol, in a flat above a bakery.")
    said(memory, "We moved to Leeds in the spring.")
    current = [s for s, status in statuses(memory).items() if status in ("active", "provisional")]
    assert "User lives in Leeds." in current
    assert not any("Bristol" in s for s in current)


def test_a_line_telling_of_the_change_is_history_and_stays(memory: memory_es.Memory) -> None:
    said(memory, "Losing my job at the bank was hard, honestly.")
    said(memory, "I don't have a job anymore, so money is tight.")
    assert any(
        "losing" in s.lower() and status != "superseded" for s, status in statuses(memory).items()
    )


def _evidence(statement: str, key: str, *, polarity: bool, authority: Authority) -> Evidence:
    return Evidence(
        belief_type="user_model_attr",
        subject_key=key,
        normalized=statement.casefold().rstrip("."),
        polarity=polarity,
        authority=authority,
        instant="2026-01-01T00:00:00Z",
        session_id="s",
        seq=1,
        source_event_ids=frozenset({"t"}),
        project="general",
        portable=True,
    )


def test_what_a_retraction_retracts() -> None:
    user = Authority.USER
    assert retracted_objects(
        _evidence("User no longer drinks coffee.", "coffee", polarity=False, authority=user)
    ) == ("coffee",)
    assert retracted_objects(
        _evidence("User is no longer vegetarian.", "diet", polarity=False, authority=user)
    ) == ("vegetarian",)
    assert (
        retracted_objects(
            _evidence("User lives in Lisbon.", "home location", polarity=True, authority=user)
        )
        == ()
    )
    guess = _evidence(
        "User is not gonna give up.", "give up", polarity=False, authority=Authority.INFERRED
    )
    assert retracted_objects(guess) == ()


# -- switches, natural corrections, a story told together (formation@7) ------------------


def current(memory: memory_es.Memory) -> set[str]:
    return {s for s, status in statuses(memory).items() if status in ("active", "provisional")}


def test_a_team_switch_supersedes_the_old_team_and_the_line_that_carried_it(
    memory: memory_es.Memory,
) -> None:
    said(memory, "I'm on the payments team at work, mostly backend stuff.")
    said(memory, "I moved to the search team last month.")
    now = current(memory)
    assert "User is on the search team." in now
    assert not any("payments" in s for s in now)


def test_a_switch_without_the_old_value_reaches_the_old_state_of_its_class(
    memory: memory_es.Memory,
) -> None:
    said(memory, "I use an iPhone 12 for everything.", "I use Neovim at work.")
    said(memory, "I switched to a Pixel 8 a few weeks ago.")
    found = statuses(memory)
    assert found["User uses a Pixel 8."] == "active"
    assert found["User uses an iPhone 12 for everything."] == "superseded"
    assert found["User uses Neovim at work."] == "active"  # another class stays


def test_a_switch_naming_the_old_value_replaces_its_whole_name(
    memory: memory_es.Memory,
) -> None:
    said(memory, "I bank with Harbor Credit Union, have for years.", "I have a Kindle Paperwhite.")
    said(
        memory,
        "Closed my Harbor account last week, everything's at Alder Bank now.",
        "I traded my Kindle for a Kobo Libra.",
    )
    found = statuses(memory)
    assert found["User banks with Alder Bank."] != "superseded"
    assert found["User banks with Harbor Credit Union."] == "superseded"
    assert found["User has a Kobo Libra."] == "active"
    assert found["User has a Kindle Paperwhite."] == "superseded"
    lines = memory.recall("ana", "Which bank am I with now?").lines()
    assert any("Alder Bank" in line for line in lines)
    assert not any("Harbor Credit Union" in line for line in lines)


def test_a_school_switch_keys_on_the_school(memory: memory_es.Memory) -> None:
    said(memory, "I'm a student at NYU.")
    said(memory, "I transferred to Boston University.")
    assert current(memory) >= {"User studies at Boston University."}
    assert statuses(memory)["User studies at NYU."] == "superseded"


def test_a_correction_said_naturally_replaces_the_value_it_puts_right(
    memory: memory_es.Memory,
) -> None:
    said(memory, "I get paid on the 5th of each month.", "I have a piano lesson every Tuesday.")
    said(
        memory,
        "Actually they pay me on the 10th, I misremembered.",
        "Oh and the piano lesson is on Thursday now, my teacher moved it.",
    )
    now = current(memory)
    assert "User gets paid on the 10th of each month." in now
    assert "User has a piano lesson every Thursday." in now
    assert not any("5th" in s or "Tuesday" in s for s in now)


def test_a_natural_correction_without_a_shared_topic_corrects_nothing(
    memory: memory_es.Memory,
) -> None:
    said(memory, "I get paid on the 5th of each month.")
    said(memory, "Actually the concert is on the 10th.")
    assert "User gets paid on the 5th of each month." in current(memory)


def test_a_remembered_correction_of_a_user_statement_conflicts(
    memory: memory_es.Memory,
) -> None:
    said(memory, "I have a piano lesson every Tuesday.")
    memory.remember("ana", "Actually the piano lesson is on Thursday now, it moved.")
    found = {b.statement: b for b in memory.list_beliefs("ana")}
    thursday = found["User has a piano lesson every Thursday."]
    assert thursday.authority == int(Authority.AFFIRMED)
    assert found["User has a piano lesson every Tuesday."].status.value == "active"
    assert len(memory.conflicts("ana")) == 2


def test_leaving_one_employer_and_joining_another_is_one_story(
    memory: memory_es.Memory,
) -> None:
    said(memory, "I work at Acme.")
    said(memory, "I left Acme in May and joined Globex.")
    assert memory.conflicts("ana") == []
    now = current(memory)
    assert "User works at Globex." in now and "User works at Acme." not in now


def test_the_benchmark_drives_a_remember_session_through_the_remember_tool() -> None:
    from memory_es.benchmarks.memory_benchmark.corpus import load_corpus
    from memory_es.benchmarks.memory_benchmark.driver import drive_scenario

    corpus = load_corpus().corpus
    (scenario,) = [s for s in corpus.scenarios if s.id == "mb-remember-authority-001"]
    observed = drive_scenario(scenario)
    status = {b.statement: b.status for b in observed.beliefs}
    # The agent's remember conflicts with the user's statements; the user's supersedes.
    assert status["User lives in Faro."] == "active" and status["User lives in Oslo."] == "active"
    assert status["User no longer drinks coffee."] == "active"
    assert status["User prefers their coffee black."] == "active"
    assert status["User works at Globex."] == "active"
    assert status["User works at Acme."] == "superseded"
    assert not any(s.startswith("I ") for s in status)  # the verbatim text is evidence only


def test_a_new_partner_after_a_breakup_is_the_current_partner(memory: memory_es.Memory) -> None:
    said(memory, "My girlfriend is Ana.")
    said(memory, "Ana and I broke up in the spring.", "I'm dating Mia now.")
    found = statuses(memory)
    assert found["User is dating Mia."] == "active"
    assert found["User's girlfriend is Ana."] == "superseded"
    assert memory.conflicts("ana") == []  # the breakup and the new partner: one story
    said(memory, "I'm dating Noor these days.")
    assert statuses(memory)["User is dating Mia."] == "superseded"


def test_a_childs_school_switch_supersedes_the_old_school(memory: memory_es.Memory) -> None:
    said(memory, "My son goes to Lincoln Elementary.", "My daughter goes to Hill Academy.")
    said(memory, "My son switched to Maple Grove Elementary this fall.")
    now = current(memory)
    assert "User's son goes to Maple Grove Elementary." in now
    assert "User's son goes to Lincoln Elementary." not in now
    assert "User's daughter goes to Hill Academy." in now  # another child's school stays


def test_the_bank_is_one_at_a_time(memory: memory_es.Memory) -> None:
    said(memory, "I bank with Harbor Credit Union, have for years.")
    said(memory, "I bank with Alder now.")
    found = statuses(memory)
    assert found["User banks with Alder."] == "active"
    assert found["User banks with Harbor Credit Union."] == "superseded"


def test_a_new_device_of_a_kind_replaces_the_old_one(memory: memory_es.Memory) -> None:
    said(memory, "I have a MacBook Air and a Kindle.")
    said(memory, "I just got a new ThinkPad for work.")
    found = statuses(memory)
    assert found["User has a MacBook Air."] == "superseded"
    assert found["User has a Kindle."] == "active"


def test_eating_meat_again_ends_a_vegetarian_diet(memory: memory_es.Memory) -> None:
    said(memory, "I'm vegetarian.")
    said(memory, "I started eating meat again.")
    found = statuses(memory)
    assert found["User eats meat again."] == "active"
    assert found["User is vegetarian."] == "superseded"


def test_a_remembered_correction_that_corrects_nothing_forms_word_for_word(
    memory: memory_es.Memory,
) -> None:
    memory.remember("ana", "Actually I get paid on the 10th")
    assert statuses(memory) == {"Actually I get paid on the 10th.": "active"}
