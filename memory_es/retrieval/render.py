"""The one renderer of belief lines: ``[m:xxxxxxxx] statement``."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from memory_es.domain.values import short_id

if TYPE_CHECKING:
    from memory_es.formation.consolidation import ConsolidationResult
    from memory_es.projections.records import BeliefRecord


def belief_tag(belief_id: str) -> str:
    return f"[m:{short_id(belief_id)}]"


def render_line(belief_id: str, statement: str, conflicts_with: Iterable[str] = ()) -> str:
    line = f"{belief_tag(belief_id)} {statement}"
    partners = sorted(f"m:{short_id(p)}" for p in conflicts_with)
    if partners:
        line += " conflicts=[" + ",".join(partners) + "]"
    return line


def formation_lines(
    result: ConsolidationResult, get: Callable[[str], BeliefRecord | None]
) -> list[str]:
    """What a formation did, a line for each belief formed or superseded
    (``formed: [m:xxxxxxxx] statement``): what ``session close`` and the MCP
    ``close_session`` tool both show. ``get`` reads a belief from the read model."""
    return [
        f"{kind}: {render_line(r.belief_id, r.statement, r.conflicts_with)}"
        for kind, ids in (("formed", result.formed), ("superseded", result.superseded))
        for r in (get(b) for b in ids)
        if r is not None
    ]
