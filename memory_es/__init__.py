"""memory_es: event-sourced, governed long-term memory for LLM agents."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    __version__: str
    from memory_es.app import Memory, TurnReceipt
    from memory_es.bootstrap import open
    from memory_es.formation.established import EstablishedFact
    from memory_es.ports import FixedClock, RandomIds, SequentialIds, SystemClock
    from memory_es.views import ProjectionStatus

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

# Imported on first use (PEP 562), so `memory-es --help` and other light entry points do
# not pay for eventsourcing, the tokenizer and the database drivers at start-up (light
# start-up: memory_es/startup.py; importing memory_es.app eagerly would cost every
# command the whole store stack).
_LAZY = {
    "EstablishedFact": "memory_es.formation.established",
    "Memory": "memory_es.app",
    "ProjectionStatus": "memory_es.views",
    "TurnReceipt": "memory_es.app",
    "open": "memory_es.bootstrap",
    "FixedClock": "memory_es.ports",
    "RandomIds": "memory_es.ports",
    "SequentialIds": "memory_es.ports",
    "SystemClock": "memory_es.ports",
}


def __getattr__(name: str) -> Any:
    if name == "__version__":
        # The distribution's metadata is the one place the version is written
        # (pyproject.toml); read on first use, so start-up does not pay for it.
        from importlib.metadata import version

        globals()[name] = version("memory-es")
        return globals()[name]
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'memory_es' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(module), name)
    globals()[name] = value
    return value
