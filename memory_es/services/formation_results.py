"""What the formation commands return (memory_es/services/formation_commands.py);
``memory_es.services.results`` reads each of them here."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memory_es.formation.consolidation import ConsolidationResult
    from memory_es.formation.rederive import Rederivation


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


@dataclass
class RederiveReport:
    """What ``memory rederive`` did (``dry_run``: would do) over its principals."""

    policy: str  # the formation key re-derived under
    dry_run: bool
    principals: list[Rederivation] = field(default_factory=list)
    sessions_skipped: int = 0  # consolidated under the current policy already

    @property
    def sessions_examined(self) -> int:
        return sum(len(p.sessions_examined) for p in self.principals)

    def count(self, what: str) -> int:
        if what == "unchanged":
            return sum(p.unchanged for p in self.principals)
        return sum(len(getattr(p, what)) for p in self.principals)

    def as_dict(self) -> dict[str, object]:
        """The ``--json`` document: dry-run keys (``would_*``) or applied ones."""
        names = (
            ("would_form", "would_retire", "would_supersede")
            if self.dry_run
            else ("formed", "retired", "superseded")
        )
        out: dict[str, object] = {
            "policy": self.policy,
            "dry_run": self.dry_run,
            "sessions_examined": self.sessions_examined,
            "sessions_skipped": self.sessions_skipped,
            **{
                name: self.count(what)
                for name, what in zip(names, ("formed", "retired", "superseded"), strict=True)
            },
            "unchanged": self.count("unchanged"),
            "principals": [
                {
                    "principal": p.principal,
                    "sessions_examined": len(p.sessions_examined),
                    "sessions_skipped": p.sessions_skipped,
                    "formed": [c.as_dict() for c in p.formed],
                    "retired": [c.as_dict() for c in p.retired],
                    "superseded": [c.as_dict() for c in p.superseded],
                    "unchanged": p.unchanged,
                }
                for p in self.principals
            ],
        }
        return out
