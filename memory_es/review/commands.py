"""L2 review's commands, as values (the service layer's shape: memory_es/services/).

Handled by ``memory_es/review/handlers.py``, registered beside the lifecycle's."""

from __future__ import annotations

from dataclasses import dataclass

from memory_es.review.proposals import Proposal
from memory_es.services.commands import Command


@dataclass(frozen=True)
class AlignmentReport:
    principal: str
    checked: int
    relations: int  # recorded by this run
    opened: list[str]  # proposal ids opened
    revised: list[str]  # pending proposals whose cluster grew

    def as_dict(self) -> dict[str, object]:
        return {
            "principal": self.principal,
            "checked": self.checked,
            "relations": self.relations,
            "opened": list(self.opened),
            "revised": list(self.revised),
        }


@dataclass(frozen=True)
class Align(Command[AlignmentReport]):
    """Bounded near-duplicate alignment over one principal's beliefs: these ids (the
    write path: what a close just formed), or (None) every belief past the ledger's
    watermark (``maintenance run``, the offline pass bulk ingest defers to)."""

    principal: str  # principal_key
    belief_ids: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Approve(Command[Proposal]):
    proposal_id: str
    owner: str | None = None  # principal_key: else found by its id in the log


@dataclass(frozen=True)
class Decline(Command[Proposal]):
    proposal_id: str
    reason: str = ""
    owner: str | None = None
