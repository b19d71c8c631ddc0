"""The commands beside a session's open and turns (memory_es/services/commands.py):
closing and consolidating, established facts, the remember tool, durable rejection,
governed replay, re-derivation and the idle sweep. ``commands.<Name>`` reads each of
them here; their handlers are in memory_es/services/handlers.py.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from memory_es.domain.values import DEFAULT_TENANT
from memory_es.projections.records import BeliefRecord
from memory_es.services.commands import Command
from memory_es.services.formation_results import FactsReceipt, IdleSweep

if TYPE_CHECKING:
    # Quoted where a command names them as its result: a command module that imported
    # formation would load it for every command.
    from memory_es.formation.consolidation import ConsolidationResult  # noqa: F401
    from memory_es.formation.established import EstablishedFact
    from memory_es.formation.hazards import Screened
    from memory_es.formation.rederive import Rederivation  # noqa: F401
    from memory_es.services.formation_results import RederiveReport  # noqa: F401


@dataclass(frozen=True)
class CloseSession(Command["ConsolidationResult"]):
    session_id: str
    trigger: str = "session_close"


@dataclass(frozen=True)
class EstablishFacts(Command[FactsReceipt]):
    session_id: str
    facts: Sequence[EstablishedFact]


@dataclass(frozen=True)
class Remember(Command["ConsolidationResult"]):
    principal: str
    text: str
    project: str | None = None
    tenant: str = DEFAULT_TENANT
    from_user: bool = False  # a statement the user made to memory directly: USER


@dataclass(frozen=True)
class RecordRemembered(Command[str]):
    """Step two of ``Remember``: its tool turn, which is its own established fact."""

    session_id: str
    screened: Screened
    from_user: bool = False


@dataclass(frozen=True)
class Reject(Command[BeliefRecord]):
    belief_ref: str  # a full belief id or an eight-hex short id
    owner: str | None = None  # principal_key: a short id resolves only within it


@dataclass(frozen=True)
class ReplaySession(Command["ConsolidationResult"]):
    session_id: str
    confirm: bool = False


@dataclass(frozen=True)
class Rederive(Command["RederiveReport"]):
    """Re-derive every closed session of ``principal`` (None: of every principal) that
    was consolidated under another formation policy; a dry run unless ``confirm``.
    One ``RederivePrincipal`` per principal (messagebus.py); ``progress(done, total)``
    is told after each principal how many of the sessions it has examined or skipped."""

    principal: str | None = None
    tenant: str = DEFAULT_TENANT
    confirm: bool = False
    # Where the caller shows progress (a bar): not part of what is asked.
    progress: Callable[[int, int], None] | None = field(default=None, compare=False)


@dataclass(frozen=True)
class RederivePrincipal(Command["Rederivation"]):
    """Step of ``Rederive``: one principal's stale sessions, in order, in one
    transaction (nothing is written unless ``confirm``)."""

    tenant: str
    principal: str
    session_ids: tuple[str, ...]
    skipped: int = 0
    confirm: bool = False
    # The principal's version when its ledger was read: a session consolidated under the
    # current policy since (another run, or this one's retried attempt) is skipped.
    seen_version: int = 0


@dataclass(frozen=True)
class SweepIdle(Command[IdleSweep]):
    """Close every session idle past the boundary (one ``CloseSession`` each)."""

    dry_run: bool = False
