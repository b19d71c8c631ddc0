"""Formation's commands on a store: close and consolidate, established facts, remember,
durable rejection, governed replay and the idle sweep.

``memory_es.app.Memory`` exposes each as a thin method; the work is here. Every command
runs under the store's write lock with its optimistic-concurrency retry, and saves the
session and principal aggregates it touched in one transaction.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING, Any
from uuid import UUID

from memory_es.domain.principal import PrincipalMemory
from memory_es.domain.session import SESSION_IDLE_SECONDS, Session
from memory_es.domain.values import (
    DEFAULT_TENANT,
    GENERAL_SCOPE,
    Authority,
    Role,
    Status,
)
from memory_es.errors import InvalidInput, SessionClosed, UnknownBelief, UsageError
from memory_es.formation.consolidation import ConsolidationResult, consolidate
from memory_es.formation.established import EstablishedFact, established_proposals
from memory_es.formation.extractor import SourceTurn
from memory_es.formation.hazards import screen
from memory_es.policy import formation_policy
from memory_es.ports import iso
from projections.records import BeliefRecord

if TYPE_CHECKING:
    from memory_es.app import Memory

_SHORT_ID = re.compile(r"^(?:\[?m:)?([0-9a-f]{8})\]?$")
IDLE_SWEEP_PAGE = 500


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


# -- consolidation over one session ------------------------------------------------------


def consolidate_session(
    memory: Memory,
    session: Session,
    principal: PrincipalMemory,
    *,
    trigger: str,
    now: str,
) -> ConsolidationResult:
    """Formation over the session's original events, at the session's own project."""
    events = list(memory.session_events(session.id))
    turn_events = [e for e in events if isinstance(e, Session.TurnRecorded)]
    turns = [
        SourceTurn(
            turn_id=e.turn_id, seq=e.seq, role=e.role, text=e.text, trusted=e.trusted, at=e.at
        )
        for e in turn_events
    ]
    facts = [
        EstablishedFact(
            statement=str(f.get("statement", "")),
            source_event_ids=tuple(str(i) for i in _as_list(f.get("source_event_ids"))),
        )
        for e in events
        if isinstance(e, Session.FactsEstablished)
        for f in e.facts
    ]
    admitted, refused_facts = established_proposals(facts, turns)
    return consolidate(
        principal,
        session_id=str(session.id),
        project=session.project,
        turns=turns,
        redactions=sum(len(e.redactions) for e in turn_events),
        refused=sum(1 for e in turn_events if e.hazards),
        proposals=memory.extractor.extract(turns),
        authority=Authority.USER,
        now=now,
        ids=memory.ids,
        trigger=trigger,
        extractor=memory.extractor.name,
        established=admitted,
        established_refused=refused_facts,
    )


def close_session(memory: Memory, session_id: str, *, trigger: str) -> ConsolidationResult:
    def command() -> ConsolidationResult:
        session = memory._get_session(session_id)
        now = iso(memory.clock.now())
        session.close(at=now, trigger=trigger)
        principal = memory._get_or_create_principal(session.tenant, session.principal)
        result = consolidate_session(memory, session, principal, trigger=trigger, now=now)
        memory._save(session, principal)
        return result

    return memory._command(command)


# -- established facts and the remember tool ---------------------------------------------


def establish_facts(
    memory: Memory, session_id: str, facts: Sequence[EstablishedFact]
) -> FactsReceipt:
    """Record facts established in an open session; formation admits them at close."""
    if not facts:
        raise InvalidInput("establish at least one fact")
    recorded: list[dict[str, Any]] = []
    for fact in facts:
        screened = screen(fact.statement)
        if screened.injection:
            continue  # an instruction is not a fact; it never reaches formation
        recorded.append(
            {"statement": screened.text, "source_event_ids": list(fact.source_event_ids)}
        )

    def command() -> FactsReceipt:
        session = memory._get_session(session_id)
        if recorded:
            session.establish_facts(facts=recorded, at=iso(memory.clock.now()))
            memory._save(session)
        turns = memory.session_turns(session_id)
        admissible, _ = established_proposals(
            [EstablishedFact(str(f["statement"]), tuple(f["source_event_ids"])) for f in recorded],
            turns,
        )
        return FactsReceipt(str(session.id), len(recorded), len(admissible))

    return memory._command(command)


def remember(
    memory: Memory,
    principal: str,
    text: str,
    *,
    project: str | None = None,
    tenant: str = DEFAULT_TENANT,
) -> ConsolidationResult:
    """The remember tool: the statement is its own evidence, formed at AFFIRMED."""
    if not text or not text.strip():
        raise InvalidInput("remember needs a non-empty statement")
    screened = screen(text)
    session_id = memory.open_session(principal, project=project, tenant=tenant)

    def record() -> str:
        session = memory._get_session(session_id)
        turn_id = memory.ids.new_id()
        session.record_turn(
            turn_id=turn_id,
            role=Role.TOOL.value,
            text=screened.text,
            trusted=not screened.injection,
            at=iso(memory.clock.now()),
            redactions=list(screened.redactions),
            hazards=list(screened.hazards),
        )
        session.establish_facts(
            facts=[{"statement": screened.text, "source_event_ids": [turn_id]}],
            at=iso(memory.clock.now()),
        )
        memory._save(session)
        return turn_id

    memory._command(record)
    return close_session(memory, session_id, trigger="remember")


# -- durable rejection --------------------------------------------------------------------


def find_belief(memory: Memory, ref: str) -> BeliefRecord:
    """A full belief id, or its eight-hex short id (``[m:xxxxxxxx]`` accepted)."""
    text = (ref or "").strip().lower()
    m = _SHORT_ID.match(text)
    if m is not None:
        rows = memory.index.find_by_short_id(m.group(1))
        if len(rows) > 1:
            raise UsageError(
                f"short id {m.group(1)} is ambiguous ({len(rows)} beliefs): use the full id"
            )
        if not rows:
            raise UnknownBelief(ref)
        return rows[0]
    try:
        belief_id = str(UUID(text))
    except ValueError:
        raise UnknownBelief(ref) from None
    record = memory.index.get(belief_id)
    if record is None:
        raise UnknownBelief(ref)
    return record


def reject(memory: Memory, ref: str) -> BeliefRecord:
    """Durable user rejection: out of recall now, and never formed again."""
    record = find_belief(memory, ref)
    tenant, _, name = record.principal.partition("/")

    def command() -> BeliefRecord:
        principal = memory._get_or_create_principal(tenant, name)
        if principal.status_of(record.belief_id) is not Status.REJECTED:
            principal.reject_belief(
                belief_id=record.belief_id,
                at=iso(memory.clock.now()),
                policy=formation_policy(),
            )
            memory._save(principal)
        current = memory.index.get(record.belief_id)
        assert current is not None
        return current

    return memory._command(command)


# -- governed replay ------------------------------------------------------------------------


def replay(memory: Memory, session_id: str, *, confirm: bool) -> ConsolidationResult:
    """Re-consolidate a closed session from its original turns under today's policy.

    Opt-in: refused without ``confirm``. Rejections are consulted before anything
    commits, so nothing the user rejected returns; evidence no newer than the belief
    standing in its place conflicts with it rather than reverting it."""
    if not confirm:
        raise UsageError(
            "replay re-runs formation over the session's original turns under the current"
            " policy; it is opt-in: pass --confirm (confirm=True) to do it"
        )

    def command() -> ConsolidationResult:
        session = memory._get_session(session_id)
        if not session.is_closed:
            raise UsageError(f"session {session_id} is open: close it, which runs formation")
        principal = memory._get_or_create_principal(session.tenant, session.principal)
        now = iso(memory.clock.now())
        result = consolidate_session(memory, session, principal, trigger="replay", now=now)
        memory._save(principal)
        return result

    return memory._command(command)


# -- the idle sweep -------------------------------------------------------------------------


def sweep_idle(memory: Memory, *, dry_run: bool = False) -> IdleSweep:
    """Close every session idle past the boundary, each at its own project scope."""
    boundary = iso(memory.clock.now() - timedelta(seconds=SESSION_IDLE_SECONDS))
    sweep = IdleSweep(boundary=boundary, dry_run=dry_run)
    seen: set[str] = set()
    while True:
        page = [
            r
            for r in memory.index.idle_sessions(
                last_activity_before=boundary, limit=IDLE_SWEEP_PAGE + len(seen)
            )
            if r.session_id not in seen
        ]
        if not page:
            return sweep
        for row in page:
            seen.add(row.session_id)
            result = None
            if not dry_run:
                try:
                    result = close_session(memory, row.session_id, trigger="idle")
                except SessionClosed:
                    continue  # closed by someone else since the read
            sweep.closed.append(
                IdleClosed(
                    session_id=row.session_id,
                    principal=row.principal,
                    project=row.project or GENERAL_SCOPE,
                    last_activity_at=row.last_activity_at,
                    result=result,
                )
            )
        if dry_run and len(page) < IDLE_SWEEP_PAGE:
            return sweep


def _as_list(value: object) -> list[object]:
    return list(value) if isinstance(value, list | tuple) else []
