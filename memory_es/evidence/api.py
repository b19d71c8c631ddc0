"""``memory.sources``: declare a source, list the declarations, bind a session to one,
record a turn through one, and read the declaration a belief was written under."""

from __future__ import annotations

import builtins
from typing import TYPE_CHECKING, Any

from memory_es.domain.values import DEFAULT_TENANT, Role, split_principal_identity
from memory_es.errors import InvalidInput
from memory_es.evidence.declarations import (
    UNDECLARED,
    EvidenceDeclaration,
    SourceAuthority,
    SourceRegistry,
    Verification,
    clean_source_name,
    registry_id,
)
from memory_es.evidence.handlers import Bind, Declare, SayThrough, belief_declaration
from memory_es.projections.records import BeliefRecord
from memory_es.review.ledger import ReviewLedger, ledger_id

if TYPE_CHECKING:
    from memory_es.app import Memory
    from memory_es.services.results import TurnReceipt


class Sources:
    def __init__(self, memory: Memory) -> None:
        self._memory = memory

    def declare(
        self,
        name: str,
        *,
        authority: SourceAuthority | str,
        verification: Verification | str = Verification.UNKNOWN,
        version: int | None = None,
        tenant: str = DEFAULT_TENANT,
    ) -> EvidenceDeclaration:
        """Register (or re-declare, at a higher version) a source's evidence declaration.
        ``version`` None: one past the version in force (1 for a new name)."""
        try:
            authority, verification = SourceAuthority(authority), Verification(verification)
        except ValueError as error:
            raise InvalidInput(str(error)) from None
        name = clean_source_name(name)
        if version is None:
            version = self.declaration(name, tenant=tenant).version + 1
        declaration = EvidenceDeclaration(name, authority, verification, version)
        return self._memory.services.handle(Declare(tenant, declaration))

    def declaration(self, name: str, *, tenant: str = DEFAULT_TENANT) -> EvidenceDeclaration:
        """The declaration in force for ``name`` now (UNDECLARED if never declared)."""
        registry = self._load(registry_id(tenant))
        found = (
            registry.current(clean_source_name(name))
            if isinstance(registry, SourceRegistry)
            else None
        )
        return found or UNDECLARED

    def list(self, *, tenant: str = DEFAULT_TENANT) -> list[EvidenceDeclaration]:
        """Every declared source's declaration in force, by name."""
        registry = self._load(registry_id(tenant))
        if not isinstance(registry, SourceRegistry):
            return []
        return [registry.current(name) for name in sorted(registry.declarations)]

    def history(
        self, name: str, *, tenant: str = DEFAULT_TENANT
    ) -> builtins.list[EvidenceDeclaration]:
        """Every version of ``name``'s declaration, oldest first."""
        registry = self._load(registry_id(tenant))
        if not isinstance(registry, SourceRegistry):
            return []
        stored = registry.declarations.get(clean_source_name(name), [])
        return [EvidenceDeclaration.from_dict(d) for d in stored]

    def bind(self, session_id: str, source: str) -> EvidenceDeclaration:
        """Bind an open session to a declared source (every turn of it is that source's)."""
        return self._memory.services.handle(Bind(session_id, source))

    def say(self, session_id: str, text: str, *, source: str, role: str = "user") -> TurnReceipt:
        """Record one turn through a declared source (tool output, a pasted document):
        the turn carries the declaration in force now; the session's other turns do not."""
        try:
            role_value = Role(role)
        except ValueError:
            raise InvalidInput(f"unknown role {role!r}: use user or assistant") from None
        return self._memory.services.handle(SayThrough(session_id, text, source, role_value))

    def for_belief(self, record: BeliefRecord) -> EvidenceDeclaration:
        """The declaration in force when the belief was written: its own snapshot, else
        (earlier code, a replay) its evidence turns' bindings, else the built-in
        ``session`` source (user_asserted)."""
        tenant, principal = split_principal_identity(record.principal)
        ledger = self._load(ledger_id(tenant, principal))
        return belief_declaration(
            ledger if isinstance(ledger, ReviewLedger) else None,
            record.belief_id,
            record.source_session_id,
            record.source_event_ids,
        )

    def _load(self, aggregate_id: Any) -> Any:
        from eventsourcing.application import AggregateNotFoundError

        try:
            return self._memory.app.repository.get(aggregate_id)
        except AggregateNotFoundError:
            return None
