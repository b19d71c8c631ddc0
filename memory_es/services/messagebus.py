"""The command bus: every command in by one door, ``CommandBus.handle``.

The bus looks the command's class up in the one handler table (``handlers.handler_for``)
and runs what it finds: a handler of one unit of work in a fresh ``UnitOfWork`` under
``run_retrying`` (the one retry loop), a ``Composite`` (a command made of commands:
remember, the idle sweep, re-derivation, the decay and L1 sweeps) with the bus itself,
each of its steps a ``handle`` of its own. ``CommandBus.run_batch`` is the bulk path's:
many commands in one ``BatchUnitOfWork``, flushed in one transaction, the whole batch
retried on a lost race.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

from memory_es.es_internals import save_collected
from memory_es.ports import Clock
from memory_es.services import commands
from memory_es.services.handlers import Composite, close_session, handler_for
from memory_es.services.unit_of_work import (
    Adapters,
    BatchUnitOfWork,
    SaveBatch,
    UnitOfWork,
    run_retrying,
)

T = TypeVar("T")


class CommandBus:
    def __init__(self, adapters: Adapters) -> None:
        self.adapters = adapters

    def handle(self, command: commands.Command[T]) -> T:
        """Run ``command``'s handler: one unit of work (one transaction) retried on a
        race, or a composite's steps, each its own ``handle``."""
        handler = handler_for(type(command))
        if isinstance(handler, Composite):
            return cast(T, handler.run(command, self))
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
