"""What command handlers return (beside formation's ``ConsolidationResult``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from memory_es.formation.consolidation import ConsolidationResult


@dataclass(frozen=True)
class TurnReceipt:
    session_id: str
    turn_id: str
    seq: int
    trusted: bool
    redactions: tuple[str, ...]


@dataclass(frozen=True)
class FactsReceipt:
    session_id: str
    recorded: int
    admissible: int  # facts whose provenance holds now; formation re-checks at close


@dataclass(frozen=True)
class IdleClosed:
    session_id: str
    principal: str
    project: str
    last_activity_at: str
    result: ConsolidationResult | None  # None on a dry run


@dataclass
class IdleSweep:
    boundary: str
    dry_run: bool
    closed: list[IdleClosed] = field(default_factory=list)
