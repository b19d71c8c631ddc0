"""The Python surface of L2 review: ``memory.review.list / show / approve / decline``
(and ``align``, the offline pass for one principal). The CLI (``memory-es review``) and
the MCP tools call these."""

from __future__ import annotations

from typing import TYPE_CHECKING

from memory_es.domain.values import DEFAULT_TENANT
from memory_es.projections.records import principal_key
from memory_es.review import commands as review
from memory_es.review.handlers import find_ledger, proposals_of
from memory_es.review.proposals import Proposal
from memory_es.services.unit_of_work import UnitOfWork

if TYPE_CHECKING:
    from memory_es.app import Memory


class Review:
    def __init__(self, memory: Memory) -> None:
        self._memory = memory

    def _owner(self, principal: str | None, tenant: str) -> str | None:
        return None if principal is None else principal_key(tenant, principal)

    def align(self, principal: str, *, tenant: str = DEFAULT_TENANT) -> review.AlignmentReport:
        """Bounded alignment over every belief past the principal's watermark (what
        ``maintenance run`` does when ``lifecycle.alignment.enabled``)."""
        return self._memory.services.handle(review.Align(principal_key(tenant, principal)))

    def list(self, principal: str, *, tenant: str = DEFAULT_TENANT) -> list[Proposal]:
        """Every proposal of the principal, in the order they were opened."""
        with UnitOfWork(self._memory.services.adapters) as uow:
            return proposals_of(uow, principal_key(tenant, principal))

    def show(
        self, proposal_id: str, *, principal: str | None = None, tenant: str = DEFAULT_TENANT
    ) -> Proposal:
        with UnitOfWork(self._memory.services.adapters) as uow:
            ledger = find_ledger(uow, proposal_id, self._owner(principal, tenant))
            return Proposal.from_state(ledger.proposals[proposal_id.strip().lower()])

    def approve(
        self, proposal_id: str, *, principal: str | None = None, tenant: str = DEFAULT_TENANT
    ) -> Proposal:
        """Apply the proposal's effects and record the operation, or refuse it (its
        ``state`` says which; ``decision`` names what moved)."""
        return self._memory.services.handle(
            review.Approve(proposal_id, self._owner(principal, tenant))
        )

    def decline(
        self,
        proposal_id: str,
        *,
        reason: str = "",
        principal: str | None = None,
        tenant: str = DEFAULT_TENANT,
    ) -> Proposal:
        return self._memory.services.handle(
            review.Decline(proposal_id, reason, self._owner(principal, tenant))
        )
