"""The service layer: commands, their handlers, units of work, the service runner.

    Memory (facade, app.py) ─► CommandBus.handle(command)      messagebus.py
        ─► run_retrying: a fresh UnitOfWork per attempt          unit_of_work.py
            ─► handler(command, uow)                             handlers.py
                ─► uow.sessions / uow.principals ─► domain ─► uow.commit()

Nothing here imports ``memory_es.app``; the facade imports this.
"""

from __future__ import annotations

from memory_es.services import commands
from memory_es.services.messagebus import CommandBus
from memory_es.services.results import TurnReceipt
from memory_es.services.unit_of_work import Adapters, BatchUnitOfWork, UnitOfWork

__all__ = [
    "Adapters",
    "BatchUnitOfWork",
    "CommandBus",
    "TurnReceipt",
    "UnitOfWork",
    "commands",
]
