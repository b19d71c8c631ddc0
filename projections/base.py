"""The recall index: the read model every adapter implements identically.

A writer is one transaction: the rows it writes and the tracked position commit
together (exactly once). Reads never see a half-applied page.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Collection, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import replace
from typing import Any

from memory_es.errors import RebuildInProgress
from memory_es.projections.candidates import (
    LIVE,
    Bm25Params,
    Filters,
    LifecycleQuery,
    TermWeight,
    term_weights,
)
from memory_es.projections.records import BeliefRecord, Candidate, QuarantinedEvent, SessionRecord
from memory_es.projections.vectors import VectorEncoder
from memory_es.projections.version import READ_MODEL_VERSION

# LIVE moved to projections/candidates.py with the candidate query; re-exported here.
__all__ = ["LIVE", "IndexWriter", "RecallIndex"]

RECALL_INDEX = "recall_index"
REBUILD_SUFFIX = ":rebuild"


class IndexWriter(ABC):
    @abstractmethod
    def tracked_position(self) -> int: ...

    @abstractmethod
    def set_tracking(self, position: int) -> None: ...

    @abstractmethod
    def name_principal(self, aggregate_id: str, principal: str) -> None: ...

    @abstractmethod
    def principal_of(self, aggregate_id: str) -> str: ...

    @abstractmethod
    def get(self, belief_id: str) -> BeliefRecord | None: ...

    @abstractmethod
    def insert_belief(self, record: BeliefRecord, terms: Mapping[str, int]) -> None: ...

    @abstractmethod
    def update_belief(self, belief_id: str, **changes: Any) -> None: ...

    @abstractmethod
    def raise_head(self, principal: str, position: int) -> None: ...

    @abstractmethod
    def record_turn(self, session_id: str, seq: int, turn_id: str, words: str) -> None:
        """Keep a turn's antecedent words (projector.antecedent_words) for the turn after
        it in its session."""

    @abstractmethod
    def antecedent_words(self, turn_id: str) -> str:
        """The words kept for the turn just before ``turn_id`` in its session ("" when
        there is none, or it lent none)."""

    def prefetch(self, belief_ids: Collection[str]) -> None:  # noqa: B027 - optional hook
        """A hint: these beliefs will be read in this transaction (fetch them at once)."""

    @abstractmethod
    def quarantine(self, event: QuarantinedEvent) -> None:
        """Record an event this read model could not apply (the runner skips it)."""

    # -- sessions (formation: the idle sweep reads which are open) -------------------------

    @abstractmethod
    def open_session(self, record: SessionRecord) -> None: ...

    @abstractmethod
    def update_session(self, session_id: str, **changes: Any) -> None: ...


class RecallIndex(ABC):
    """Current-state beliefs, their lexemes, and each principal's head position."""

    # The optional vector arm: when set, every formed belief also gets a vector row, and
    # the read-model version names the encoder (a store built without it reads as stale).
    vector_encoder: VectorEncoder | None = None

    @property
    def version(self) -> str:
        if self.vector_encoder is None:
            return READ_MODEL_VERSION
        return f"{READ_MODEL_VERSION};vectors={self.vector_encoder.name}"

    @abstractmethod
    def writer(self, *, rebuild: bool = False) -> AbstractContextManager[IndexWriter]:
        """One transaction over the live tables, or over the fresh rebuild tables."""

    @abstractmethod
    def start_rebuild(self) -> int:
        """Resume the interrupted rebuild of this read-model version from its last
        committed page, or create empty rebuild tables (dropping leftovers built under
        another version); returns the position the rebuild goes on from."""

    @abstractmethod
    def finish_rebuild(self) -> None:
        """Swap the rebuild tables in, with their tracked position, in one transaction."""

    @abstractmethod
    def rebuild_leftover(self) -> tuple[int, str | None] | None:
        """An unfinished rebuild beside the serving read model: (its committed position,
        the version it builds), or None."""

    @abstractmethod
    def discard_rebuild(self) -> None:
        """Drop an unfinished rebuild's tables (the next rebuild starts from 0)."""

    @abstractmethod
    def rebuild_lock(self) -> AbstractContextManager[None]:
        """Held for a whole rebuild, across processes (released if its holder dies):
        while one is held, another raises :class:`RebuildInProgress`."""

    def rebuild_running(self) -> bool:
        """Whether another rebuild holds the lock now (a probe: taken and let go)."""
        try:
            with self.rebuild_lock():
                return False
        except RebuildInProgress:
            return True

    @abstractmethod
    def tracked_position(self) -> int: ...

    @abstractmethod
    def stored_version(self) -> str | None:
        """The read-model version the tables were built under (None when never built)."""

    @abstractmethod
    def head_position(self, principal: str) -> int: ...

    @abstractmethod
    def get(self, belief_id: str) -> BeliefRecord | None: ...

    @abstractmethod
    def beliefs(self, principal: str) -> list[BeliefRecord]:
        """Every belief of the principal, any status, in store-position order."""

    @abstractmethod
    def find_by_short_id(self, short_id: str) -> list[BeliefRecord]: ...

    @abstractmethod
    def quarantined(self) -> list[QuarantinedEvent]:
        """Events the read model could not apply and skipped, in log order."""

    def reserve_ids(self, count: int, at_least: int) -> int:
        """The first of ``count`` sequential-id numbers no other process was given, none
        below ``at_least`` (``SequentialIds`` on a persistent store)."""
        raise NotImplementedError(f"{type(self).__name__} keeps no id sequence")

    def candidates(
        self,
        principal: str,
        terms: Sequence[str],
        *,
        project: str,
        cap: int,
        min_position: int = 0,
        statuses: Sequence[str] = LIVE,
        boost: Sequence[str] = (),
        as_of: str | None = None,
        exclude: Sequence[str] = (),
        bm25: Bm25Params | None = None,
        match_all: bool = False,
    ) -> list[Candidate]:
        """Validity-filtered candidates, by BM25 relevance, newest first on ties, capped.

        Any-term: a row matches if it holds any admitting query term (boost terms only
        add to the score). With no terms, nothing matches — unless ``match_all`` asks
        for every valid row newest first (priming and delta reads). The same statement
        runs on both SQL stores; the in-memory store computes the same integers.
        """
        filters = Filters(
            project=project,
            statuses=tuple(statuses),
            as_of=as_of,
            min_position=min_position,
            exclude=tuple(sorted(set(exclude))),
        )
        if not filters.statuses or cap < 1:
            return []
        if not terms:
            return self._browse(principal, filters, cap) if match_all else []
        documents, total_len, df = self._statistics(principal, sorted(set(terms) | set(boost)))
        if documents == 0:
            return []
        params = bm25 or Bm25Params()
        # A boost term only adds to rows other terms admitted; when its largest possible
        # contribution floors to 0 (a term nearly every belief holds, like "user") its
        # postings cannot change any score, so they are not read at all.
        weights = [
            w
            for w in term_weights(terms, boost, df, documents)
            if w.admits or w.weight * (params.k1 + 1.0) >= 1.0
        ]
        avgdl = total_len / documents
        return self._ranked(principal, weights, filters, avgdl, params, cap)

    @abstractmethod
    def _statistics(self, principal: str, terms: Sequence[str]) -> tuple[int, int, dict[str, int]]:
        """(documents, total length, document frequency per term) of the principal."""

    @abstractmethod
    def _ranked(
        self,
        principal: str,
        weights: Sequence[TermWeight],
        filters: Filters,
        avgdl: float,
        bm25: Bm25Params,
        cap: int,
    ) -> list[Candidate]: ...

    @abstractmethod
    def _browse(self, principal: str, filters: Filters, cap: int) -> list[Candidate]: ...

    def vector_candidates(
        self,
        principal: str,
        query: Sequence[float],
        *,
        project: str,
        cap: int,
        min_position: int = 0,
        statuses: Sequence[str] = LIVE,
        as_of: str | None = None,
        exclude: Sequence[str] = (),
    ) -> list[tuple[BeliefRecord, float]]:
        """The vector arm: valid rows by cosine similarity, newest first on ties, capped."""
        if self.vector_encoder is None:
            return []
        filters = Filters(
            project=project,
            statuses=tuple(statuses),
            as_of=as_of,
            min_position=min_position,
            exclude=tuple(sorted(set(exclude))),
        )
        scored = [
            (record, self.vector_encoder.cosine(query, blob))
            for record, blob in self._vector_rows(principal, filters)
        ]
        scored = sorted(scored, key=lambda s: s[0].belief_id, reverse=True)
        scored.sort(key=lambda s: (-s[1], -s[0].position))
        return [s for s in scored if s[1] > 0][:cap]

    @abstractmethod
    def _vector_rows(self, principal: str, filters: Filters) -> list[tuple[BeliefRecord, bytes]]:
        """Every valid row of the principal with its stored vector."""

    # -- context: no-text queries for the session snapshot and the recall delta --

    def recent_candidates(
        self,
        principal: str,
        *,
        project: str,
        cap: int,
        min_position: int = 0,
        max_position: int | None = None,
        belief_types: Sequence[str] | None = None,
        exclude: Sequence[str] = (),
        statuses: Sequence[str] = LIVE,
    ) -> list[Candidate]:
        """Candidates chosen without query text: newest first, then belief id; matched=0.

        Positions in ``(min_position, max_position]``; ``belief_types`` None means every
        type; ``exclude`` ids are removed before the cap. Scope and status filter as in
        ``candidates``. The session snapshot and the recall delta are these queries.
        """
        if cap < 1 or not statuses or (belief_types is not None and not belief_types):
            return []
        filters = Filters(
            project=project,
            statuses=tuple(statuses),
            min_position=min_position,
            exclude=tuple(sorted(set(exclude))),
            max_position=max_position,
            belief_types=None if belief_types is None else tuple(sorted(set(belief_types))),
        )
        return self._browse(principal, filters, cap)

    # -- the resolver's reads (memory_es/services/belief_reads.py) --------------------

    @abstractmethod
    def resolver_rows(
        self, principal: str, *, normalized: str, belief_type: str, subjects: Collection[str]
    ) -> list[tuple[int, BeliefRecord]]:
        """What the resolver's rules can match, each belief with its number (the
        principal's formation order), in that order: every belief of the principal
        stating ``normalized`` (any status), and every live one of ``belief_type`` with
        one of ``subjects`` among its subject parts."""

    @abstractmethod
    def belief_numbers(self, principal: str, belief_ids: Collection[str]) -> dict[str, int]:
        """The number (formation order) of each of these beliefs of the principal that
        the read model holds."""

    @abstractmethod
    def live_rows(
        self,
        principal: str,
        *,
        positive: bool = True,
        inferred_sharing: Collection[str] | None = None,
    ) -> list[tuple[int, BeliefRecord]]:
        """Every live belief of the principal with its number, in that order: the
        positive ones only (``positive``), or with ``inferred_sharing`` the positive
        inferences whose sources hold one of those turns."""

    @abstractmethod
    def lifecycle_candidates(self, query: LifecycleQuery) -> list[BeliefRecord]:
        """Rows a lifecycle sweep may act on, least recently evidenced first, bounded
        (``LifecycleQuery``); every store returns the same rows in the same order."""

    def lifecycle_rows(self, query: LifecycleQuery) -> Iterator[BeliefRecord]:
        """Every row ``query`` matches, in its order, read a page (``query.limit``) at a
        time from the cursor on: a sweep stops reading when it has what it needs."""
        while True:
            page = self.lifecycle_candidates(query)
            yield from page
            if len(page) < query.limit:
                return
            last = page[-1]
            query = replace(query, after=(last.last_evidence_at, last.belief_id))

    @abstractmethod
    def idle_sessions(self, *, last_activity_before: str, limit: int) -> list[SessionRecord]:
        """Open sessions whose last activity is at or before the instant, oldest first."""

    @abstractmethod
    def formation_counts(self) -> list[tuple[str, str, int]]:
        """(principal, formation key, sessions) over the consolidated sessions: what
        ``Memory.formation_status`` compares with the current policy."""

    @abstractmethod
    def dump(self) -> dict[str, Any]:
        """Every row in a canonical order, to compare two builds of the read model."""

    @contextmanager
    def setup_lock(self) -> Iterator[None]:
        """Held while the event store creates its tables (first opens may race)."""
        yield

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release connections."""
