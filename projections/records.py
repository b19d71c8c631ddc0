"""Rows of the recall index, as every adapter returns them."""

from __future__ import annotations

from dataclasses import MISSING, dataclass, fields, replace
from typing import Any

from memory_es.domain.values import Status, principal_identity


@dataclass(frozen=True)
class BeliefRecord:
    belief_id: str
    short_id: str
    principal: str  # principal_key(tenant, principal)
    statement: str
    belief_type: str
    subjects: tuple[str, ...]
    polarity: bool
    authority: int
    confidence: float
    status: Status  # text only in SQL rows and JSON (StrEnum: it compares equal to it)
    project: str
    portable: bool
    source_event_ids: tuple[str, ...]
    source_session_id: str
    valid_from: str
    valid_to: str | None
    successor_id: str | None
    conflicts_with: tuple[str, ...]
    position: int
    evidence_count: int
    last_evidence_at: str
    formed_at: str
    policy: str
    doc_len: int
    # Usage feedback moves it (cited up, returned-but-uncited down), in [-1, 1]; never
    # confidence. A ranking input (the utility weight); 0 until usage is recorded.
    utility: float = 0.0
    # -- lifecycle (memory_es/lifecycle/) --------------------------------------
    last_used_at: str | None = None  # the usage clock: the last citation, never evidence
    # max(last_evidence_at, last_used_at): a citation resists decay without renewing truth.
    idle_since: str = ""
    touched_at: str = ""  # the last formation, evidence or decay: one sweep per interval
    importance: int = 1  # the RFC's deterministic seed, 0..3 (lifecycle/importance.py)
    pinned: bool = False  # protected from every automatic action
    interval_started_at: str = ""  # the lifecycle interval L1's retention counts from
    # -- what the resolver reads (migration 0010; memory_es/services/belief_reads.py) --
    normalized: str = ""  # the statement as the resolver compares it (normalize_statement)
    subject_key: str = ""  # its subject key (several subjects joined by "|")
    source_seq: int = 0  # the newest source turn's place in its session at formation
    forgotten: bool = False  # retired by the decay sweep, not revived since
    prior_status: str | None = None  # the status a deactivated belief had

    def evolve(self, **changes: Any) -> BeliefRecord:
        # The field dict copied and changed, as ``replace`` would build it, without the
        # frozen dataclass's __init__ (25 object.__setattr__ calls): a rebuild evolves a
        # record for every event that changes a belief.
        if not changes.keys() <= _BELIEF_FIELDS:
            return replace(self, **changes)  # raises the dataclass's own TypeError
        fields = self.__dict__.copy()
        fields.update(changes)
        return _record_from(fields)

    def as_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


BELIEF_COLUMNS: tuple[str, ...] = tuple(f.name for f in fields(BeliefRecord))
_BELIEF_FIELDS = frozenset(BELIEF_COLUMNS)
# The defaulted trailing fields, as the dataclass fills them.
_BELIEF_DEFAULTS: dict[str, Any] = {
    f.name: f.default for f in fields(BeliefRecord) if f.default is not MISSING
}
_new = object.__new__
_set_dict = object.__setattr__


def _record_from(fields: dict[str, Any]) -> BeliefRecord:
    record: BeliefRecord = _new(BeliefRecord)
    _set_dict(record, "__dict__", fields)
    return record


def new_belief(**values: Any) -> BeliefRecord:
    """``BeliefRecord(**values)`` — the same record, equal and alike in every field —
    built by handing it its field dict whole (the projector forms one per BeliefFormed,
    and the frozen dataclass's __init__ was a third of that handler's cost). Every
    field without a default must be given, and no other."""
    fields = {**_BELIEF_DEFAULTS, **values}
    if fields.keys() != _BELIEF_FIELDS:
        return BeliefRecord(**values)  # raises the dataclass's own TypeError
    return _record_from(fields)


JSON_COLUMNS: frozenset[str] = frozenset({"subjects", "source_event_ids", "conflicts_with"})
BOOL_COLUMNS: frozenset[str] = frozenset({"polarity", "portable", "pinned", "forgotten"})


@dataclass(frozen=True)
class Candidate:
    """A belief offered to ranking, with the lexical evidence that chose it."""

    record: BeliefRecord
    matched: int  # distinct admitting query terms the belief's indexed text contains
    lexical: int = 0  # BM25 relevance in fixed point (integer: identical on every store)


def principal_key(tenant: str, principal: str) -> str:
    """The read model's key of a principal (memory_es/domain/values.py)."""
    return principal_identity(tenant=tenant, principal=principal)


@dataclass(frozen=True)
class QuarantinedEvent:
    """An event the read model could not apply: recorded, reported, skipped."""

    position: int
    originator_id: str
    topic: str
    error: str  # one line: the error's type and first line


@dataclass(frozen=True)
class SessionRecord:
    """A session as the idle sweep sees it: open until ``closed_at`` is set."""

    session_id: str
    principal: str  # principal_key(tenant, principal)
    project: str
    opened_at: str
    last_activity_at: str
    closed_at: str | None
    # The formation key (``formation@N/<extractor>``) of the session's latest
    # consolidation: what start-up compares with the current policy (migration 0009).
    formation: str | None = None

    def evolve(self, **changes: Any) -> SessionRecord:
        return replace(self, **changes)


SESSION_COLUMNS: tuple[str, ...] = tuple(f.name for f in fields(SessionRecord))
