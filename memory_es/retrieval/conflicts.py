"""Conflict partners surface together (seed: conflicts are surfaced, not resolved).

When recall returns one side of a conflict, the other side comes with it, past the item
budget and any per-subject cap, so the user sees both statements and the link
``conflicts=[m:xxxxxxxx]`` between them. Only live partners visible from the query's
project are added; they rank after everything the budget chose, in their partner's order.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from memory_es.projections.base import RecallIndex
from memory_es.projections.candidates import LIVE
from memory_es.retrieval.ranking import Offered, Scored, rank

if TYPE_CHECKING:
    from memory_es.profiles import RetrievalProfile


def with_conflict_partners(
    index: RecallIndex,
    items: Sequence[Scored],
    *,
    principal: str,
    project: str,
    now: datetime,
    profile: RetrievalProfile,
) -> list[Scored]:
    """Partners are scored by the one ranking function (no match term) and appended."""
    out = list(items)
    present = {s.record.belief_id for s in out}
    for scored in items:
        for partner_id in sorted(scored.record.conflicts_with):
            if partner_id in present:
                continue
            partner = index.get(partner_id)
            if (
                partner is None
                or partner.principal != principal
                or partner.status not in LIVE
                or not (partner.project == project or partner.portable)
            ):
                continue
            present.add(partner_id)
            out.extend(rank([Offered(partner)], now=now, project=project, profile=profile))
    return out
