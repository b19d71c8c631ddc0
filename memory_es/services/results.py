"""What a turn's command returns. What the other commands return (established facts,
the idle sweep, re-derivation) is in memory_es/services/formation_results.py, which a
turn never imports (light start-up: memory_es/startup.py).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["TurnReceipt"]


@dataclass(frozen=True)
class TurnReceipt:
    session_id: str
    turn_id: str
    seq: int
    trusted: bool
    redactions: tuple[str, ...]
    # Characters replaced (NUL, lone surrogates) or dropped (control characters).
    cleaned_characters: int = 0
