"""The review benchmark's generated noisy variant (memory_es/benchmarks/review/noisy.py):
the evidence held fixed, the injection deterministic."""

from __future__ import annotations

from memory_es.benchmarks.memory_benchmark.corpus import load_corpus
from memory_es.benchmarks.review.noisy import (
    first_person_sentences,
    injected,
    near_duplicate,
    noisy_corpus,
    specific_word,
)


def test_the_noisy_variant_holds_every_label_probe_and_evidence_turn_fixed() -> None:
    shipped = load_corpus().corpus
    noisy = noisy_corpus(shipped)
    assert noisy == noisy_corpus(shipped)  # deterministic
    for before, after in zip(shipped.scenarios, noisy.scenarios, strict=True):
        assert after.beliefs == before.beliefs and after.probes == before.probes
        for old, new in zip(before.sessions, after.sessions, strict=True):
            # Every original turn keeps its number: evidence references point at it still.
            assert new.turns[: len(old.turns)] == old.turns
            assert new.advance_seconds == old.advance_seconds
    counts = injected(shipped, noisy)
    assert counts["near_duplicates"] > 100 and counts["low_value"] > 100


def test_near_duplicates_restate_the_users_own_sentences_with_their_specifics() -> None:
    sentences = first_person_sentences(
        "Hi! Quick context. I live in Seattle. Also, we deploy on Fridays. Can you help?"
    )
    assert sentences == ["I live in Seattle.", "We deploy on Fridays."]
    assert near_duplicate(sentences[0], 0) == "I mentioned before that I live in Seattle."
    assert near_duplicate(sentences[1], 1) == "I keep saying that we deploy on Fridays."
    assert specific_word("I live in Seattle.") == "Seattle"
    assert specific_word("I prefer concise answers.") == "concise"


def test_a_stale_crawler_repeating_the_first_session_changes_no_probe() -> None:
    from memory_es.benchmarks.memory_benchmark.driver import drive_scenario
    from memory_es.benchmarks.review.poisoning import poisoner

    scenario = load_corpus().corpus.scenarios[0]  # an update: Seattle, then Portland
    counts: dict[str, int] = {}
    clean = drive_scenario(scenario)
    poisoned = drive_scenario(scenario, None, poisoner(scenario, declared=True, counts=counts))
    assert counts["turns"] > 0 and counts["formed"] == counts["superseded"] == 0
    assert poisoned.probes == clean.probes and poisoned.beliefs == clean.beliefs
    as_user = drive_scenario(scenario, None, poisoner(scenario, declared=False, counts={}))
    assert as_user.probes != clean.probes  # what the declaration prevents
