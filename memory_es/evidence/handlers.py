"""Declaring a source, binding a session to one, recording a turn through one: each
commits once. And the per-belief snapshot a close saves with what it formed."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from memory_es.domain.values import Role
from memory_es.errors import UsageError
from memory_es.evidence.declarations import (
    SESSION_DECLARATION,
    EvidenceDeclaration,
    SourceAuthority,
    SourceRegistry,
    clean_source_name,
    registry_id,
    stored_declaration,
    weakest,
)
from memory_es.ports import iso
from memory_es.projections.records import principal_key
from memory_es.review.handlers import ledger_of
from memory_es.review.ledger import ReviewLedger, ledger_id
from memory_es.services.commands import Command, Say
from memory_es.services.results import TurnReceipt
from memory_es.services.unit_of_work import UnitOfWork

if TYPE_CHECKING:
    from memory_es.domain.principal import PrincipalMemory
    from memory_es.domain.session import Session
    from memory_es.formation.consolidation import ConsolidationResult


@dataclass(frozen=True)
class Declare(Command[EvidenceDeclaration]):
    tenant: str
    declaration: EvidenceDeclaration


@dataclass(frozen=True)
class Bind(Command[EvidenceDeclaration]):
    session_id: str
    source: str


@dataclass(frozen=True)
class SayThrough(Command[TurnReceipt]):
    """Record a turn through a declared source (tool output, a pasted document): the
    turn and the declaration in force now, in one save."""

    session_id: str
    text: str
    source: str
    role: Role = Role.USER


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


def resolved(registry: SourceRegistry, source: str) -> EvidenceDeclaration:
    """The registry's declaration in force for ``source`` now; a name never declared
    keeps its name with no declaration (version 0: unknown / untrusted)."""
    name = clean_source_name(source)
    declaration = registry.current(name)
    if not declaration.valid:
        return EvidenceDeclaration(name, declaration.authority, declaration.verification, 0)
    return declaration


def say_through(cmd: SayThrough, uow: UnitOfWork) -> TurnReceipt:
    from memory_es.services.handlers import record_turn

    session = uow.sessions.get(cmd.session_id)
    declaration = resolved(registry_of(uow, session.tenant), cmd.source)
    # Content of an untrusted or undeclared source is evidence, never memory: the turn
    # is recorded untrusted, so no formation path reads it (repeating a claim through
    # such a source can neither reinforce nor supersede what the user said).
    may_form = declaration.valid and declaration.authority is not SourceAuthority.UNTRUSTED
    receipt = record_turn(Say(cmd.session_id, cmd.text, role=cmd.role), uow, may_form=may_form)
    ledger = ledger_of(uow, principal_key(session.tenant, session.principal))
    ledger.bind_turn_source(
        session_id=str(session.id),
        turn_id=receipt.turn_id,
        declaration=declaration.as_dict(),
        at=iso(uow.clock.now().replace(microsecond=0)),
    )
    uow.add(ledger)
    uow.commit()
    return receipt


def turn_declaration(
    ledger: ReviewLedger | None, session_id: str, turn_id: str
) -> EvidenceDeclaration:
    """The declaration a turn was recorded under: its own binding, else its session's,
    else the built-in ``session`` source (what the user said, user_asserted)."""
    if ledger is None:
        return SESSION_DECLARATION
    bound = ledger.turn_source(turn_id)
    if bound is None:
        bound = ledger.session_sources.get(session_id)
    return SESSION_DECLARATION if bound is None else stored_declaration(bound)


def belief_declaration(
    ledger: ReviewLedger | None,
    belief_id: str,
    source_session_id: str,
    source_event_ids: tuple[str, ...] | list[str],
) -> EvidenceDeclaration:
    """The declaration a belief was written under: its own snapshot (saved with the
    close that formed it), else — a belief written by earlier code, a replay or a bulk
    ingest — the weakest of its evidence turns' bindings in its session (each snapshotted
    when it was bound, so a rebuild still reads the historical declaration)."""
    if ledger is not None:
        own = ledger.belief_source(belief_id)
        if own is not None:
            return stored_declaration(own)
    if ledger is None or not ledger.session_sourced(source_session_id):
        return SESSION_DECLARATION
    turns = list(source_event_ids) or [""]
    return weakest([turn_declaration(ledger, source_session_id, t) for t in turns])


def snapshot_formed(
    uow: UnitOfWork,
    session: Session,
    principal: PrincipalMemory,
    result: ConsolidationResult,
    *,
    at: str,
) -> None:
    """Part of the close's save: each formed belief's declaration, for a session with
    evidence through a declared source (an unbound session's beliefs are the built-in
    source, a constant nobody can re-declare: nothing is written, the log unchanged)."""
    found = uow.load(ledger_id(session.tenant, session.principal))
    if not isinstance(found, ReviewLedger) or not found.session_sourced(str(session.id)):
        return
    formed = set(result.formed)
    declarations: dict[str, dict[str, Any]] = {}
    for pending in principal.pending_events:
        belief_id = getattr(pending, "belief_id", None)
        sources = getattr(pending, "source_event_ids", None)
        if belief_id in formed and sources is not None and belief_id not in declarations:
            turns = list(sources) or [""]
            declaration = weakest([turn_declaration(found, str(session.id), t) for t in turns])
            declarations[belief_id] = declaration.as_dict()
    if declarations:
        found.snapshot_belief_sources(session_id=str(session.id), declarations=declarations, at=at)
        uow.add(found)


Handler = Callable[[Any, UnitOfWork], Any]
HANDLERS: dict[type[Any], Handler] = {Declare: declare, Bind: bind, SayThrough: say_through}
