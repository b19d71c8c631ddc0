"""Commands: what a caller asks the store to do, as values.

Each has one row in the handler table (``memory_es/services/handlers.py``,
``handler_for``); ``Command[R]`` says what its handler returns.

This module defines what a session's hook runs on every turn (open, say); the others
(close, established facts, remember, reject, replay, re-derive, the idle sweep) are in
``memory_es/services/formation_commands.py`` and read here by name on first use, so a
turn builds two command classes, not eleven (light start-up: memory_es/startup.py,
2-3 ms of CPU a turn).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from memory_es.domain.values import DEFAULT_TENANT, Role
from memory_es.services.results import TurnReceipt

if TYPE_CHECKING:  # re-exported: read from formation_commands on first use
    from memory_es.services.formation_commands import CloseSession as CloseSession
    from memory_es.services.formation_commands import EstablishFacts as EstablishFacts
    from memory_es.services.formation_commands import RecordRemembered as RecordRemembered
    from memory_es.services.formation_commands import Rederive as Rederive
    from memory_es.services.formation_commands import RederivePrincipal as RederivePrincipal
    from memory_es.services.formation_commands import Reject as Reject
    from memory_es.services.formation_commands import Remember as Remember
    from memory_es.services.formation_commands import ReplaySession as ReplaySession
    from memory_es.services.formation_commands import SweepIdle as SweepIdle

R = TypeVar("R")

# The commands formation_commands.py defines, read as ``commands.<Name>`` (the path the
# facade, the batch paths and the tests use).
FORMATION_COMMANDS = frozenset(
    {
        "CloseSession",
        "EstablishFacts",
        "RecordRemembered",
        "Rederive",
        "RederivePrincipal",
        "Reject",
        "Remember",
        "ReplaySession",
        "SweepIdle",
    }
)

__all__ = ["Command", "OpenSession", "Say", *sorted(FORMATION_COMMANDS)]


def __getattr__(name: str) -> Any:
    if name in FORMATION_COMMANDS:
        from memory_es.services import formation_commands

        return getattr(formation_commands, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class Command(Generic[R]):
    """Base of every command; ``R`` is its handler's result."""


@dataclass(frozen=True)
class OpenSession(Command[str]):
    principal: str
    project: str | None = None
    tenant: str = DEFAULT_TENANT
    snapshot: bool = True  # take and record the session snapshot in the same save
    # The id to open it under, else a new one from the id port: ingest derives it from
    # the session key, so a re-run finds the session an earlier run wrote.
    session_id: str | None = None


@dataclass(frozen=True)
class Say(Command[TurnReceipt]):
    session_id: str
    text: str
    role: Role = Role.USER
