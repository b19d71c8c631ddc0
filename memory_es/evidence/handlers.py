"""Declaring a source and binding a session to one: each commits once."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from memory_es.errors import UsageError
from memory_es.evidence.declarations import (
    EvidenceDeclaration,
    SourceRegistry,
    clean_source_name,
    registry_id,
)
from memory_es.ports import iso
from memory_es.projections.records import principal_key
from memory_es.review.handlers import ledger_of
from memory_es.services.commands import Command
from memory_es.services.unit_of_work import UnitOfWork


@dataclass(frozen=True)
class Declare(Command[EvidenceDeclaration]):
    tenant: str
    declaration: EvidenceDeclaration


@dataclass(frozen=True)
class Bind(Command[EvidenceDeclaration]):
    session_id: str
    source: str


def registry_of(uow: UnitOfWork, tenant: str) -> SourceRegistry:
    found = uow.load(registry_id(tenant))
    return found if isinstance(found, SourceRegistry) else SourceRegistry(tenant=tenant)


def declare(cmd: Declare, uow: UnitOfWork) -> EvidenceDeclaration:
    registry = registry_of(uow, cmd.tenant)
    registry.declare(cmd.declaration, at=iso(uow.clock.now().replace(microsecond=0)))
    uow.add(registry)
    uow.commit()
    return registry.current(cmd.declaration.source)


def bind(cmd: Bind, uow: UnitOfWork) -> EvidenceDeclaration:
    """Bind an open session to a source: the registry's declaration in force now (or
    UNDECLARED for a name never declared) is what its beliefs' evidence carries."""
    session = uow.sessions.get(cmd.session_id)
    if session.is_closed:
        raise UsageError(f"session {cmd.session_id} is closed: bind a source before its turns form")
    ledger = ledger_of(uow, principal_key(session.tenant, session.principal))
    if str(session.id) in ledger.session_sources:
        raise UsageError(f"session {cmd.session_id} is bound to a source already")
    declaration = registry_of(uow, session.tenant).current(clean_source_name(cmd.source))
    if not declaration.valid:  # the name is kept, the declaration stays absent
        declaration = EvidenceDeclaration(
            clean_source_name(cmd.source), declaration.authority, declaration.verification, 0
        )
    ledger.bind_session_source(
        session_id=str(session.id),
        declaration=declaration.as_dict(),
        at=iso(uow.clock.now().replace(microsecond=0)),
    )
    uow.add(ledger)
    uow.commit()
    return declaration


Handler = Callable[[Any, UnitOfWork], Any]
HANDLERS: dict[type[Any], Handler] = {Declare: declare, Bind: bind}
