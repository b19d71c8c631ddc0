"""The lifecycle's commands, as values (the service layer's shape: memory_es/services/).

Each is handled by one function in ``memory_es/lifecycle/handlers.py`` in one unit of
work; the sweeps (``SweepDecay``, ``SweepL1``), each one command per principal, are in
``sweeps.py``.
"""

from __future__ import annotations

from dataclasses import dataclass

from memory_es.lifecycle.decay import Decay, DecayReport
from memory_es.lifecycle.l1 import L1Report
from memory_es.lifecycle.usage import UsageReceipt
from memory_es.projections.records import BeliefRecord
from memory_es.services.commands import Command


@dataclass(frozen=True)
class ApplyDecay(Command[tuple[list[str], list[str]]]):
    """One principal's share of a decay sweep: (decayed ids, retired ids)."""

    principal: str  # "tenant/principal"
    decays: tuple[Decay, ...]
    at: str


@dataclass(frozen=True)
class Deactivate(Command[list[str]]):
    """Deactivate these beliefs of one principal (L1 ``auto_decay:v1``): the ids done."""

    principal: str
    belief_ids: tuple[str, ...]
    reason: str
    at: str


@dataclass(frozen=True)
class EndSession(Command[list[str]]):
    """``session_end``: a closed session's session-tier beliefs leave the active surface."""

    session_id: str


@dataclass(frozen=True)
class Reactivate(Command[BeliefRecord]):
    belief_ref: str
    owner: str | None = None  # principal_key: a short id resolves only within it


@dataclass(frozen=True)
class SetPinned(Command[BeliefRecord]):
    belief_ref: str
    pinned: bool
    owner: str | None = None  # principal_key: a short id resolves only within it


@dataclass(frozen=True)
class Confirm(Command[BeliefRecord]):
    belief_ref: str
    owner: str | None = None  # principal_key: a short id resolves only within it


@dataclass(frozen=True)
class RecordUsage(Command[UsageReceipt]):
    session_id: str
    run_id: str
    final_message: str


@dataclass(frozen=True)
class SweepDecay(Command[DecayReport]):
    """The decay sweep over the store (``formation.scheduled_enabled``): one
    ``ApplyDecay`` per principal; ``dry_run`` writes nothing."""

    dry_run: bool = False


@dataclass(frozen=True)
class SweepL1(Command[L1Report]):
    """L1 reversible deactivation over the store (``lifecycle.l1.enabled``): one
    ``Deactivate`` per principal; ``dry_run`` writes nothing."""

    dry_run: bool = False
