"""Correction lines: snapshot members that no longer hold, found past the watermark.

A member of the frozen session snapshot goes on being rendered in the cached prefix; a
correction line — in its own memory-trust message before the user turn — tells the model
it no longer holds, without rewriting that prefix.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from memory_es.domain.values import LIVE_STATUSES
from memory_es.ports import parse_iso
from memory_es.projections.base import RecallIndex
from memory_es.projections.records import BeliefRecord
from memory_es.retrieval.render import belief_tag


@dataclass(frozen=True)
class Correction:
    belief_id: str
    status: str
    valid_to: str | None
    successor_id: str | None
    position: int
    line: str


def render_correction(belief_id: str, valid_to: str | None, successor_id: str | None) -> str:
    """``correction: [m:…] no longer holds as of <valid_to>; superseded by [m:…].``

    The superseding clause is omitted when there is no successor; the ``as of`` clause
    when the belief carries no end of validity.
    """
    line = f"correction: {belief_tag(belief_id)} no longer holds"
    if valid_to:
        line += f" as of {valid_to}"
    if successor_id:
        line += f"; superseded by {belief_tag(successor_id)}"
    return line + "."


def no_longer_holds(record: BeliefRecord, now: datetime) -> bool:
    """Superseded, retired, rejected, deactivated — or past its end of validity."""
    if record.status not in LIVE_STATUSES:
        return True
    return record.valid_to is not None and parse_iso(record.valid_to) <= now


def corrections(
    index: RecallIndex, belief_ids: tuple[str, ...], *, watermark: int, now: datetime
) -> list[Correction]:
    """One line per snapshot member changed past the watermark, sorted by belief id."""
    found = []
    for belief_id in sorted(set(belief_ids)):
        record = index.get(belief_id)
        if record is None or record.position <= watermark or not no_longer_holds(record, now):
            continue
        found.append(
            Correction(
                belief_id=record.belief_id,
                status=record.status,
                valid_to=record.valid_to,
                successor_id=record.successor_id,
                position=record.position,
                line=render_correction(record.belief_id, record.valid_to, record.successor_id),
            )
        )
    return found
