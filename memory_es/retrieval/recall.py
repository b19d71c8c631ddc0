"""Current-state recall over the recall index: choose candidates, rank, cut to budget."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from memory_es.retrieval.conflicts import with_conflict_partners
from memory_es.retrieval.ranking import Scored, rank
from memory_es.retrieval.render import render_line
from memory_es.retrieval.tokenizer import query_terms
from projections.base import RecallIndex


def candidate_cap(max_items: int) -> int:
    """How many candidates ranking sees (seed: max(max_items * 8, 64))."""
    return max(max_items * 8, 64)


@dataclass(frozen=True)
class RecallResult:
    query: str
    terms: tuple[str, ...]
    items: tuple[Scored, ...]

    def lines(self) -> list[str]:
        return [
            render_line(s.record.belief_id, s.record.statement, s.record.conflicts_with)
            for s in self.items
        ]


def recall(
    index: RecallIndex, principal: str, query: str, *, project: str, limit: int
) -> RecallResult:
    terms = query_terms(query)
    candidates = index.candidates(principal, terms, project=project, cap=candidate_cap(limit))
    ranked = rank(candidates, len(terms))
    items = with_conflict_partners(index, ranked[:limit], principal=principal, project=project)
    return RecallResult(query=query, terms=tuple(terms), items=tuple(items))


def recall_without_text(
    index: RecallIndex,
    principal: str,
    *,
    project: str,
    limit: int,
    min_position: int = 0,
    max_position: int | None = None,
    belief_types: Sequence[str] | None = None,
    exclude: Sequence[str] = (),
) -> RecallResult:
    """A recall with no query text, ranked without a match term (context, issue 5).

    The session snapshot (durable types, positions up to the watermark) and the recall
    delta (positions past the watermark, the base recall's ids excluded before the
    candidate cap) are this recall; both reach the index through ``recent_candidates``.
    """
    if limit < 1:
        return RecallResult(query="", terms=(), items=())
    candidates = index.recent_candidates(
        principal,
        project=project,
        cap=candidate_cap(limit),
        min_position=min_position,
        max_position=max_position,
        belief_types=belief_types,
        exclude=exclude,
    )
    ranked = rank(candidates, 0)
    return RecallResult(query="", terms=(), items=tuple(ranked[:limit]))
