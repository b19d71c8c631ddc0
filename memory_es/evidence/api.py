"""``memory.sources``: declare a source, bind a session to one, and read the declaration
a belief's evidence was written under."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memory_es.domain.values import DEFAULT_TENANT, split_principal_identity
from memory_es.evidence.declarations import (
    SESSION_DECLARATION,
    EvidenceDeclaration,
    SourceAuthority,
    SourceRegistry,
    Verification,
    clean_source_name,
    registry_id,
)
from memory_es.evidence.handlers import Bind, Declare
from memory_es.projections.records import BeliefRecord
from memory_es.review.ledger import ReviewLedger, ledger_id

if TYPE_CHECKING:
    from memory_es.app import Memory


class Sources:
    def __init__(self, memory: Memory) -> None:
        self._memory = memory

    def declare(
        self,
        name: str,
        *,
        authority: SourceAuthority | str,
        verification: Verification | str = Verification.UNKNOWN,
        version: int,
        tenant: str = DEFAULT_TENANT,
    ) -> EvidenceDeclaration:
        """Register (or re-declare, at a higher version) a source's evidence declaration."""
        declaration = EvidenceDeclaration(
            clean_source_name(name), SourceAuthority(authority), Verification(verification), version
        )
        return self._memory.services.handle(Declare(tenant, declaration))

    def declaration(self, name: str, *, tenant: str = DEFAULT_TENANT) -> EvidenceDeclaration:
        """The declaration in force for ``name`` now (UNDECLARED if never declared)."""
        registry = self._load(registry_id(tenant))
        found = (
            registry.current(clean_source_name(name))
            if isinstance(registry, SourceRegistry)
            else None
        )
        from memory_es.evidence.declarations import UNDECLARED

        return found or UNDECLARED

    def bind(self, session_id: str, source: str) -> EvidenceDeclaration:
        """Bind an open session to a declared source (tool output, a pasted document)."""
        return self._memory.services.handle(Bind(session_id, source))

    def for_belief(self, record: BeliefRecord) -> EvidenceDeclaration:
        """The declaration in force when the belief's evidence was written: its session's
        binding snapshot, else the built-in ``session`` source (user_asserted)."""
        tenant, principal = split_principal_identity(record.principal)
        ledger = self._load(ledger_id(tenant, principal))
        if isinstance(ledger, ReviewLedger):
            bound = ledger.session_sources.get(record.source_session_id)
            if bound is not None:
                return EvidenceDeclaration.from_dict(bound)
        return SESSION_DECLARATION

    def _load(self, aggregate_id: Any) -> Any:
        from eventsourcing.application import AggregateNotFoundError

        try:
            return self._memory.app.repository.get(aggregate_id)
        except AggregateNotFoundError:
            return None
