"""The one ranking function: candidates in, scored and ordered beliefs out.

Deterministic: score descending, then store position descending, then belief id.
The retrieval issue replaces the score with the seed's full formula; callers and
adapters do not change when it does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from projections.records import BeliefRecord, Candidate

MATCH_WEIGHT = 1.0
CONFIDENCE_WEIGHT = 0.2
AUTHORITY_WEIGHT = 0.1


@dataclass(frozen=True)
class Scored:
    record: BeliefRecord
    score: float
    matched: int


def score(candidate: Candidate, query_size: int) -> float:
    b = candidate.record
    match = candidate.matched / query_size if query_size else 0.0
    return round(
        MATCH_WEIGHT * match
        + CONFIDENCE_WEIGHT * b.confidence
        + AUTHORITY_WEIGHT * b.authority / 3,
        9,
    )


def rank(candidates: Sequence[Candidate], query_size: int) -> list[Scored]:
    scored = [Scored(c.record, score(c, query_size), c.matched) for c in candidates]
    scored.sort(key=lambda s: (-s.score, -s.record.position, s.record.belief_id))
    return scored
