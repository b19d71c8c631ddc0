"""Formation's commands now live in the service layer (``memory_es/services/``):
handlers in ``services/handlers.py``, the remember tool and the idle sweep in
``services/messagebus.py``. The names other modules imported from here stay importable.
"""

from __future__ import annotations

from memory_es.services.formation_results import FactsReceipt, IdleClosed, IdleSweep
from memory_es.services.handlers import consolidate_session, find_belief
from memory_es.services.messagebus import IDLE_SWEEP_PAGE

__all__ = [
    "IDLE_SWEEP_PAGE",
    "FactsReceipt",
    "IdleClosed",
    "IdleSweep",
    "consolidate_session",
    "find_belief",
]
