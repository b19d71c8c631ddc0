"""The service runner: a command in, its handler run in a fresh unit of work, retried.

``Services.handle`` is how every write reaches the domain: the ``Memory`` facade builds a
command and hands it here. Commands made of other commands — the remember tool (open,
record, close) and the idle sweep (one close per idle session) — are composed here, each
step its own transaction with its own retry. ``Services.run_batch`` is the bulk path's:
many commands in one ``BatchUnitOfWork``, flushed in one transaction, the whole batch
retried on a lost race.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import TYPE_CHECKING, Any, TypeVar, cast

from memory_es.domain.inputs import clean_text
from memory_es.domain.session import SESSION_IDLE_SECONDS
from memory_es.domain.values import GENERAL_SCOPE
from memory_es.errors import InvalidInput, SessionClosed
from memory_es.formation.hazards import screen
from memory_es.ports import Clock, iso
from memory_es.services import commands
from memory_es.services.handlers import SESSION_HANDLERS, close_session, handlers
from memory_es.services.unit_of_work import (
    Adapters,
    BatchUnitOfWork,
    SaveBatch,
    UnitOfWork,
    run_retrying,
)
from memory_es.unit_of_work import save_collected

if TYPE_CHECKING:
    from memory_es.formation.consolidation import ConsolidationResult
    from memory_es.services.formation_results import IdleSweep, RederiveReport

T = TypeVar("T")

IDLE_SWEEP_PAGE = 500


class Services:
    def __init__(self, adapters: Adapters) -> None:
        self.adapters = adapters

    @staticmethod
    def handler_for(command_type: type[Any]) -> Any:
        """Sessions' and formation's handlers, else the lifecycle's (decay, L1, pins,
        confirmation, usage): imported here because memory_es/lifecycle/ builds on this
        package, and on first use because they load the profile (pydantic), which a
        command such as `say` never needs."""
        handler = SESSION_HANDLERS.get(command_type) or handlers().get(command_type)
        if handler is None:
            from memory_es.lifecycle.handlers import HANDLERS as LIFECYCLE_HANDLERS

            handler = LIFECYCLE_HANDLERS[command_type]
        return handler

    def handle(self, command: commands.Command[T]) -> T:
        """Run ``command`` in its own unit of work (one transaction), retried on a race."""
        # A session's own commands first: a turn never loads the formation commands.
        handler = SESSION_HANDLERS.get(type(command))
        if handler is None:
            if isinstance(command, commands.Remember):
                return cast(T, self._remember(command))
            if isinstance(command, commands.SweepIdle):
                return cast(T, self._sweep_idle(command))
            if isinstance(command, commands.Rederive):
                return cast(T, self._rederive(command))
            handler = self.handler_for(type(command))
        result: Any = run_retrying(
            lambda: UnitOfWork(self.adapters), lambda uow: handler(command, uow)
        )
        if handler is close_session and result.formed:
            # Near-duplicate alignment on write, opt-in (memory_es/review/alignment.py).
            from memory_es.review.hooks import align_formed

            align_formed(self, result)
        return cast(T, result)

    def run_batch(
        self,
        work: Callable[[BatchUnitOfWork], T],
        *,
        clock: Clock | None = None,
        save: SaveBatch = save_collected,
    ) -> T:
        """Run ``work`` (many commands, ``handlers.handle_in``) in one batch, then flush it
        in one transaction; on a lost race the whole batch runs again on fresh state."""

        def attempt(uow: BatchUnitOfWork) -> T:
            result = work(uow)
            uow.flush()
            return result

        return run_retrying(lambda: BatchUnitOfWork(self.adapters, clock=clock, save=save), attempt)

    # -- commands made of commands -----------------------------------------------------------

    def _remember(self, cmd: commands.Remember) -> ConsolidationResult:
        """The remember tool: the statement is its own evidence, formed at AFFIRMED (at
        USER ``from_user``: a statement the user made to memory directly)."""
        if not cmd.text or not cmd.text.strip():
            raise InvalidInput("remember needs a non-empty statement")
        screened = screen(clean_text(cmd.text, what="a statement to remember"))
        session_id = self.handle(
            commands.OpenSession(cmd.principal, project=cmd.project, tenant=cmd.tenant)
        )
        self.handle(commands.RecordRemembered(session_id, screened, from_user=cmd.from_user))
        return self.handle(commands.CloseSession(session_id, trigger="remember"))

    def _sweep_idle(self, cmd: commands.SweepIdle) -> IdleSweep:
        """Close every session idle past the boundary, each at its own project scope."""
        index = self.adapters.index
        boundary = iso(self.adapters.clock.now() - timedelta(seconds=SESSION_IDLE_SECONDS))
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
                        result = self.handle(commands.CloseSession(row.session_id, "idle"))
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

    def _rederive(self, cmd: commands.Rederive) -> RederiveReport:
        """Every principal's (or one's) stale sessions, one transaction per principal:
        an interrupted run leaves whole principals done (their sessions recorded under
        the current policy, so skipped when it runs again) and nothing of the rest."""
        from memory_es.policy import formation_key
        from memory_es.services.formation_results import RederiveReport
        from memory_es.services.ledger import formation_ledger

        with self.adapters.lock:
            self.adapters.runner.catch_up()
            ledgers = list(formation_ledger(self.adapters.app).values())
            current = formation_key(self.adapters.extractor.name)
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
                    self.handle(
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
