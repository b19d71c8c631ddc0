"""What the driver saw, as plain values: the only input the scoring functions read.

Scoring never touches the memory layer; it reads these records, so a change in how the
driver obtains them (the context pack replacing bare recall) leaves scoring untouched.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

LIVE_STATUSES = frozenset({"active", "provisional"})


@dataclass(frozen=True)
class BeliefView:
    belief_id: str
    belief_type: str
    subjects: tuple[str, ...]
    statement: str
    status: str

    @property
    def live(self) -> bool:
        return self.status in LIVE_STATUSES


@dataclass(frozen=True)
class MomentView:
    """One recall moment as the model call would carry it."""

    returned: tuple[str, ...]  # belief ids, in render order
    lines: tuple[str, ...]  # the rendered lines, one per returned belief
    dropped_for_budget: tuple[str, ...] = ()
    blocked: tuple[str, ...] = ()  # rendered as withheld (e.g. above a ceiling)


@dataclass(frozen=True)
class SessionOutcome:
    session: str  # the corpus session id
    closed_at: datetime  # the clock when the session closed (its last turn's instant)
    proposed: int
    committed: int
    dropped_for_ceiling: int


@dataclass(frozen=True)
class ProbeObservation:
    at: datetime  # the clock when the probe ran
    beliefs: tuple[BeliefView, ...]  # the store at probe time, every status
    snapshot: MomentView | None  # the session-open moment; None when none was taken
    in_turn: tuple[MomentView, ...]  # one per model call of the probe run
    prefix_digests: tuple[str, ...]  # one per model call (context build)
    completed: bool
    error: str | None = None


@dataclass(frozen=True)
class ScenarioObservation:
    scenario: str
    sessions: tuple[SessionOutcome, ...]
    beliefs: tuple[BeliefView, ...]  # after the last session and maintenance, every status
    probes: tuple[tuple[str, ProbeObservation], ...]  # (probe id, observation), corpus order
