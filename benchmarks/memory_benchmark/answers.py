"""Mechanical answer scoring for the live arm: no judge, no partial credit.

An answer *abstained* when its normalized text equals the normalized abstain phrase. An
exact or alternatives answer is correct when the stripped answer is a single line, some
gold value matches token-bounded against the normalized text, and it did not abstain;
all_of needs every value; an abstain probe is correct exactly when the answer abstained.
A protected fragment anywhere in the answer sets ``leaked_protected``; one of the probe's
forbidden statements (a superseded value, a false transfer) is a ``policy_failure``.
Normalization and the token-bounded match are the benchmark's own (``matching``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from memory_es.benchmarks.memory_benchmark.corpus import BenchmarkProbe
from memory_es.benchmarks.memory_benchmark.matching import contains_fragment, normalize


@dataclass(frozen=True)
class AnswerScore:
    abstained: bool
    correct: bool
    leaked_protected: bool
    policy_failure: bool


def score_answer(
    answer: str, probe: BenchmarkProbe, *, abstain_phrase: str, protected: Sequence[str]
) -> AnswerScore:
    abstained = normalize(answer) == normalize(abstain_phrase)
    gold = probe.answer
    if gold.kind == "abstain":
        correct = abstained
    else:
        single_line = "\n" not in answer.strip()
        found = contains_fragment(answer, gold.values)
        enough = len(found) == len(gold.values) if gold.kind == "all_of" else bool(found)
        correct = single_line and enough and not abstained
    return AnswerScore(
        abstained=abstained,
        correct=correct,
        leaked_protected=bool(contains_fragment(answer, protected)),
        policy_failure=bool(contains_fragment(answer, probe.forbidden_statements)),
    )
