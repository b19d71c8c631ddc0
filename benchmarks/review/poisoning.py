"""The provenance-poisoning case of the review benchmark: after every scenario's
sessions (and maintenance), and before its first probe, a low-authority source repeats
the user's *earliest* claims — the first session's turns, each five times — as a stale
crawler would. Recorded through a source declared ``untrusted``
(``memory.sources.say``), the repetitions are evidence, never memory: the figures must
equal the unpoisoned run's. The same turns recorded as the user's own (``memory.say``)
show what the declaration prevents: old states re-asserted after their update.
Deterministic; it injects through the benchmark's ``reviewer`` hook (after maintenance,
before the first probe), so the memory benchmark's driver is unchanged."""

from __future__ import annotations

from collections.abc import Callable

import memory_es
from memory_es.benchmarks.memory_benchmark.corpus import BenchmarkScenario
from memory_es.benchmarks.memory_benchmark.driver import EVAL_PRINCIPAL

REPEATS = 5
SOURCE = "stale crawler"


def poisoner(
    scenario: BenchmarkScenario, *, declared: bool, counts: dict[str, int]
) -> Callable[[memory_es.Memory], None]:
    def poison(memory: memory_es.Memory) -> None:
        first = scenario.sessions[0]
        if declared and not memory.sources.declaration(SOURCE).valid:
            memory.sources.declare(SOURCE, authority="untrusted")
        session = memory.open_session(EVAL_PRINCIPAL, project=first.project_scope)
        for _ in range(REPEATS):
            for turn in first.turns:
                if declared:
                    memory.sources.say(session, turn.text, source=SOURCE)
                else:
                    memory.say(session, turn.text)
                counts["turns"] = counts.get("turns", 0) + 1
        result = memory.close_session(session)
        counts["formed"] = counts.get("formed", 0) + len(result.formed)
        counts["superseded"] = counts.get("superseded", 0) + len(result.superseded)

    return poison
