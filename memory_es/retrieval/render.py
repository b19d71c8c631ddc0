"""The one renderer of belief lines: ``[m:xxxxxxxx] statement``."""

from __future__ import annotations

from collections.abc import Iterable

from memory_es.domain.values import short_id


def belief_tag(belief_id: str) -> str:
    return f"[m:{short_id(belief_id)}]"


def render_line(belief_id: str, statement: str, conflicts_with: Iterable[str] = ()) -> str:
    line = f"{belief_tag(belief_id)} {statement}"
    partners = sorted(f"m:{short_id(p)}" for p in conflicts_with)
    if partners:
        line += " conflicts=[" + ",".join(partners) + "]"
    return line
