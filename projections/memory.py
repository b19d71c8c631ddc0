"""The in-memory recall index: the tier tests and the deterministic benchmark use.

It keeps what the SQL adapters keep (postings packed the same way) and hands them to the
same scoring (projections/candidates.py); the shared conformance suite holds all three
to the same answers.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from memory_es.domain.values import Authority, subject_keys
from memory_es.errors import RebuildInProgress
from memory_es.projections.base import IndexWriter, RecallIndex
from memory_es.projections.candidates import (
    BLOCK,
    LIVE,
    Bm25Params,
    Filters,
    LifecycleQuery,
    TermWeight,
    in_order,
    pack,
    passes,
    postings_rows,
    scored_terms,
    top_candidates,
    unpack,
)
from memory_es.projections.records import (
    SESSION_COLUMNS,
    BeliefRecord,
    Candidate,
    QuarantinedEvent,
    SessionRecord,
)
from memory_es.projections.vectors import vector_text


@dataclass
class _Tables:
    beliefs: dict[str, BeliefRecord] = field(default_factory=dict)
    # principal -> term -> packed postings (candidates.posting_dtype() records, in number order)
    terms: dict[str, dict[str, bytearray]] = field(default_factory=dict)
    numbers: dict[tuple[str, int], str] = field(default_factory=dict)  # -> belief id
    number_of: dict[str, int] = field(default_factory=dict)  # belief id -> its number
    # The resolver's lookups, to belief numbers in order: (principal, normalized
    # statement), and (principal, type, subject part) as the SQL belief_subjects.
    statements: dict[tuple[str, str], list[int]] = field(default_factory=dict)
    subjects: dict[tuple[str, str, str], list[int]] = field(default_factory=dict)
    # (principal, turn) -> the beliefs that stood on it (kept when forgetting drops it)
    sources: dict[tuple[str, str], set[str]] = field(default_factory=dict)
    heads: dict[str, int] = field(default_factory=dict)
    principals: dict[str, str] = field(default_factory=dict)
    stats: dict[str, tuple[int, int]] = field(default_factory=dict)  # documents, total_len
    vectors: dict[str, tuple[str, bytes]] = field(default_factory=dict)  # principal, vector
    sessions: dict[str, SessionRecord] = field(default_factory=dict)
    # turn id -> (session id, seq, antecedent words): what the turn after it is read with
    turns: dict[str, tuple[str, int, str]] = field(default_factory=dict)
    turn_at: dict[tuple[str, int], str] = field(default_factory=dict)  # (session, seq) -> id
    quarantined: dict[int, QuarantinedEvent] = field(default_factory=dict)
    position: int = 0
    version: str | None = None


class _MemoryWriter(IndexWriter):
    """Stages every change and applies it only when the transaction commits."""

    def __init__(self, tables: _Tables, index: MemoryRecallIndex) -> None:
        self._tables = tables
        self._index = index
        self._stats: dict[str, tuple[int, int]] = {}
        self._vectors: dict[str, tuple[str, bytes]] = {}
        self._beliefs: dict[str, BeliefRecord] = {}
        self._terms: list[tuple[str, str, int, int, int]] = []
        self._numbers: dict[tuple[str, int], str] = {}
        self._heads: dict[str, int] = {}
        self._principals: dict[str, str] = {}
        self._sessions: dict[str, SessionRecord] = {}
        self._turns: dict[str, tuple[str, int, str]] = {}
        self._turn_at: dict[tuple[str, int], str] = {}
        self._quarantined: dict[int, QuarantinedEvent] = {}
        self._position: int | None = None

    def tracked_position(self) -> int:
        return self._tables.position if self._position is None else self._position

    def set_tracking(self, position: int) -> None:
        self._position = position

    def name_principal(self, aggregate_id: str, principal: str) -> None:
        self._principals[aggregate_id] = principal

    def principal_of(self, aggregate_id: str) -> str:
        name = self._principals.get(aggregate_id) or self._tables.principals.get(aggregate_id)
        if name is None:
            raise LookupError(f"no Created event seen for principal aggregate {aggregate_id}")
        return name

    def get(self, belief_id: str) -> BeliefRecord | None:
        return self._beliefs.get(belief_id) or self._tables.beliefs.get(belief_id)

    def insert_belief(self, record: BeliefRecord, terms: Mapping[str, int]) -> None:
        if self.get(record.belief_id) is not None:  # the SQL stores' primary key
            raise ValueError(f"belief {record.belief_id} is indexed already")
        self._beliefs[record.belief_id] = record
        documents, total = self._stats.get(
            record.principal, self._tables.stats.get(record.principal, (0, 0))
        )
        self._stats[record.principal] = (documents + 1, total + record.doc_len)
        # Numbered as the SQL writer numbers them: the principal's count so far, plus one.
        self._numbers[(record.principal, documents + 1)] = record.belief_id
        self._terms.extend(
            (record.principal, t, documents + 1, n, record.doc_len) for t, n in terms.items()
        )
        encoder = self._index.vector_encoder
        if encoder is not None:
            self._vectors[record.belief_id] = (
                record.principal,
                encoder.encode(vector_text(record)),
            )

    def update_belief(self, belief_id: str, **changes: Any) -> None:
        current = self.get(belief_id)
        if current is None:
            raise LookupError(belief_id)
        self._beliefs[belief_id] = current.evolve(**changes)

    def raise_head(self, principal: str, position: int) -> None:
        known = self._heads.get(principal, self._tables.heads.get(principal, 0))
        self._heads[principal] = max(known, position)

    def record_turn(self, session_id: str, seq: int, turn_id: str, words: str) -> None:
        if turn_id not in self._turns and turn_id not in self._tables.turns:
            self._turns[turn_id] = (session_id, seq, words)
            self._turn_at[(session_id, seq)] = turn_id

    def antecedent_words(self, turn_id: str) -> str:
        turn = self._turns.get(turn_id) or self._tables.turns.get(turn_id)
        if turn is None:
            return ""
        session_id, seq, _ = turn
        key = (session_id, seq - 1)
        before = self._turn_at.get(key) or self._tables.turn_at.get(key)
        if before is None:
            return ""
        return (self._turns.get(before) or self._tables.turns[before])[2]

    def open_session(self, record: SessionRecord) -> None:
        if record.session_id not in self._sessions and (
            record.session_id not in self._tables.sessions
        ):
            self._sessions[record.session_id] = record

    def update_session(self, session_id: str, **changes: Any) -> None:
        current = self._sessions.get(session_id) or self._tables.sessions.get(session_id)
        if current is not None:
            self._sessions[session_id] = current.evolve(**changes)

    def quarantine(self, event: QuarantinedEvent) -> None:
        self._quarantined[event.position] = event

    def commit(self) -> None:
        t = self._tables
        t.quarantined.update(self._quarantined)
        t.sessions.update(self._sessions)
        t.turns.update(self._turns)
        t.turn_at.update(self._turn_at)
        t.beliefs.update(self._beliefs)
        added: dict[tuple[str, str], list[tuple[int, int, int]]] = {}
        for principal, term, number, n, length in self._terms:
            added.setdefault((principal, term), []).append((number, n, length))
        for (principal, term), postings in added.items():
            t.terms.setdefault(principal, {}).setdefault(term, bytearray()).extend(pack(postings))
        t.numbers.update(self._numbers)
        for record in self._beliefs.values():
            for source in record.source_event_ids:
                t.sources.setdefault((record.principal, source), set()).add(record.belief_id)
        for (principal, number), belief_id in sorted(self._numbers.items()):
            record = self._beliefs[belief_id]
            t.number_of[belief_id] = number
            t.statements.setdefault((principal, record.normalized), []).append(number)
            for part in sorted(subject_keys(record.subject_key)):
                key = (principal, record.belief_type, part)
                t.subjects.setdefault(key, []).append(number)
        t.heads.update(self._heads)
        t.principals.update(self._principals)
        t.stats.update(self._stats)
        t.vectors.update(self._vectors)
        if self._position is not None:
            t.position = self._position
            t.version = self._index.version


class MemoryRecallIndex(RecallIndex):
    def __init__(self) -> None:
        self._live = _Tables()
        self._rebuild: _Tables | None = None
        self._lock = threading.RLock()
        self._rebuilding = threading.Lock()

    @contextmanager
    def writer(self, *, rebuild: bool = False) -> Iterator[IndexWriter]:
        with self._lock:
            tables = self._rebuild if rebuild else self._live
            if tables is None:
                raise RuntimeError("no rebuild in progress")
            writer = _MemoryWriter(tables, self)
            yield writer
            writer.commit()

    def start_rebuild(self) -> int:
        with self._lock:
            if self._rebuild is not None and self._rebuild.version in (None, self.version):
                return self._rebuild.position  # an interrupted rebuild: its committed pages
            self._rebuild = _Tables()
            return 0

    def rebuild_leftover(self) -> tuple[int, str | None] | None:
        with self._lock:
            left = self._rebuild
            return None if left is None else (left.position, left.version or self.version)

    def discard_rebuild(self) -> None:
        with self._lock:
            self._rebuild = None

    @contextmanager
    def rebuild_lock(self) -> Iterator[None]:
        if not self._rebuilding.acquire(blocking=False):
            raise RebuildInProgress()
        try:
            yield
        finally:
            self._rebuilding.release()

    def finish_rebuild(self) -> None:
        with self._lock:
            if self._rebuild is None:
                raise RuntimeError("no rebuild in progress")
            self._rebuild.version = self.version
            self._live, self._rebuild = self._rebuild, None

    def tracked_position(self) -> int:
        return self._live.position

    def stored_version(self) -> str | None:
        return self._live.version

    def head_position(self, principal: str) -> int:
        return self._live.heads.get(principal, 0)

    def get(self, belief_id: str) -> BeliefRecord | None:
        return self._live.beliefs.get(belief_id)

    def beliefs(self, principal: str) -> list[BeliefRecord]:
        rows = [b for b in self._live.beliefs.values() if b.principal == principal]
        return sorted(rows, key=lambda b: (b.position, b.belief_id))

    def find_by_short_id(self, short_id: str) -> list[BeliefRecord]:
        rows = [b for b in self._live.beliefs.values() if b.short_id == short_id]
        return sorted(rows, key=lambda b: b.belief_id)

    def quarantined(self) -> list[QuarantinedEvent]:
        with self._lock:
            return [self._live.quarantined[k] for k in sorted(self._live.quarantined)]

    def _statistics(self, principal: str, terms: Sequence[str]) -> tuple[int, int, dict[str, int]]:
        with self._lock:
            documents, total = self._live.stats.get(principal, (0, 0))
            by_term = self._live.terms.get(principal, {})
            df = {t: len(unpack([by_term[t]])) for t in terms if by_term.get(t)}
        return documents, total, df

    def _ranked(
        self,
        principal: str,
        weights: Sequence[TermWeight],
        filters: Filters,
        avgdl: float,
        bm25: Bm25Params,
        cap: int,
    ) -> list[Candidate]:
        with self._lock:
            by_term = self._live.terms.get(principal, {})
            postings = {w.term: unpack([by_term[w.term]]) for w in weights if w.term in by_term}
            scored = scored_terms(weights, postings, avgdl, bm25)

            def valid(chosen: list[int]) -> dict[int, BeliefRecord]:
                found = {n: self._live.beliefs[self._live.numbers[(principal, n)]] for n in chosen}
                return {n: b for n, b in found.items() if passes(b, filters)}

            return top_candidates(scored, cap, valid)

    def _browse(self, principal: str, filters: Filters, cap: int) -> list[Candidate]:
        with self._lock:
            rows = [
                (0, b)
                for b in self._live.beliefs.values()
                if b.principal == principal and passes(b, filters)
            ]
        return [Candidate(record=r, matched=0, lexical=0) for _, r in in_order(rows)[:cap]]

    def _vector_rows(self, principal: str, filters: Filters) -> list[tuple[BeliefRecord, bytes]]:
        with self._lock:
            return [
                (self._live.beliefs[k], blob)
                for k, (p, blob) in sorted(self._live.vectors.items())
                if p == principal and passes(self._live.beliefs[k], filters)
            ]

    def resolver_rows(
        self, principal: str, *, normalized: str, belief_type: str, subjects: Collection[str]
    ) -> list[tuple[int, BeliefRecord]]:
        with self._lock:
            t = self._live
            numbers = set(t.statements.get((principal, normalized), ()))
            for part in subjects:
                for number in t.subjects.get((principal, belief_type, part), ()):
                    if t.beliefs[t.numbers[(principal, number)]].status in LIVE:
                        numbers.add(number)
            return [(n, t.beliefs[t.numbers[(principal, n)]]) for n in sorted(numbers)]

    def belief_numbers(self, principal: str, belief_ids: Collection[str]) -> dict[str, int]:
        with self._lock:
            t = self._live
            return {
                b: t.number_of[b]
                for b in belief_ids
                if b in t.number_of and t.beliefs[b].principal == principal
            }

    def live_rows(
        self,
        principal: str,
        *,
        positive: bool = True,
        inferred_sharing: Collection[str] | None = None,
    ) -> list[tuple[int, BeliefRecord]]:
        shared = None if inferred_sharing is None else frozenset(inferred_sharing)
        with self._lock:
            t = self._live
            if shared is None:
                chosen: Collection[BeliefRecord] = t.beliefs.values()
            else:
                ids = set().union(*(t.sources.get((principal, s), ()) for s in shared))
                chosen = [t.beliefs[b] for b in sorted(ids)]
            rows = [
                (t.number_of[b.belief_id], b)
                for b in chosen
                if b.principal == principal
                and (b.polarity or not (positive or shared is not None))
                and b.status in LIVE
                and (
                    shared is None
                    or (
                        b.authority == Authority.INFERRED
                        and not shared.isdisjoint(b.source_event_ids)
                    )
                )
            ]
        return sorted(rows, key=lambda row: row[0])

    def lifecycle_candidates(self, query: LifecycleQuery) -> list[BeliefRecord]:
        with self._lock:
            rows = [b for b in self._live.beliefs.values() if query.matches(b)]
        rows.sort(key=lambda b: (b.last_evidence_at, b.belief_id))
        return rows[: query.limit]

    def idle_sessions(self, *, last_activity_before: str, limit: int) -> list[SessionRecord]:
        with self._lock:
            rows = [
                r
                for r in self._live.sessions.values()
                if r.closed_at is None and r.last_activity_at <= last_activity_before
            ]
        rows.sort(key=lambda r: (r.last_activity_at, r.session_id))
        return rows[:limit]

    def formation_counts(self) -> list[tuple[str, str, int]]:
        with self._lock:
            counts = Counter(
                (r.principal, r.formation)
                for r in self._live.sessions.values()
                if r.formation is not None
            )
        return sorted((principal, key, n) for (principal, key), n in counts.items())

    def dump(self) -> dict[str, Any]:
        t = self._live
        return {
            "beliefs": [t.beliefs[k].as_dict() for k in sorted(t.beliefs)],
            "terms": postings_rows(
                t.numbers,
                (
                    (p, term, bytes(data))
                    for p, by_term in t.terms.items()
                    for term, data in by_term.items()
                ),
            ),
            # What the SQL writer keeps per term: documents, and the blocks holding them.
            "term_stats": sorted(
                (p, term, n, -(-n // BLOCK))
                for p, by_term in t.terms.items()
                for term, data in by_term.items()
                for n in (len(unpack([data])),)
            ),
            "heads": sorted(t.heads.items()),
            "principals": sorted(t.principals.items()),
            "stats": sorted((p, d, n) for p, (d, n) in t.stats.items()),
            "vectors": sorted((k, p, bytes(v)) for k, (p, v) in t.vectors.items()),
            "sessions": [
                tuple(getattr(r, c) for c in SESSION_COLUMNS)
                for r in sorted(t.sessions.values(), key=lambda r: r.session_id)
            ],
            "turns": sorted((k, *v) for k, v in t.turns.items()),
        }
