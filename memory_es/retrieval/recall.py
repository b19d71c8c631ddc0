"""Current-state (and as-of) recall: validity, candidates, fusion, ranking, budget, trace.

    query former ─► lexical arm (BM25 candidates, validity filtered in the query) ─┐
                 └► vector arm (optional; same validity filter) ──────────────────┴► RRF
      ─► ranking (ranking.py) ─► selection (duplicates, subject cap, durable share,
         budget) ─► belief lines (render.py) + a recall trace (operational record)

Validity comes first: superseded, retired, rejected and deactivated beliefs never reach
fusion or ranking in a current-state read; unresolved conflicts are kept and labelled.
``as_of`` reads what was believed at an instant (valid_from <= t < valid_to), and
``include_superseded`` reads every belief that was ever current; only those two reach
rows whose validity has closed, which the stale penalty then demotes.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from memory_es.policy import retrieval_policy
from memory_es.ports import Clock, IdGenerator, instant_second, iso, parse_iso, second_key
from memory_es.projections.base import RecallIndex
from memory_es.projections.candidates import HISTORICAL, LIVE, Bm25Params
from memory_es.projections.traces import TraceRecord, TraceStore
from memory_es.projections.vectors import Embedder
from memory_es.retrieval.conflicts import with_conflict_partners
from memory_es.retrieval.quality import (
    CURRENT_INTENT_WORDS,
    EvidenceOf,
    FreshnessOf,
    RankingTrace,
    bounded_reorder,
    freshness,
    freshness_eligible,
)
from memory_es.retrieval.query import FormedQuery, form_query
from memory_es.retrieval.ranking import Scored, Selection, fuse, rank, select
from memory_es.retrieval.render import render_line

if TYPE_CHECKING:
    from memory_es.profiles import MemoryProfile
    from memory_es.projections.records import BeliefRecord


def candidate_cap(max_items: int) -> int:
    """How many candidates ranking sees (seed: max(max_items * 8, 64))."""
    return max(max_items * 8, 64)


@dataclass(frozen=True)
class RecallQuery:
    principal: str  # "tenant/principal"
    text: str
    project: str
    limit: int = 10
    as_of: datetime | None = None
    include_superseded: bool = False
    min_position: int = 0  # a delta read: only positions past a watermark
    exclude: tuple[str, ...] = ()  # belief ids an earlier block already returned
    match_all: bool = False  # no query text: every valid row, newest first (priming)
    kind: str = "recall"
    session_id: str | None = None


@dataclass(frozen=True)
class RecallResult:
    query: str
    terms: tuple[str, ...]
    items: tuple[Scored, ...]
    trace_id: str | None = None
    as_of: str | None = None
    now: str = ""
    policy: str = field(default_factory=retrieval_policy)
    boost: tuple[str, ...] = ()
    dropped: tuple[Scored, ...] = ()
    blocked: tuple[tuple[Scored, str], ...] = ()
    ranking_trace: RankingTrace | None = None  # only with quality_reorder_enabled

    def lines(self) -> list[str]:
        return [
            render_line(s.record.belief_id, s.record.statement, s.record.conflicts_with)
            for s in self.items
        ]


class Retriever:
    def __init__(
        self,
        index: RecallIndex,
        traces: TraceStore,
        *,
        profile: MemoryProfile,
        clock: Clock,
        ids: IdGenerator,
        embedder: Embedder | None = None,
        evidence_of: EvidenceOf | None = None,
    ) -> None:
        self.index = index
        self.traces = traces
        self.profile = profile
        self.clock = clock
        self.ids = ids
        self.embedder = embedder
        # Each belief's source evidence declaration (memory_es/evidence/): the quality
        # reorder reads it, and stays off for a pool without valid ones.
        self.evidence_of = evidence_of

    def over(self, index: RecallIndex) -> Retriever:
        """This retriever (its profile, clock, vector arm and ranking) reading another
        read model: a past one folded from the log (``recall --as-of-position``)."""
        return Retriever(
            index,
            self.traces,
            profile=self.profile,
            clock=self.clock,
            ids=self.ids,
            embedder=self.embedder,
            evidence_of=self.evidence_of,
        )

    def freshness_hint(self, q: RecallQuery, temporal: bool, now: datetime) -> FreshnessOf | None:
        """The reorder's freshness hint for this query: None (neutral) unless alpha is
        below 1 and the query asks about the present or when (current or temporal intent)."""
        p = self.profile.retrieval
        alpha, half_life = p.quality_freshness_alpha, p.quality_freshness_half_life_days
        if alpha >= 1.0:
            return None
        from memory_es.retrieval.tokenizer import lexemes

        if not temporal and not CURRENT_INTENT_WORDS.intersection(lexemes(q.text)):
            return None

        def fresh(record: BeliefRecord) -> float:
            if not freshness_eligible(record) or not record.valid_from:
                return 1.0  # ineligible, or unknown time: neutral
            age = (now - parse_iso(record.valid_from)).total_seconds() / 86400
            return freshness(age, alpha=alpha, half_life_days=half_life)

        return fresh

    def recall(
        self, q: RecallQuery, *, now: datetime | None = None, traced: bool = True
    ) -> RecallResult:
        """Recall for ``q`` at ``now`` (default: this retriever's clock, read once).

        ``traced=False`` records no recall trace (the context pack's base recall: the
        pack is its own record of what it returned)."""
        started = time.perf_counter()
        p = self.profile.retrieval
        formed = (
            FormedQuery(text=q.text, project=q.project, terms=(), boost=())
            if q.match_all
            else form_query(q.text, project=q.project)
        )
        clock_now = now or self.clock.now()
        now = q.as_of or clock_now  # taken once per recall
        as_of = instant_second(q.as_of) if q.as_of is not None else None
        as_of_key = second_key(as_of) if as_of is not None else None
        statuses = HISTORICAL if (q.as_of is not None or q.include_superseded) else LIVE
        cap = candidate_cap(q.limit)
        lexical = self.index.candidates(
            q.principal,
            formed.terms,
            boost=formed.boost,
            project=q.project,
            cap=cap,
            min_position=q.min_position,
            statuses=statuses,
            as_of=as_of_key,
            exclude=q.exclude,
            bm25=Bm25Params(k1=p.bm25.k1, b=p.bm25.b),
            match_all=q.match_all,
        )
        lexical_done = time.perf_counter()
        vector = None
        if p.semantic_enabled and self.embedder is not None and not formed.empty:
            (query_vector,) = self.embedder.embed([q.text])
            vector = self.index.vector_candidates(
                q.principal,
                query_vector,
                project=q.project,
                cap=cap,
                min_position=q.min_position,
                statuses=statuses,
                as_of=as_of_key,
                exclude=q.exclude,
            )
        vector_done = time.perf_counter()
        offered = fuse(
            [(c.record, c.matched, c.lexical) for c in lexical],
            vector,
            k=p.reciprocal_rank_fusion_k,
            cap=cap,
        )
        ranked = rank(
            offered,
            now=now,
            project=q.project,
            profile=p,
            temporal=formed.temporal,
            period=formed.period,
        )
        selection = select(
            ranked,
            limit=q.limit,
            profile=p,
            hold_durable=q.match_all,
            query_terms=formed.asked,
            quantity=formed.quantity,
        )
        if statuses == LIVE:
            # The other side of a returned conflict comes with it, past the budget.
            partners = with_conflict_partners(
                self.index,
                selection.items,
                principal=q.principal,
                project=q.project,
                now=now,
                profile=p,
            )
            selection = replace(selection, items=tuple(partners))
        ranking_trace = None
        if p.quality_reorder_enabled:
            reordered, ranking_trace = bounded_reorder(
                selection.items, self.evidence_of, self.freshness_hint(q, formed.temporal, now)
            )
            selection = replace(selection, items=tuple(reordered))
        done = time.perf_counter()
        trace_id = None
        if traced and self.profile.trace.enabled:
            trace_id = self._trace(
                q,
                selection,
                created=clock_now,
                as_of=as_of,
                lexical_ms=(lexical_done - started) * 1000,
                vector_ms=(vector_done - lexical_done) * 1000 if vector is not None else None,
                rank_ms=(done - vector_done) * 1000,
                total_ms=(done - started) * 1000,
                lexical_candidates=len(lexical),
                vector_candidates=len(vector) if vector is not None else None,
            )
        return RecallResult(
            query=q.text,
            terms=formed.terms,
            items=selection.items,
            trace_id=trace_id,
            as_of=as_of,
            now=iso(now),
            boost=formed.boost,
            dropped=selection.dropped,
            blocked=selection.blocked,
            ranking_trace=ranking_trace,
        )

    def recall_without_text(
        self,
        principal: str,
        *,
        project: str,
        limit: int,
        now: datetime,
        min_position: int = 0,
        max_position: int | None = None,
        belief_types: Sequence[str] | None = None,
        exclude: Sequence[str] = (),
    ) -> RecallResult:
        """A recall with no query text, ranked without a match term (context).

        The session snapshot (durable types, positions up to the watermark) and the recall
        delta (positions past the watermark, the base recall's ids excluded before the
        candidate cap) are this recall; both reach the index through ``recent_candidates``
        and are ranked by the one ranking function (match is 0 for every candidate).
        """
        if limit < 1:
            return RecallResult(query="", terms=(), items=())
        p = self.profile.retrieval
        candidates = self.index.recent_candidates(
            principal,
            project=project,
            cap=candidate_cap(limit),
            min_position=min_position,
            max_position=max_position,
            belief_types=belief_types,
            exclude=exclude,
        )
        offered = fuse(
            [(c.record, c.matched, c.lexical) for c in candidates], None, k=1, cap=len(candidates)
        )
        ranked = rank(offered, now=now, project=project, profile=p)
        selection = select(ranked, limit=limit, profile=p, hold_durable=True)
        return RecallResult(
            query="",
            terms=(),
            items=selection.items,
            now=iso(now),
            dropped=selection.dropped,
            blocked=selection.blocked,
        )

    def _trace(
        self,
        q: RecallQuery,
        selection: Selection,
        *,
        created: datetime,
        as_of: str | None,
        lexical_ms: float,
        vector_ms: float | None,
        rank_ms: float,
        total_ms: float,
        lexical_candidates: int,
        vector_candidates: int | None,
    ) -> str:
        trace_id = self.ids.new_id()
        retention = timedelta(days=self.profile.trace.operator_retention_days)
        self.traces.record(
            TraceRecord(
                trace_id=trace_id,
                principal=q.principal,
                kind=q.kind,
                session_id=q.session_id,
                created_at=instant_second(created),
                operator_expires_at=instant_second(created + retention),
                operator_expired=False,
                policy=retrieval_policy(),
                as_of=as_of,
                item_limit=q.limit,
                returned=tuple(s.record.belief_id for s in selection.items),
                cited=(),
                blocked=tuple(s.record.belief_id for s, _ in selection.blocked),
                dropped_count=len(selection.dropped),
                conflicts=sum(1 for s in selection.items if s.validity == "unresolved_conflict"),
                lexical_ms=round(lexical_ms, 3),
                vector_ms=round(vector_ms, 3) if vector_ms is not None else None,
                rank_ms=round(rank_ms, 3),
                total_ms=round(total_ms, 3),
                lexical_candidates=lexical_candidates,
                vector_candidates=vector_candidates,
                dropped=tuple(s.record.belief_id for s in selection.dropped),
            )
        )
        return trace_id


__all__ = [
    "RecallQuery",
    "RecallResult",
    "Retriever",
    "candidate_cap",
]
