"""Commands made of commands: each step runs through the bus (``CommandBus.handle``),
its own unit of work with its own retry, so an interrupted run leaves whole steps done.

The remember tool (open, record, close: three transactions), the idle sweep (one close
per idle session) and re-derivation (one ``RederivePrincipal`` per principal with stale
sessions). They are entries of the one handler table (``services/handlers.py``) like
every other command.
"""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING

from memory_es.domain.inputs import clean_text
from memory_es.domain.session import SESSION_IDLE_SECONDS
from memory_es.domain.values import GENERAL_SCOPE
from memory_es.errors import InvalidInput, SessionClosed
from memory_es.formation.hazards import screen
from memory_es.ports import iso
from memory_es.services import commands

if TYPE_CHECKING:
    from memory_es.formation.consolidation import ConsolidationResult
    from memory_es.services.formation_results import IdleSweep, RederiveReport
    from memory_es.services.messagebus import CommandBus

IDLE_SWEEP_PAGE = 500


def remember(cmd: commands.Remember, bus: CommandBus) -> ConsolidationResult:
    """The remember tool: the statement is its own evidence, formed at AFFIRMED (at
    USER ``from_user``: a statement the user made to memory directly)."""
    if not cmd.text or not cmd.text.strip():
        raise InvalidInput("remember needs a non-empty statement")
    screened = screen(clean_text(cmd.text, what="a statement to remember"))
    session_id = bus.handle(
        commands.OpenSession(cmd.principal, project=cmd.project, tenant=cmd.tenant)
    )
    bus.handle(commands.RecordRemembered(session_id, screened, from_user=cmd.from_user))
    return bus.handle(commands.CloseSession(session_id, trigger="remember"))


def sweep_idle(cmd: commands.SweepIdle, bus: CommandBus) -> IdleSweep:
    """Close every session idle past the boundary, each at its own project scope."""
    index = bus.adapters.index
    boundary = iso(bus.adapters.clock.now() - timedelta(seconds=SESSION_IDLE_SECONDS))
    from memory_es.services.formation_results import IdleClosed, IdleSweep

    sweep = IdleSweep(boundary=boundary, dry_run=cmd.dry_run)
    seen: set[str] = set()
    while True:
        page = [
            r
            for r in index.idle_sessions(
                last_activity_before=boundary, limit=IDLE_SWEEP_PAGE + len(seen)
            )
            if r.session_id not in seen
        ]
        if not page:
            return sweep
        for row in page:
            seen.add(row.session_id)
            result = None
            if not cmd.dry_run:
                try:
                    result = bus.handle(commands.CloseSession(row.session_id, "idle"))
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
        if cmd.dry_run and len(page) < IDLE_SWEEP_PAGE:
            return sweep


def rederive(cmd: commands.Rederive, bus: CommandBus) -> RederiveReport:
    """Every principal's (or one's) stale sessions, one transaction per principal:
    an interrupted run leaves whole principals done (their sessions recorded under
    the current policy, so skipped when it runs again) and nothing of the rest."""
    from memory_es.policy import formation_key
    from memory_es.services.formation_results import RederiveReport
    from memory_es.services.ledger import formation_ledger

    with bus.adapters.lock:
        bus.adapters.runner.catch_up()
        ledgers = list(formation_ledger(bus.adapters.app).values())
        current = formation_key(bus.adapters.extractor.name)
    if cmd.principal is not None:
        wanted = f"{cmd.tenant}/{cmd.principal.strip()}"
        ledgers = [ledger for ledger in ledgers if ledger.key == wanted]
        if not ledgers:
            raise InvalidInput(f"unknown principal: {cmd.principal.strip()} has no memory")
    report = RederiveReport(policy=current, dry_run=not cmd.confirm)
    total = sum(len(ledger.sessions) for ledger in ledgers)
    done = 0
    for ledger in ledgers:
        stale = ledger.stale(current)
        skipped = len(ledger.sessions) - len(stale)
        report.sessions_skipped += skipped
        if stale:
            report.principals.append(
                bus.handle(
                    commands.RederivePrincipal(
                        ledger.tenant,
                        ledger.principal,
                        tuple(stale),
                        skipped=skipped,
                        confirm=cmd.confirm,
                        seen_version=ledger.version,
                    )
                )
            )
        done += len(ledger.sessions)
        if cmd.progress is not None:
            cmd.progress(done, total)
    return report
