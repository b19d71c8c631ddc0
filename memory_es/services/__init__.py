"""The service layer: commands, their handlers, units of work, the service runner.

    Memory (facade, app.py) ─► CommandBus.handle(command)        messagebus.py
        ─► run_retrying: a fresh UnitOfWork per attempt          unit_of_work.py
            ─► handler(command, uow)                             handlers.py
                ─► uow.sessions / uow.principals ─► domain ─► uow.commit()

Nothing here imports ``memory_es.app``; the facade imports this.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memory_es.services import commands
from memory_es.services.messagebus import CommandBus
from memory_es.services.results import TurnReceipt
from memory_es.services.unit_of_work import Adapters, BatchUnitOfWork, UnitOfWork

if TYPE_CHECKING:  # re-exported: read from formation_results on first use
    from memory_es.services.formation_results import FactsReceipt as FactsReceipt
    from memory_es.services.formation_results import IdleClosed as IdleClosed
    from memory_es.services.formation_results import IdleSweep as IdleSweep


def __getattr__(name: str) -> Any:
    # The formation commands' results, built on first use (services/results.py).
    if name in {"FactsReceipt", "IdleClosed", "IdleSweep"}:
        from memory_es.services import formation_results

        return getattr(formation_results, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "Adapters",
    "BatchUnitOfWork",
    "CommandBus",
    "FactsReceipt",
    "IdleClosed",
    "IdleSweep",
    "TurnReceipt",
    "UnitOfWork",
    "commands",
]
