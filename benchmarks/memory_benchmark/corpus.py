"""The memory benchmark corpus: frozen models, every category rule, and the loader.

A corpus is one JSON document. Every model is frozen and forbids unknown fields; every
probe category carries a rule that is checked, because a category label nothing checks
is a comment. The loader returns the parsed document together with the sha256 of the
bytes it read, and that digest travels with every result and every baseline.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Annotated, Literal, Self

from pydantic import (
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    model_validator,
)

from memory_es.benchmarks.memory_benchmark.matching import normalize

SCHEMA_VERSION = 1
TEMPORAL_MIN_SECONDS = 30 * 86400
GENERAL_SCOPE = "general"

BeliefTypeName = Literal[
    "fact", "preference", "relationship", "user_model_attr", "procedure_pointer"
]
Category = Literal[
    "single_hop",
    "multi_hop",
    "temporal",
    "update",
    "correction",
    "preference",
    "transfer",
    "abstention",
]
CATEGORIES: tuple[Category, ...] = (
    "single_hop",
    "multi_hop",
    "temporal",
    "update",
    "correction",
    "preference",
    "transfer",
    "abstention",
)
MIN_SCENARIOS = 12
MIN_PROBES_PER_CATEGORY = 3
MIN_PROTECTED_ABSTENTION_SCENARIOS = 4

ScenarioId = Annotated[str, StringConstraints(pattern=r"^mb-[a-z0-9]+(?:-[a-z0-9]+)*-\d{3}$")]
SessionId = Annotated[str, StringConstraints(pattern=r"^s\d{2}$")]
ProbeId = Annotated[str, StringConstraints(pattern=r"^p\d{2}$")]
Label = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9_]*$")]
ProjectScope = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9-]{1,63}$")]
Text = Annotated[str, StringConstraints(min_length=1)]
Seconds = Annotated[int, Field(ge=0)]


class CorpusError(ValueError):
    """The corpus file cannot be read or breaks a rule; the message names the rule."""


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)


def _nonblank(values: list[str], what: str) -> None:
    for value in values:
        if not normalize(value):
            raise ValueError(f"{what} must not be blank after normalization: {value!r}")


class ExpectedBelief(_Frozen):
    """What a formed belief must look like to count: its type, a subject, a statement."""

    belief_type: BeliefTypeName
    subjects: Annotated[list[Text], Field(min_length=1)]
    statements: Annotated[list[Text], Field(min_length=1)]

    @model_validator(mode="after")
    def _normalizable(self) -> Self:
        _nonblank(self.subjects, "a subject")
        _nonblank(self.statements, "a statement")
        return self


class LabeledBelief(ExpectedBelief):
    label: Label
    session: SessionId
    supersedes: Label | None = None


class BenchmarkTurn(_Frozen):
    text: Text
    advance_seconds: Seconds = 0


class BenchmarkSession(_Frozen):
    """A session of turns; with ``remember`` each turn is instead a text given to the
    remember tool (``Memory.remember``): "tool" at AFFIRMED, "user" as ``--from-user``."""

    id: SessionId
    project_scope: ProjectScope | None = None
    advance_seconds: Seconds = 0
    remember: Literal["tool", "user"] | None = None
    turns: Annotated[list[BenchmarkTurn], Field(min_length=1)]

    @property
    def scope(self) -> str:
        return self.project_scope or GENERAL_SCOPE


class ProbeAnswer(_Frozen):
    kind: Literal["exact", "alternatives", "all_of", "abstain"]
    values: list[Text]

    @model_validator(mode="after")
    def _values_fit_kind(self) -> Self:
        n = len(self.values)
        if self.kind == "abstain" and n != 0:
            raise ValueError("an abstain answer has no values")
        if self.kind == "exact" and n != 1:
            raise ValueError("an exact answer has exactly one value")
        if self.kind == "alternatives" and n < 1:
            raise ValueError("an alternatives answer has at least one value")
        if self.kind == "all_of" and n < 2:
            raise ValueError("an all_of answer has at least two values")
        return self


class EvidenceRef(_Frozen):
    """Where the answer was said: a session, and optionally its turn (1-based)."""

    session: SessionId
    turn: Annotated[int, Field(ge=1)] | None = None


class BenchmarkProbe(_Frozen):
    id: ProbeId
    category: Category
    question: Text
    project_scope: ProjectScope | None = None
    advance_seconds: Seconds = 0
    needed: list[Label]
    answer: ProbeAnswer
    forbidden_statements: list[Text] = []
    evidence: list[EvidenceRef] = []

    @property
    def scope(self) -> str:
        return self.project_scope or GENERAL_SCOPE


@dataclass(frozen=True)
class Timeline:
    """Instants the clock reaches while a scenario is driven (advance, then act)."""

    session_start: dict[str, datetime]
    session_end: dict[str, datetime]  # the instant of the session's last turn
    probe_at: dict[str, datetime]

    @property
    def end(self) -> datetime:
        return max([*self.session_end.values(), *self.probe_at.values()])


class BenchmarkScenario(_Frozen):
    id: ScenarioId
    title: Text
    start_at: AwareDatetime
    sessions: Annotated[list[BenchmarkSession], Field(min_length=2)]
    beliefs: list[LabeledBelief]
    protected_statements: list[Text] = []
    probes: Annotated[list[BenchmarkProbe], Field(min_length=1, max_length=6)]

    # -- derived views ------------------------------------------------------------------

    def belief(self, label: str) -> LabeledBelief:
        for belief in self.beliefs:
            if belief.label == label:
                return belief
        raise KeyError(label)

    def session(self, session_id: str) -> BenchmarkSession:
        for session in self.sessions:
            if session.id == session_id:
                return session
        raise KeyError(session_id)

    def superseded_labels(self) -> frozenset[str]:
        return frozenset(b.supersedes for b in self.beliefs if b.supersedes is not None)

    def session_index(self, session_id: str) -> int:
        return [s.id for s in self.sessions].index(session_id)

    def distance(self, label: str) -> int:
        """How many sessions back a label is stated; the last session is distance one."""
        return len(self.sessions) - self.session_index(self.belief(label).session)

    def scopes(self) -> frozenset[str]:
        return frozenset(s.scope for s in self.sessions)

    def timeline(self) -> Timeline:
        at: datetime = self.start_at
        starts: dict[str, datetime] = {}
        ends: dict[str, datetime] = {}
        for session in self.sessions:
            at += timedelta(seconds=session.advance_seconds)
            starts[session.id] = at
            for turn in session.turns:
                at += timedelta(seconds=turn.advance_seconds)
            ends[session.id] = at
        probes: dict[str, datetime] = {}
        for probe in self.probes:
            at += timedelta(seconds=probe.advance_seconds)
            probes[probe.id] = at
        return Timeline(session_start=starts, session_end=ends, probe_at=probes)

    # -- rules --------------------------------------------------------------------------

    @model_validator(mode="after")
    def _identifiers_and_references(self) -> Self:
        for what, ids in (
            ("session", [s.id for s in self.sessions]),
            ("label", [b.label for b in self.beliefs]),
            ("probe", [p.id for p in self.probes]),
        ):
            repeated = sorted(k for k, n in Counter(ids).items() if n > 1)
            if repeated:
                raise ValueError(f"{self.id}: duplicate {what} ids {repeated}")
        sessions = [s.id for s in self.sessions]
        labels = {b.label: b for b in self.beliefs}
        for belief in self.beliefs:
            if belief.session not in sessions:
                raise ValueError(
                    f"{self.id}: belief {belief.label} names unknown session {belief.session}"
                )
            if belief.supersedes is None:
                continue
            if belief.supersedes not in labels:
                raise ValueError(
                    f"{self.id}: belief {belief.label} supersedes unknown label {belief.supersedes}"
                )
            if belief.supersedes == belief.label:
                raise ValueError(f"{self.id}: belief {belief.label} supersedes itself")
            earlier = sessions.index(labels[belief.supersedes].session)
            if sessions.index(belief.session) <= earlier:
                raise ValueError(
                    f"{self.id}: {belief.label} supersedes {belief.supersedes} but is not stated"
                    " in a strictly later session"
                )
        # One normalized (type, subject, statement) triple names one label, so a formed
        # belief matches at most one label and fabricated = formed - supported - stale_live
        # can never go negative.
        owner: dict[tuple[str, str, str], str] = {}
        for belief in self.beliefs:
            for subject in belief.subjects:
                for statement in belief.statements:
                    key = (belief.belief_type, normalize(subject), normalize(statement))
                    if key in owner and owner[key] != belief.label:
                        raise ValueError(
                            f"{self.id}: labels {owner[key]} and {belief.label} share the"
                            f" triple {key}"
                        )
                    owner[key] = belief.label
        for probe in self.probes:
            for label in probe.needed:
                if label not in labels:
                    raise ValueError(f"{self.id}/{probe.id}: needed label {label} is unknown")
            if len(set(probe.needed)) != len(probe.needed):
                raise ValueError(f"{self.id}/{probe.id}: a needed label is repeated")
            for ref in probe.evidence:
                if ref.session not in sessions:
                    raise ValueError(
                        f"{self.id}/{probe.id}: evidence names unknown session {ref.session}"
                    )
                turns = len(self.session(ref.session).turns)
                if ref.turn is not None and ref.turn > turns:
                    raise ValueError(
                        f"{self.id}/{probe.id}: evidence turn {ref.turn} is past the"
                        f" {turns} turns of {ref.session}"
                    )
        _nonblank(self.protected_statements, "a protected statement")
        for probe in self.probes:
            _nonblank(probe.forbidden_statements, "a forbidden statement")
        return self

    @model_validator(mode="after")
    def _category_rules(self) -> Self:
        timeline = self.timeline()
        for probe in self.probes:
            problem = _category_problem(self, probe, timeline)
            if problem is not None:
                raise ValueError(f"{self.id}/{probe.id} ({probe.category}): {problem}")
        return self

    def has_protected_abstention(self) -> bool:
        protected = {normalize(s) for s in self.protected_statements}
        return bool(protected) and any(
            p.category == "abstention"
            and protected & {normalize(f) for f in p.forbidden_statements}
            for p in self.probes
        )


def _category_problem(
    scenario: BenchmarkScenario, probe: BenchmarkProbe, timeline: Timeline
) -> str | None:
    needed = [scenario.belief(label) for label in probe.needed]
    forbidden = {normalize(f) for f in probe.forbidden_statements}
    category = probe.category
    if category == "single_hop":
        return None if len(needed) == 1 else "needs exactly one needed belief"
    if category == "multi_hop":
        if len(needed) < 2:
            return "needs two or more needed beliefs"
        return None if probe.answer.kind == "all_of" else "needs an all_of answer"
    if category == "temporal":
        if not needed:
            return "needs at least one needed belief"
        at = timeline.probe_at[probe.id]
        for belief in needed:
            gap = at - timeline.session_end[belief.session]
            if gap.total_seconds() < TEMPORAL_MIN_SECONDS:
                return (
                    f"{belief.label} was stated {gap.total_seconds():.0f}s before the probe;"
                    " a temporal probe needs at least thirty days"
                )
        return None
    if category in ("update", "correction"):
        if len(needed) != 1:
            return "needs exactly one needed belief"
        superseded = needed[0].supersedes
        if superseded is None:
            return f"needed belief {needed[0].label} must set supersedes"
        missing = [
            s for s in scenario.belief(superseded).statements if normalize(s) not in forbidden
        ]
        if missing:
            return f"forbidden_statements must cover the superseded statements {missing}"
        return None
    if category == "preference":
        if not needed:
            return "needs at least one needed belief"
        wrong = [b.label for b in needed if b.belief_type != "preference"]
        return None if not wrong else f"needed beliefs {wrong} are not preferences"
    if category == "transfer":
        if probe.project_scope is None:
            return "needs a project_scope"
        if needed:
            local = [
                b.label for b in needed if scenario.session(b.session).scope == probe.project_scope
            ]
            if local:
                return f"needed beliefs {local} were stated in the probe's own scope"
            return None
        if probe.answer.kind != "abstain" or not forbidden:
            return "an empty-needed transfer needs an abstain answer and forbidden statements"
        return None
    if category == "abstention":
        if needed:
            return "needs no needed beliefs"
        if probe.answer.kind != "abstain":
            return "needs an abstain answer"
        return None if forbidden else "needs forbidden statements"
    raise AssertionError(category)


class MemoryBenchmarkCorpus(_Frozen):
    schema_version: Literal[1]
    probe_instruction: Text
    abstain_phrase: Text
    scenarios: Annotated[list[BenchmarkScenario], Field(min_length=MIN_SCENARIOS)]

    @model_validator(mode="after")
    def _corpus_rules(self) -> Self:
        if not normalize(self.abstain_phrase):
            raise ValueError("abstain_phrase must not be blank after normalization")
        ids = Counter(s.id for s in self.scenarios)
        repeated = sorted(k for k, n in ids.items() if n > 1)
        if repeated:
            raise ValueError(f"duplicate scenario ids {repeated}")
        per_category = Counter(p.category for s in self.scenarios for p in s.probes)
        short = [c for c in CATEGORIES if per_category[c] < MIN_PROBES_PER_CATEGORY]
        if short:
            counts = {c: per_category[c] for c in short}
            raise ValueError(
                f"every category needs at least {MIN_PROBES_PER_CATEGORY} probes; short: {counts}"
            )
        protected = sum(1 for s in self.scenarios if s.has_protected_abstention())
        if protected < MIN_PROTECTED_ABSTENTION_SCENARIOS:
            raise ValueError(
                f"at least {MIN_PROTECTED_ABSTENTION_SCENARIOS} scenarios need protected"
                " statements and an abstention probe forbidding one of them; found"
                f" {protected}"
            )
        return self


@dataclass(frozen=True)
class LoadedCorpus:
    corpus: MemoryBenchmarkCorpus
    sha256: str
    path: Path


SHIPPED_CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "memory-benchmark.v1.json"


def parse_corpus(data: bytes) -> MemoryBenchmarkCorpus:
    """Validate a corpus document; any broken rule raises ``CorpusError``."""
    try:
        return MemoryBenchmarkCorpus.model_validate_json(data)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "corpus"
        raise CorpusError(
            f"invalid corpus ({error.error_count()} problem(s)); first at {where}: {first['msg']}"
        ) from None


def load_corpus(path: Path | str = SHIPPED_CORPUS) -> LoadedCorpus:
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as error:
        raise CorpusError(f"cannot read corpus {path}: {error.strerror or error}") from None
    return LoadedCorpus(
        corpus=parse_corpus(data), sha256=hashlib.sha256(data).hexdigest(), path=path
    )
