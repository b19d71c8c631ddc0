"""The deterministic driver: the ONE module that calls into the memory layer.

Per scenario it opens one in-process store (``memory://``) on a fixed clock with
sequential ids and never leaves it:

    for each session: advance, open at the session's scope; per turn advance, say;
                      close (formation runs at the session's own scope)
    maintenance, once, after the last session and before the first probe
    for each probe:   advance; list the store; open a fresh session at the probe's
                      scope (the snapshot moment); build the context for the bare
                      question (the in-turn moment, one model call)

Probe sessions are never closed, so a probe never forms anything and probes cannot
interfere with one another. Everything the scoring reads comes back as the plain
records of ``observations``; nothing else in the benchmark imports ``memory_es``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import memory_es
from benchmarks.memory_benchmark.corpus import BenchmarkProbe, BenchmarkScenario, BenchmarkSession
from benchmarks.memory_benchmark.observations import (
    BeliefView,
    MomentView,
    ProbeObservation,
    ScenarioObservation,
    SessionOutcome,
)
from memory_es.errors import MemoryEsError
from memory_es.policy import formation_policy, retrieval_policy

EVAL_PRINCIPAL = "benchmark-user"
# A memory profile overlay (path) or None: MEMORY_ES_PROFILE, else the shipped one.
Profile = str | Path | None


@dataclass(frozen=True)
class SystemVersions:
    formation_policy: str
    retrieval_policy: str
    extractor: str


def system_versions(profile: Profile = None) -> SystemVersions:
    """The policy versions and extractor a run measures (recorded in every baseline)."""
    with memory_es.open("memory://", profile=profile) as memory:
        extractor = memory.extractor.name
    return SystemVersions(
        formation_policy=formation_policy(),
        retrieval_policy=retrieval_policy(),
        extractor=extractor,
    )


def drive_scenario(scenario: BenchmarkScenario, profile: Profile = None) -> ScenarioObservation:
    clock = memory_es.FixedClock(scenario.start_at)
    ids = memory_es.SequentialIds()
    with memory_es.open("memory://", clock=clock, ids=ids, profile=profile) as memory:
        driver = _ScenarioDriver(memory, clock)
        outcomes = tuple(driver.session(s) for s in scenario.sessions)
        driver.maintenance_once()
        beliefs = driver.beliefs()
        probes = tuple((p.id, driver.probe(p)) for p in scenario.probes)
    return ScenarioObservation(
        scenario=scenario.id, sessions=outcomes, beliefs=beliefs, probes=probes
    )


class _ScenarioDriver:
    def __init__(self, memory: memory_es.Memory, clock: memory_es.FixedClock) -> None:
        self.memory = memory
        self.clock = clock

    def session(self, session: BenchmarkSession) -> SessionOutcome:
        self.clock.advance(session.advance_seconds)
        session_id = self.memory.open_session(EVAL_PRINCIPAL, project=session.project_scope)
        for turn in session.turns:
            self.clock.advance(turn.advance_seconds)
            self.memory.say(session_id, turn.text)
        closed_at = self.clock.now()
        result = self.memory.close_session(session_id)
        return SessionOutcome(
            session=session.id,
            closed_at=closed_at,
            proposed=result.counts.proposed,
            committed=result.counts.committed,
            dropped_for_ceiling=result.counts.dropped_for_ceiling,
        )

    def maintenance_once(self) -> None:
        """The single place the benchmark runs maintenance: once per scenario, after the
        last session and before the first probe, at the fixed clock, so probes never
        change what the next probe reads."""
        self.memory.run_maintenance()

    def beliefs(self) -> tuple[BeliefView, ...]:
        return tuple(
            BeliefView(
                belief_id=b.belief_id,
                belief_type=b.belief_type,
                subjects=tuple(b.subjects),
                statement=b.statement,
                status=b.status,
            )
            for b in sorted(self.memory.list_beliefs(EVAL_PRINCIPAL), key=lambda b: b.belief_id)
        )

    def probe(self, probe: BenchmarkProbe) -> ProbeObservation:
        at = self.clock.advance(probe.advance_seconds)
        beliefs = self.beliefs()
        # The snapshot moment: a fresh session at the probe's scope takes its session
        # snapshot on open. The in-turn moment: one context build for the bare question
        # (one model call), whose recall and delta blocks are what the model would read.
        try:
            session_id = self.memory.open_session(EVAL_PRINCIPAL, project=probe.project_scope)
            pack = self.memory.context(session_id, probe.question)
        except MemoryEsError as error:
            return ProbeObservation(
                at=at,
                beliefs=beliefs,
                snapshot=None,
                in_turn=(),
                prefix_digests=(),
                completed=False,
                error=f"{type(error).__name__}: {error}",
            )
        snapshot = MomentView(
            returned=tuple(item.belief_id for item in pack.snapshot),
            lines=tuple(item.line for item in pack.snapshot),
        )
        rendered = pack.recall + pack.delta
        in_turn = MomentView(
            returned=tuple(item.belief_id for item in rendered),
            lines=tuple(item.line for item in rendered),
            dropped_for_budget=pack.dropped_for_budget,
        )
        return ProbeObservation(
            at=at,
            beliefs=beliefs,
            snapshot=snapshot,
            in_turn=(in_turn,),
            prefix_digests=(pack.prefix_digest,),
            completed=True,
        )
