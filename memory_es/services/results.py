"""What command handlers return (beside formation's ``ConsolidationResult``).

A turn's receipt is defined here; what the formation commands return (established
facts, the idle sweep, re-derivation) is in memory_es/services/formation_results.py and
read here by name on first use, so ``memory-es session say`` builds one result class,
not five (issue 18).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # re-exported: read from formation_results on first use
    from memory_es.services.formation_results import FactsReceipt as FactsReceipt
    from memory_es.services.formation_results import IdleClosed as IdleClosed
    from memory_es.services.formation_results import IdleSweep as IdleSweep
    from memory_es.services.formation_results import RederiveReport as RederiveReport

_FORMATION_RESULTS = frozenset({"FactsReceipt", "IdleClosed", "IdleSweep", "RederiveReport"})

__all__ = ["FactsReceipt", "IdleClosed", "IdleSweep", "RederiveReport", "TurnReceipt"]


def __getattr__(name: str) -> Any:
    if name in _FORMATION_RESULTS:
        from memory_es.services import formation_results

        return getattr(formation_results, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@dataclass(frozen=True)
class TurnReceipt:
    session_id: str
    turn_id: str
    seq: int
    trusted: bool
    redactions: tuple[str, ...]
    # Characters replaced (NUL, lone surrogates) or dropped (control characters).
    cleaned_characters: int = 0
