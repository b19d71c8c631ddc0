"""The SQL recall index's reads, over the rebuild-and-swap and the writer.

Statements are written once with ``?`` placeholders; an adapter only says how to
connect, how to take the write lock, and how its placeholders look (``sql_base``).
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from memory_es.domain.values import Authority
from memory_es.projections import candidates as cq
from memory_es.projections.base import REBUILD_SUFFIX, RECALL_INDEX, IndexWriter
from memory_es.projections.records import (
    SESSION_COLUMNS,
    BeliefRecord,
    Candidate,
    QuarantinedEvent,
    SessionRecord,
)
from memory_es.projections.sql_base import (
    _SELECT_BELIEF,
    BOOTSTRAP,
    LIVE_PREFIX,
    READ_MODEL_TABLES,
    REBUILD_PREFIX,
    REBUILD_TAILS,
    decode_record,
    encode_record,
    load_migrations,
)
from memory_es.projections.sql_rebuild import SqlRebuild
from memory_es.projections.sql_writer import _SqlWriter

__all__ = [
    "BOOTSTRAP",
    "LIVE_PREFIX",
    "READ_MODEL_TABLES",
    "REBUILD_PREFIX",
    "REBUILD_TAILS",
    "SqlRecallIndex",
    "decode_record",
    "encode_record",
    "load_migrations",
]

_SEQUENTIAL_IDS = "sequential_ids"
# Belief numbers a statement asks for at once (SQLite allows 32,766 parameters).
_FETCH_CHUNK = 500


class SqlRecallIndex(SqlRebuild):
    # -- writing ---------------------------------------------------------------------------

    @contextmanager
    def writer(self, *, rebuild: bool = False) -> Iterator[IndexWriter]:
        name = RECALL_INDEX + REBUILD_SUFFIX if rebuild else RECALL_INDEX
        prefix = REBUILD_PREFIX if rebuild else LIVE_PREFIX
        with self._lock, self._transaction():
            self._lock_tracking(name)
            writer = _SqlWriter(self, name, prefix)
            try:
                yield writer
                writer.flush()
            except BaseException:
                writer.restore_tails()  # the transaction rolls back: so do the rebuild's tails
                raise

    # -- reading ---------------------------------------------------------------------------

    def tracked_position(self) -> int:
        with self._lock:
            rows = self._execute(
                "SELECT position FROM projection_tracking WHERE name = ?", (RECALL_INDEX,)
            )
        return int(rows[0][0]) if rows else 0

    def stored_version(self) -> str | None:
        with self._lock:
            rows = self._execute(
                "SELECT version FROM projection_tracking WHERE name = ?", (RECALL_INDEX,)
            )
        return rows[0][0] if rows else None

    def head_position(self, principal: str) -> int:
        with self._lock:
            rows = self._execute("SELECT position FROM heads WHERE principal = ?", (principal,))
        return int(rows[0][0]) if rows else 0

    def get(self, belief_id: str) -> BeliefRecord | None:
        with self._lock:
            rows = self._execute(
                f"{_SELECT_BELIEF} FROM beliefs b WHERE b.belief_id = ?", (belief_id,)
            )
        return decode_record(rows[0]) if rows else None

    def beliefs(self, principal: str) -> list[BeliefRecord]:
        with self._lock:
            rows = self._execute(
                f"{_SELECT_BELIEF} FROM beliefs b WHERE b.principal = ?"
                " ORDER BY b.position, b.belief_id",
                (principal,),
            )
        return [decode_record(r) for r in rows]

    def quarantined(self) -> list[QuarantinedEvent]:
        with self._lock:
            rows = self._execute(
                "SELECT position, originator_id, topic, error FROM quarantined_events"
                " ORDER BY position"
            )
        return [QuarantinedEvent(int(p), o, t, e) for p, o, t, e in rows]

    def reserve_ids(self, count: int, at_least: int) -> int:
        with self._lock, self._transaction():
            self._execute(
                "INSERT INTO id_sequence (name, next) VALUES (?, 1) ON CONFLICT (name) DO NOTHING",
                (_SEQUENTIAL_IDS,),
            )
            rows = self._execute(
                f"SELECT next FROM id_sequence WHERE name = ?{self._for_update()}",
                (_SEQUENTIAL_IDS,),
            )
            first = max(int(rows[0][0]), at_least)
            self._execute(
                "UPDATE id_sequence SET next = ? WHERE name = ?", (first + count, _SEQUENTIAL_IDS)
            )
        return first

    def find_by_short_id(self, short_id: str) -> list[BeliefRecord]:
        with self._lock:
            rows = self._execute(
                f"{_SELECT_BELIEF} FROM beliefs b WHERE b.short_id = ? ORDER BY b.belief_id",
                (short_id,),
            )
        return [decode_record(r) for r in rows]

    def _statistics(self, principal: str, terms: Sequence[str]) -> tuple[int, int, dict[str, int]]:
        # One statement (one round trip on PostgreSQL): the principal's row, term NULL,
        # each held term's document frequency, and the read model's token, term '' (no
        # term is empty): what the recall cache is checked against.
        marks = ", ".join("?" for _ in terms)
        with self._lock:
            rows = self._execute(
                f"{cq.STATS_SQL} UNION ALL SELECT term, documents, 0 FROM term_stats"
                f" WHERE principal = ? AND term IN ({marks})"
                f" UNION ALL SELECT '', position, {self._GENERATION_SQL} FROM projection_tracking"
                " WHERE name = ?",
                [principal, principal, *terms, RECALL_INDEX],
            )
            documents, total, held = 0, 0, {}
            token: tuple[int, int] | None = None
            for term, n, length in rows:
                if term is None:
                    documents, total = int(n), int(length)
                elif term == "":
                    token = (int(n), int(length))
                else:
                    held[term] = int(n)
            self._hot.check(None if self._in_transaction() else token)
        return documents, total, held

    def candidates(self, *args: Any, **kwargs: Any) -> list[Candidate]:
        # One lock around the whole read (statements were serialized on it already): the
        # statistics checked the cache's token and the reads after them use that cache.
        with self._lock:
            return super().candidates(*args, **kwargs)

    def _ranked(
        self,
        principal: str,
        weights: Sequence[cq.TermWeight],
        filters: cq.Filters,
        avgdl: float,
        bm25: cq.Bm25Params,
        cap: int,
    ) -> list[Candidate]:
        hot = self._hot
        # A term's scored postings are a function of its postings (fixed while the token
        # holds), its weight, avgdl and the parameters: all of them in the key.
        keys = {w.term: (principal, w.term, w.weight, avgdl, bm25.k1, bm25.b) for w in weights}
        kept = {w.term: got for w in weights if (got := hot.scored.get(keys[w.term])) is not None}
        missing = [w for w in weights if w.term not in kept]
        by_term: dict[str, list[bytes]] = {}
        if missing:
            marks = ", ".join("?" for _ in missing)
            with self._lock:
                rows = self._execute(
                    f"SELECT term, data FROM postings WHERE principal = ? AND term IN ({marks})"
                    " ORDER BY term, block",
                    [principal, *(w.term for w in missing)],
                )
            for term, data in rows:
                by_term.setdefault(term, []).append(bytes(data))
        scored: list[cq.Scored] = []
        for w in weights:
            got = kept.get(w.term)
            if got is None:
                # A term no belief holds is kept too (empty): it is not asked for again.
                got = cq.term_scores(w, cq.unpack(by_term.get(w.term, [])), avgdl, bm25)
                hot.keep_scored(keys[w.term], got)
            if len(got.numbers):
                scored.append((w, got))

        def valid(chosen: list[int]) -> dict[int, BeliefRecord]:
            # Fetched by key alone and filtered here (the twin of the SQL filters): with
            # the filters in the statement the planner may walk the position index instead.
            found: dict[int, BeliefRecord] = {}
            records = hot.rows_of(principal, chosen)
            wanted = [n for n in chosen if n not in records]
            for start in range(0, len(wanted), _FETCH_CHUNK):
                part = wanted[start : start + _FETCH_CHUNK]
                with self._lock:
                    fetched = self._execute(
                        f"{_SELECT_BELIEF}, b.belief_no FROM beliefs b WHERE b.principal = ?"
                        f" AND b.belief_no IN ({', '.join('?' for _ in part)})",
                        [principal, *part],
                    )
                for row in fetched:
                    records[int(row[-1])] = decode_record(row)
                hot.keep_rows(principal, records, part)
            for n, record in records.items():
                if cq.passes(record, filters):
                    found[n] = record
            return found

        return cq.top_candidates(scored, cap, valid)

    def _browse(self, principal: str, filters: cq.Filters, cap: int) -> list[Candidate]:
        sql, params = cq.browse_sql(_SELECT_BELIEF, filters, principal=principal, cap=cap)
        with self._lock:
            rows = self._execute(sql, params)
        return [Candidate(record=decode_record(r[:-2]), matched=0, lexical=0) for r in rows]

    def _vector_rows(self, principal: str, filters: cq.Filters) -> list[tuple[BeliefRecord, bytes]]:
        sql, params = cq.vectors_sql(_SELECT_BELIEF, filters, principal=principal)
        with self._lock:
            rows = self._execute(sql + " ORDER BY b.belief_id", params)
        return [(decode_record(r[:-1]), bytes(r[-1])) for r in rows]

    def resolver_rows(
        self, principal: str, *, normalized: str, belief_type: str, subjects: Collection[str]
    ) -> list[tuple[int, BeliefRecord]]:
        found: dict[int, BeliefRecord] = {}
        rows: list[tuple[Any, ...]] = []
        # Text the store cannot hold matches no row it holds (and cannot be sent).
        parts = sorted(p for p in subjects if self._holds_text(p))
        with self._lock:
            if self._holds_text(normalized):
                rows += self._execute(
                    f"{_SELECT_BELIEF}, b.belief_no FROM beliefs b"
                    " WHERE b.principal = ? AND b.normalized = ?",
                    (principal, normalized),
                )
            if parts:
                # The subject rows first (a join lets the planner walk every belief of
                # the principal instead), then their beliefs by number.
                rows += self._execute(
                    f"{_SELECT_BELIEF}, b.belief_no FROM beliefs b WHERE b.principal = ?"
                    " AND b.belief_no IN (SELECT s.belief_no FROM belief_subjects s"
                    " WHERE s.principal = ? AND s.belief_type = ?"
                    f" AND s.subject IN ({', '.join('?' for _ in parts)}))"
                    f" AND b.status IN ({', '.join('?' for _ in cq.LIVE)})",
                    [principal, principal, belief_type, *parts, *(str(s) for s in cq.LIVE)],
                )
        for row in rows:
            found[int(row[-1])] = decode_record(row[:-1])
        return sorted(found.items())

    def _holds_text(self, text: str) -> bool:
        """Whether a text column of this store can hold ``text`` (PostgreSQL: no NUL)."""
        return True

    def _rows_in(
        self, statement: str, params: Sequence[Any], column: str, keys: Sequence[Any]
    ) -> Iterator[Any]:
        """The rows of ``statement`` (its WHERE clause open) with ``column`` among
        ``keys``, asked :data:`_FETCH_CHUNK` keys at a time (a statement's parameters
        are bounded)."""
        for start in range(0, len(keys), _FETCH_CHUNK):
            part = keys[start : start + _FETCH_CHUNK]
            with self._lock:
                rows = self._execute(
                    f"{statement} AND {column} IN ({', '.join('?' for _ in part)})",
                    [*params, *part],
                )
            yield from rows

    def belief_numbers(self, principal: str, belief_ids: Collection[str]) -> dict[str, int]:
        rows = self._rows_in(
            "SELECT belief_id, belief_no FROM beliefs WHERE principal = ?",
            [principal],
            "belief_id",
            sorted(belief_ids),
        )
        return {str(b): int(n) for b, n in rows}

    def live_rows(
        self,
        principal: str,
        *,
        positive: bool = True,
        inferred_sharing: Collection[str] | None = None,
    ) -> list[tuple[int, BeliefRecord]]:
        live = [str(s) for s in cq.LIVE]
        where = f"b.principal = ? AND b.status IN ({', '.join('?' for _ in live)})"
        if positive or inferred_sharing is not None:
            where += " AND b.polarity = 1"
        if inferred_sharing is None:
            with self._lock:
                rows = self._execute(
                    f"{_SELECT_BELIEF}, b.belief_no FROM beliefs b WHERE {where}"
                    " ORDER BY b.belief_no",
                    [principal, *live],
                )
            return [(int(row[-1]), decode_record(row[:-1])) for row in rows]
        # The beliefs on these turns by the turns' rows (a superset: a forgotten turn's row
        # stays), then those beliefs by key; each one's own sources are checked here. (In
        # one statement the planner walks the principal's beliefs in number order.)
        ids = self._rows_in(
            "SELECT DISTINCT belief_id FROM belief_sources WHERE principal = ?",
            [principal],
            "source_event_id",
            sorted(inferred_sharing),
        )
        inferred = self._rows_in(
            f"{_SELECT_BELIEF}, b.belief_no FROM beliefs b WHERE {where} AND b.authority = ?",
            [principal, *live, int(Authority.INFERRED)],
            "b.belief_id",
            sorted({str(i) for (i,) in ids}),
        )
        found = {int(row[-1]): decode_record(row[:-1]) for row in inferred}
        shared = frozenset(inferred_sharing)
        return [
            (n, r) for n, r in sorted(found.items()) if not shared.isdisjoint(r.source_event_ids)
        ]

    def lifecycle_candidates(self, query: cq.LifecycleQuery) -> list[BeliefRecord]:
        where, params = query.where_sql()
        with self._lock:
            rows = self._execute(
                f"{_SELECT_BELIEF} FROM beliefs b WHERE {where}"
                " ORDER BY b.last_evidence_at, b.belief_id LIMIT ?",
                (*params, query.limit),
            )
        return [decode_record(r) for r in rows]

    def idle_sessions(self, *, last_activity_before: str, limit: int) -> list[SessionRecord]:
        with self._lock:
            rows = self._execute(
                f"SELECT {', '.join(SESSION_COLUMNS)} FROM sessions"
                " WHERE closed_at IS NULL AND last_activity_at <= ?"
                " ORDER BY last_activity_at, session_id LIMIT ?",
                (last_activity_before, limit),
            )
        return [SessionRecord(*r) for r in rows]

    def formation_counts(self) -> list[tuple[str, str, int]]:
        with self._lock:
            rows = self._execute(
                "SELECT principal, formation, COUNT(*) FROM sessions"
                " WHERE formation IS NOT NULL GROUP BY principal, formation"
                " ORDER BY principal, formation"
            )
        return [(str(p), str(k), int(n)) for p, k, n in rows]

    def dump(self) -> dict[str, Any]:
        with self._lock:
            sessions = self._execute(
                f"SELECT {', '.join(SESSION_COLUMNS)} FROM sessions ORDER BY session_id"
            )
            beliefs = self._execute(f"{_SELECT_BELIEF} FROM beliefs b ORDER BY b.belief_id")
            numbered = self._execute("SELECT principal, belief_no, belief_id FROM beliefs")
            term_stats = self._execute(
                "SELECT principal, term, documents, blocks FROM term_stats ORDER BY principal, term"
            )
            blocks = self._execute(
                "SELECT principal, term, data FROM postings ORDER BY principal, term, block"
            )
            heads = self._execute("SELECT principal, position FROM heads ORDER BY principal")
            principals = self._execute(
                "SELECT aggregate_id, principal FROM principals ORDER BY aggregate_id"
            )
            stats = self._execute(
                "SELECT principal, documents, total_len FROM principal_stats ORDER BY principal"
            )
            vectors = self._execute(
                "SELECT belief_id, principal, vector FROM belief_vectors ORDER BY belief_id"
            )
            turns = self._execute(
                "SELECT turn_id, session_id, seq, words FROM turns ORDER BY turn_id"
            )
        return {
            "beliefs": [decode_record(r).as_dict() for r in beliefs],
            "terms": cq.postings_rows(
                {(p, int(n)): b for p, n, b in numbered},
                ((p, t, bytes(data)) for p, t, data in blocks),
            ),
            "term_stats": [(p, t, int(n), int(b)) for p, t, n, b in term_stats],
            "heads": [(p, int(n)) for p, n in heads],
            "principals": [(a, p) for a, p in principals],
            "stats": [(p, int(d), int(n)) for p, d, n in stats],
            "vectors": [(k, p, bytes(v)) for k, p, v in vectors],
            "sessions": [tuple(r) for r in sessions],
            "turns": [(t, s, int(n), w) for t, s, n, w in turns],
        }
