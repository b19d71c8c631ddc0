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
records of ``observations``; nothing else in the benchmark imports the memory layer.

The live arm (``live.py``) drives the same way through ``LiveScenario`` and also takes
each probe's context pack as the model's prompt (``Prompt``); its without-memory arm is
``bare_prompt``: a fresh store per probe with the same session metadata and nothing in it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Literal

import memory_es
from memory_es.benchmarks.memory_benchmark.corpus import (
    BenchmarkProbe,
    BenchmarkScenario,
    BenchmarkSession,
)
from memory_es.benchmarks.memory_benchmark.observations import (
    BeliefView,
    MomentView,
    ProbeObservation,
    ScenarioObservation,
    SessionOutcome,
)
from memory_es.context.budget import estimate_tokens
from memory_es.context.pack import ContextPack
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


def drive_scenario(
    scenario: BenchmarkScenario,
    profile: Profile = None,
    reviewer: Callable[[memory_es.Memory], None] | None = None,
) -> ScenarioObservation:
    """``reviewer``: what a reviewer does after maintenance and before the first probe
    (the L2 evaluation's scripted reviewer: memory_es/benchmarks/review/)."""
    clock = memory_es.FixedClock(scenario.start_at)
    ids = memory_es.SequentialIds()
    with memory_es.open("memory://", clock=clock, ids=ids, profile=profile) as memory:
        driver = _ScenarioDriver(memory, clock)
        outcomes = tuple(driver.session(s) for s in scenario.sessions)
        driver.maintenance_once()
        if reviewer is not None:
            reviewer(memory)
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
        if session.remember is not None:
            return self._remembered(session)
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

    def _remembered(self, session: BenchmarkSession) -> SessionOutcome:
        """Each turn given to the remember tool, the way an agent (or the user, with
        ``remember: "user"``) keeps it: one formation per text."""
        proposed = committed = dropped = 0
        for turn in session.turns:
            self.clock.advance(turn.advance_seconds)
            result = self.memory.remember(
                EVAL_PRINCIPAL,
                turn.text,
                project=session.project_scope,
                from_user=session.remember == "user",
            )
            proposed += result.counts.proposed
            committed += result.counts.committed
            dropped += result.counts.dropped_for_ceiling
        return SessionOutcome(
            session=session.id,
            closed_at=self.clock.now(),
            proposed=proposed,
            committed=committed,
            dropped_for_ceiling=dropped,
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
        return self.probe_with_pack(probe)[0]

    def probe_with_pack(self, probe: BenchmarkProbe) -> tuple[ProbeObservation, ContextPack | None]:
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
            ), None
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
        ), pack


# -- the live arm's prompts ----------------------------------------------------------------


@dataclass(frozen=True)
class Prompt:
    """A probe as the model is asked it: (role, content) messages, the turn last.

    ``observation`` is what the deterministic scoring reads (which labels the pack
    recalled); ``session_id`` is the probe session in the composition that built it;
    ``error`` names the exception type when the composition could not build a pack.
    """

    messages: tuple[tuple[str, str], ...]
    estimated_tokens: int
    observation: ProbeObservation | None
    session_id: str | None
    error: str | None = None


def _prompt(
    pack: ContextPack | None,
    question: str,
    instruction: str,
    observation: ProbeObservation | None,
    session_id: str | None,
) -> Prompt:
    if pack is None:
        failed = observation.error if observation is not None else None
        error = (failed or "MemoryEsError").split(":", 1)[0]
        return Prompt((), 0, observation, session_id, error=error)
    # The pack was built for the bare question (the deterministic arm's query); the live
    # arm's turn appends the probe instruction, which would only dilute that query.
    turn = f"{question}\n\n{instruction}"
    kept = [(m.role, m.content) for m in pack.messages if m.kind != "turn" and m.content.strip()]
    messages = (*kept, ("user", turn))
    estimated = sum(estimate_tokens(content) for _, content in messages)
    return Prompt(messages, estimated, observation, session_id)


class LiveScenario:
    """One scenario's composition for the with-memory arm: the store is driven through
    every session and maintenance on entry; ``prompts`` then yields each probe in corpus
    order with its pack as the prompt, while the store stays open for ``record_usage``."""

    def __init__(self, scenario: BenchmarkScenario, instruction: str, profile: Profile = None):
        self.scenario = scenario
        self.instruction = instruction
        self.profile = profile
        self._memory: memory_es.Memory | None = None
        self._driver: _ScenarioDriver | None = None

    def __enter__(self) -> LiveScenario:
        clock = memory_es.FixedClock(self.scenario.start_at)
        self._memory = memory_es.open(
            "memory://", clock=clock, ids=memory_es.SequentialIds(), profile=self.profile
        )
        self._driver = _ScenarioDriver(self._memory, clock)
        try:
            for session in self.scenario.sessions:
                self._driver.session(session)
            self._driver.maintenance_once()
        except BaseException:
            self._memory.close()
            raise
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._memory is not None:
            self._memory.close()

    def prompts(self) -> Iterator[tuple[BenchmarkProbe, Prompt]]:
        assert self._driver is not None, "use LiveScenario as a context manager"
        for probe in self.scenario.probes:
            observation, pack = self._driver.probe_with_pack(probe)
            yield (
                probe,
                _prompt(
                    pack,
                    probe.question,
                    self.instruction,
                    observation,
                    pack.session_id if pack is not None else None,
                ),
            )

    def record_usage(
        self, session_id: str, run_id: str, final_message: str
    ) -> Literal["recorded", "unavailable", "failed"]:
        """Usage feedback: the final message's citations, where the library has it."""
        record = getattr(self._memory, "record_usage", None)
        if record is None:
            return "unavailable"
        try:
            record(session_id, run_id, final_message)
        except MemoryEsError:
            return "failed"
        return "recorded"


def fresh_prompt(
    scenario: BenchmarkScenario, probe_id: str, instruction: str, profile: Profile = None
) -> Prompt:
    """The with-memory prompt again, from a composition built the same way but freshly
    (the retry): the scenario re-driven on a new store up to and including the probe."""
    with LiveScenario(scenario, instruction, profile) as live:
        for probe, prompt in live.prompts():
            if probe.id == probe_id:
                return prompt
    raise KeyError(probe_id)


def bare_prompt(
    scenario: BenchmarkScenario, probe: BenchmarkProbe, instruction: str, profile: Profile = None
) -> Prompt:
    """The without-memory arm: a fresh empty store, the same session metadata (principal,
    project scope, the probe's instant), the probe alone."""
    at = scenario.timeline().probe_at[probe.id]
    with memory_es.open(
        "memory://", clock=memory_es.FixedClock(at), ids=memory_es.SequentialIds(), profile=profile
    ) as memory:
        try:
            session_id = memory.open_session(EVAL_PRINCIPAL, project=probe.project_scope)
            pack = memory.context(session_id, probe.question)
        except MemoryEsError as error:
            return Prompt((), 0, None, None, error=type(error).__name__)
        return _prompt(pack, probe.question, instruction, None, session_id)
