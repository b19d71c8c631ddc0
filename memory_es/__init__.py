"""memory_es: event-sourced, governed long-term memory for LLM agents."""

from memory_es.app import Memory, ProjectionStatus, TurnReceipt, open
from memory_es.formation.established import EstablishedFact
from memory_es.ports import FixedClock, RandomIds, SequentialIds, SystemClock

__all__ = [
    "EstablishedFact",
    "FixedClock",
    "Memory",
    "ProjectionStatus",
    "RandomIds",
    "SequentialIds",
    "SystemClock",
    "TurnReceipt",
    "open",
]
__version__ = "0.1.0"
