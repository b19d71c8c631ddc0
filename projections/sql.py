"""What the two SQL adapters share: every statement, the row codec, the writer.

Statements are written once with ``?`` placeholders; an adapter only says how to
connect, how to take the write lock, and how its placeholders look.
"""

from __future__ import annotations

import threading
from abc import abstractmethod
from collections import Counter
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import contextmanager
from importlib import resources
from operator import attrgetter
from typing import Any

import orjson

from projections import candidates as cq
from projections.base import REBUILD_SUFFIX, RECALL_INDEX, IndexWriter, RecallIndex
from projections.records import (
    BELIEF_COLUMNS,
    BOOL_COLUMNS,
    JSON_COLUMNS,
    SESSION_COLUMNS,
    BeliefRecord,
    Candidate,
    SessionRecord,
)
from projections.vectors import vector_text

LIVE_PREFIX = ""
REBUILD_PREFIX = "rebuild_"
READ_MODEL_TABLES = (
    "beliefs",
    "belief_terms",
    "heads",
    "principals",
    "principal_stats",
    "term_stats",
    "belief_vectors",
    "sessions",
)

BOOTSTRAP = (
    "CREATE TABLE IF NOT EXISTS projection_tracking ("
    " name TEXT PRIMARY KEY, position BIGINT NOT NULL, version TEXT)",
    "CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY)",
)

_SELECT_BELIEF = "SELECT " + ", ".join(f"b.{c}" for c in BELIEF_COLUMNS)


def load_migrations(dialect: str) -> list[tuple[str, list[str], list[str]]]:
    """(name, table statements, index statements) per migration file, in order."""
    folder = resources.files("migrations").joinpath(dialect)
    out = []
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(".sql"):
            continue
        statements = [s.strip() for s in entry.read_text().split(";") if s.strip()]
        tables = [s for s in statements if not s.upper().startswith("CREATE INDEX")]
        indexes = [s for s in statements if s.upper().startswith("CREATE INDEX")]
        out.append((entry.name, tables, indexes))
    return out


def _json_text(value: Any) -> str:
    return orjson.dumps(list(value)).decode()


def _json_tuple(value: Any) -> tuple[str, ...]:
    return tuple(orjson.loads(value))


def _same(value: Any) -> Any:
    return value


# One converter per column, chosen once (the codec runs for every row read and written).
_ENCODERS: tuple[Callable[[Any], Any], ...] = tuple(
    _json_text if c in JSON_COLUMNS else int if c in BOOL_COLUMNS else _same for c in BELIEF_COLUMNS
)
_DECODERS: tuple[Callable[[Any], Any], ...] = tuple(
    _json_tuple
    if c in JSON_COLUMNS
    else bool
    if c in BOOL_COLUMNS
    else float
    if c in ("confidence", "utility")
    else _same
    for c in BELIEF_COLUMNS
)


def encode_record(record: BeliefRecord) -> tuple[Any, ...]:
    values = attrgetter(*BELIEF_COLUMNS)(record)
    return tuple(f(v) for f, v in zip(_ENCODERS, values, strict=True))


# Only these columns change type on the way in (recall decodes every candidate row).
_CONVERTED: tuple[tuple[int, Callable[[Any], Any]], ...] = tuple(
    (i, f) for i, f in enumerate(_DECODERS) if f is not _same
)


def decode_record(row: Sequence[Any]) -> BeliefRecord:
    values = list(row[: len(BELIEF_COLUMNS)])
    for i, convert in _CONVERTED:
        if i < len(values):
            values[i] = convert(values[i])
    return BeliefRecord(*values)


_POSITION = BELIEF_COLUMNS.index("position")


def _best(rows: list[tuple[Any, ...]], cap: int) -> list[tuple[Any, ...]]:
    """Candidate rows of two exact answers merged: distinct beliefs, in the candidate
    order (BM25 descending, newest first, then belief id descending), capped."""
    unique = list({r[0]: r for r in rows}.values())
    unique.sort(key=lambda r: r[0], reverse=True)
    unique.sort(key=lambda r: (-int(r[-2]), -int(r[_POSITION])))
    return unique[:cap]


def _candidates(rows: list[tuple[Any, ...]]) -> list[Candidate]:
    return [
        Candidate(record=decode_record(r[:-3]), matched=int(r[-3]), lexical=int(r[-2]))
        for r in rows
    ]


class SqlRecallIndex(RecallIndex):
    dialect: str
    # Below this many postings over a query's terms the full query answers (the
    # max-score attempts cost round trips; PostgreSQL groups with a hash and its full
    # query stays cheap much longer).
    max_score_min_postings = 1000

    def __init__(self) -> None:
        self._lock = threading.RLock()

    # -- what an adapter provides ---------------------------------------------------------

    @abstractmethod
    def _execute(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Run one statement (``?`` placeholders) and return its rows, if any."""

    @abstractmethod
    def _executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None: ...

    def _insert_rows(
        self, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]
    ) -> None:
        """Append rows that cannot conflict (new beliefs, their postings): the bulk path."""
        marks = ", ".join("?" for _ in columns)
        self._executemany(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})", rows)

    @abstractmethod
    @contextmanager
    def _transaction(self) -> Iterator[None]:
        """A write transaction that serializes with every other writer of the read model."""

    @abstractmethod
    def _lock_tracking(self, name: str) -> None:
        """Inside a transaction: hold the tracking row until commit."""

    @abstractmethod
    def _rename_rebuilt_indexes(self) -> None:
        """After the swap: give indexes built under the rebuild prefix their live names."""

    # -- schema -----------------------------------------------------------------------------

    def migrate(self) -> None:
        """Create the read-model tables and apply pending migrations, idempotently."""
        with self._lock, self._transaction():
            for statement in BOOTSTRAP:
                self._execute(statement)
            self._lock_migrations()
            applied = {row[0] for row in self._execute("SELECT name FROM schema_migrations")}
            for name, tables, indexes in load_migrations(self.dialect):
                if name in applied:
                    continue
                for statement in tables + indexes:
                    self._execute(statement.format(p=LIVE_PREFIX))
                self._execute("INSERT INTO schema_migrations (name) VALUES (?)", (name,))
            self._ensure_tracking(RECALL_INDEX)

    def _lock_migrations(self) -> None:
        """Serialize concurrent first opens (PostgreSQL); SQLite's write lock already does."""

    def _relax_commit(self) -> None:
        """Inside a transaction: an operational write need not wait for the disk."""

    def _for_update(self) -> str:
        """A row lock for read-modify-write (PostgreSQL); SQLite's write lock already holds."""
        return ""

    def _ensure_tracking(self, name: str, version: str | None = None) -> None:
        self._execute(
            "INSERT INTO projection_tracking (name, position, version) VALUES (?, 0, ?)"
            " ON CONFLICT (name) DO NOTHING",
            (name, version),
        )

    # -- writing ---------------------------------------------------------------------------

    @contextmanager
    def writer(self, *, rebuild: bool = False) -> Iterator[IndexWriter]:
        name = RECALL_INDEX + REBUILD_SUFFIX if rebuild else RECALL_INDEX
        prefix = REBUILD_PREFIX if rebuild else LIVE_PREFIX
        with self._lock, self._transaction():
            self._lock_tracking(name)
            writer = _SqlWriter(self, name, prefix)
            yield writer
            writer.flush()

    def start_rebuild(self) -> None:
        with self._lock, self._transaction():
            for table in READ_MODEL_TABLES:
                self._execute(f"DROP TABLE IF EXISTS {REBUILD_PREFIX}{table}")
            for _, tables, _ in load_migrations(self.dialect):
                for statement in tables:
                    self._execute(statement.format(p=REBUILD_PREFIX))
            self._execute(
                "DELETE FROM projection_tracking WHERE name = ?", (RECALL_INDEX + REBUILD_SUFFIX,)
            )
            self._ensure_tracking(RECALL_INDEX + REBUILD_SUFFIX, self.version)

    def finish_rebuild(self) -> None:
        with self._lock, self._transaction():
            self._lock_tracking(RECALL_INDEX)
            rows = self._execute(
                "SELECT position FROM projection_tracking WHERE name = ?",
                (RECALL_INDEX + REBUILD_SUFFIX,),
            )
            position = int(rows[0][0])
            # A rebuild's writers leave the term statistics to this one pass over the
            # postings (in key order, so grouped without a sort): cheaper than an upsert
            # per term and page.
            self._execute(
                f"INSERT INTO {REBUILD_PREFIX}term_stats"
                " (principal, term, documents, max_tf, min_len)"
                " SELECT principal, term, COUNT(*), MAX(tf), MIN(doc_len)"
                f" FROM {REBUILD_PREFIX}belief_terms GROUP BY principal, term"
            )
            for table in READ_MODEL_TABLES:
                self._execute(f"DROP TABLE IF EXISTS {table}")
                self._execute(f"ALTER TABLE {REBUILD_PREFIX}{table} RENAME TO {table}")
            self._rename_rebuilt_indexes()
            for _, _, indexes in load_migrations(self.dialect):
                for statement in indexes:
                    self._execute(statement.format(p=LIVE_PREFIX))
            self._execute(
                "UPDATE projection_tracking SET position = ?, version = ? WHERE name = ?",
                (position, self.version, RECALL_INDEX),
            )
            self._execute(
                "DELETE FROM projection_tracking WHERE name = ?", (RECALL_INDEX + REBUILD_SUFFIX,)
            )
        self._analyze()

    def _analyze(self) -> None:
        """After a swap: planner statistics for the fresh tables (PostgreSQL)."""

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

    def find_by_short_id(self, short_id: str) -> list[BeliefRecord]:
        with self._lock:
            rows = self._execute(
                f"{_SELECT_BELIEF} FROM beliefs b WHERE b.short_id = ? ORDER BY b.belief_id",
                (short_id,),
            )
        return [decode_record(r) for r in rows]

    def _statistics(self, principal: str, terms: Sequence[str]) -> tuple[int, int, dict[str, int]]:
        with self._lock:
            stats = self._execute(cq.STATS_SQL, (principal,))
        documents, total = (int(stats[0][0]), int(stats[0][1])) if stats else (0, 0)
        return documents, total, {t: s[0] for t, s in self._term_stats(principal, terms).items()}

    def _term_stats(self, principal: str, terms: Sequence[str]) -> dict[str, tuple[int, int, int]]:
        """(document frequency, largest tf, shortest length) per term the principal holds."""
        if not terms:
            return {}
        with self._lock:
            rows = self._execute(cq.df_sql(terms), [principal, *terms])
        return {term: (int(n), int(x), int(m)) for term, n, x, m in rows}

    def _ranked(
        self,
        principal: str,
        weights: Sequence[cq.TermWeight],
        filters: cq.Filters,
        avgdl: float,
        bm25: cq.Bm25Params,
        cap: int,
    ) -> list[Candidate]:
        def run(
            top: int | None,
            essential: frozenset[str] | None = None,
            driver: tuple[cq.TermWeight, dict[int, int]] | None = None,
            read: dict[int, int] | None = None,
        ) -> list[tuple[Any, ...]]:
            sql, params = cq.candidates_sql(
                _SELECT_BELIEF,
                weights,
                filters,
                principal=principal,
                avgdl=avgdl,
                bm25=bm25,
                cap=cap,
                top=top,
                essential=essential,
                driver=driver,
                read=read,
            )
            with self._lock:
                return self._execute(sql, params)

        # The best scores first, joined to beliefs alone; the full query only when the
        # filters left fewer than the cap of them and rows were left out (exact either way).
        top = max(cap * _TOP_FACTOR, cap)
        rows = self._max_score(run, weights, principal, avgdl, bm25, cap, top)
        if rows is None:
            rows = run(top)
            if len(rows) < cap and (not rows or int(rows[0][-1]) > 0):
                rows = run(None)
        return _candidates(rows)

    def _max_score(
        self,
        run: Callable[..., list[tuple[Any, ...]]],
        weights: Sequence[cq.TermWeight],
        principal: str,
        avgdl: float,
        bm25: cq.Bm25Params,
        cap: int,
        top: int,
    ) -> list[tuple[Any, ...]] | None:
        """Score only the beliefs that can reach the answer, when that is exact and cheaper.

        An attempt aims at a score (a target): it scores whole every belief holding a rare
        term (read whole: few postings) and every belief whose contribution from one other
        term (the driver, :func:`cq.driver_for`) reaches the target less every other
        term's bound; no other belief can reach the target. Its answer is kept when its
        ``cap``-th score reaches the target. When it does not, that score is still a floor
        of the answer's (its beliefs are real, scored whole) and the next attempt aims at
        it, which cannot fail. Targets are guessed high first (small, cheap attempts).
        None: the full query answers.
        """
        stats = self._term_stats(principal, [w.term for w in weights])
        df = {w.term: stats[w.term][0] if w.term in stats else 0 for w in weights}
        if sum(df.values()) <= self.max_score_min_postings:
            return None
        bounds = {
            w.term: cq.term_bound(w.weight, *stats[w.term][1:], avgdl, bm25)
            if w.term in stats
            else 0
            for w in weights
        }
        whole = frozenset(w.term for w in weights if df[w.term] <= _WHOLE_BELOW * cap)
        others = [w for w in weights if w.term not in whole]
        if not others:
            return None
        # The best a belief holding no rare term can score: targets are shares of it.
        best = sum(bounds[w.term] for w in others)

        everything = sum(df.values())

        def lengths(driver: tuple[cq.TermWeight, int]) -> tuple[cq.TermWeight, dict[int, int]]:
            term, need = driver
            _, max_tf, min_len = stats[term.term]
            return term, cq.reaching(term.weight, need, max_tf, min_len, avgdl, bm25)

        # The attempt whose cap-th score is the floor: its driver, the lengths it read, rows.
        best_attempt: tuple[str, dict[int, int], list[tuple[Any, ...]]] | None = None

        def attempt(target: int) -> list[tuple[Any, ...]] | None:
            nonlocal best_attempt
            driver = cq.driver_for(others, bounds, target, df)
            if driver is None or driver[1] < _MIN_DRIVE * bounds[driver[0].term]:
                return None  # the driver would read most of its term: the full query
            term, read = lengths(driver)
            rows = run(top, whole or None, (term, read))
            missed = len(rows) == cap and int(rows[-1][-2]) < target
            if missed and (best_attempt is None or rows[-1][-2] > best_attempt[2][-1][-2]):
                best_attempt = (term.term, read, rows)
            return rows

        floor = 0
        for share in _TARGETS:
            target = int(share * best)
            if target <= floor:
                break
            rows = attempt(target)
            if rows is None:
                break  # lower targets only read more
            if len(rows) == cap:
                if int(rows[-1][-2]) >= target:
                    return rows
                floor = max(floor, int(rows[-1][-2]))
        if not floor or best_attempt is None:
            return None
        # A floor of the answer's cap-th score: the cheaper of a driver aiming at it and
        # max-score (the terms whose bounds sum below it set aside) cannot fail.
        driver = cq.driver_for(others, bounds, floor, df)
        essential, bound = cq.split_below(weights, bounds, floor)
        by_driver = (
            cq.driver_cost(driver, bounds, df, len(weights)) if driver is not None else everything
        )
        by_split = sum(df[t] for t in essential) * len(weights)
        if min(by_driver, by_split) >= _LOOKUP_SHARE * everything:
            return None
        if by_driver <= by_split and driver is not None:
            term, reach = lengths(driver)
            if term.term == best_attempt[0]:
                # The same driver, lower: only the postings the floor adds are scored,
                # and the best attempt's rows (exact, filtered) join them. Beliefs of
                # that attempt not among its rows rank below its cap-th row already.
                more = run(top, None, (term, reach), best_attempt[1])
                if len(more) < cap and more and int(more[0][-1]) > 0:
                    more = run(None, None, (term, reach), best_attempt[1])
                return _best(best_attempt[2] + more, cap)
            rows = run(top, whole or None, (term, reach))
            exact = len(rows) == cap and int(rows[-1][-2]) >= floor
        else:
            rows = run(top, essential)
            exact = len(rows) == cap and int(rows[-1][-2]) > bound
        return rows if exact else None

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

    def idle_sessions(self, *, last_activity_before: str, limit: int) -> list[SessionRecord]:
        with self._lock:
            rows = self._execute(
                f"SELECT {', '.join(SESSION_COLUMNS)} FROM sessions"
                " WHERE closed_at IS NULL AND last_activity_at <= ?"
                " ORDER BY last_activity_at, session_id LIMIT ?",
                (last_activity_before, limit),
            )
        return [SessionRecord(*r) for r in rows]

    def dump(self) -> dict[str, Any]:
        with self._lock:
            sessions = self._execute(
                f"SELECT {', '.join(SESSION_COLUMNS)} FROM sessions ORDER BY session_id"
            )
            beliefs = self._execute(f"{_SELECT_BELIEF} FROM beliefs b ORDER BY b.belief_id")
            terms = self._execute(
                "SELECT principal, term, belief_id, tf FROM belief_terms"
                " ORDER BY principal, term, belief_id"
            )
            heads = self._execute("SELECT principal, position FROM heads ORDER BY principal")
            principals = self._execute(
                "SELECT aggregate_id, principal FROM principals ORDER BY aggregate_id"
            )
            stats = self._execute(
                "SELECT principal, documents, total_len FROM principal_stats ORDER BY principal"
            )
            term_stats = self._execute(
                "SELECT principal, term, documents, max_tf, min_len FROM term_stats"
                " ORDER BY principal, term"
            )
            vectors = self._execute(
                "SELECT belief_id, principal, vector FROM belief_vectors ORDER BY belief_id"
            )
        return {
            "beliefs": [decode_record(r).as_dict() for r in beliefs],
            "terms": [(p, t, b, int(n)) for p, t, b, n in terms],
            "heads": [(p, int(n)) for p, n in heads],
            "principals": [(a, p) for a, p in principals],
            "stats": [(p, int(d), int(n)) for p, d, n in stats],
            "term_stats": [(p, t, int(d), int(x), int(n)) for p, t, d, x, n in term_stats],
            "vectors": [(k, p, bytes(v)) for k, p, v in vectors],
            "sessions": [tuple(r) for r in sessions],
        }


class _SqlWriter(IndexWriter):
    """Stages a page's changes in memory and writes them at the end, a statement per kind.

    A belief formed and then superseded or reinforced inside one page is written once, in
    its final state; rows are sent with ``executemany`` instead of a ``SELECT`` and an
    ``UPDATE`` per event. Reads of beliefs not staged yet go to the tables (or are
    fetched for a whole page at once through ``prefetch``). Everything still commits in
    the writer's one transaction, with the tracked position.
    """

    def __init__(self, index: SqlRecallIndex, name: str, prefix: str) -> None:
        self._index = index
        self._name = name
        self._p = prefix
        self._principals: dict[str, str] = {}
        self._new_principals: dict[str, str] = {}
        self._staged: dict[str, BeliefRecord] = {}  # final state of every touched belief
        self._inserted: set[str] = set()  # staged beliefs that are not in the table yet
        self._changed: set[str] = set()  # staged beliefs already in the table, changed
        self._loaded: dict[str, BeliefRecord | None] = {}  # read from the table, unchanged
        self._terms: list[tuple[str, str, str, int, int]] = []
        self._heads: dict[str, int] = {}
        self._stats: dict[str, list[int]] = {}  # principal -> [documents, total_len] added
        # (principal, term) -> [documents added, largest tf, shortest length among them];
        # a rebuild fills its term statistics at the end instead (finish_rebuild).
        self._term_stats: dict[tuple[str, str], list[int]] = {}
        self._keeps_term_stats = prefix != REBUILD_PREFIX
        self._vectors: list[tuple[str, str, bytes]] = []
        self._opened: dict[str, SessionRecord] = {}
        self._session_changes: dict[str, dict[str, Any]] = {}

    def _run(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        if not sql.lstrip().upper().startswith("SELECT"):
            # A statement that writes directly (a writer method that does not stage) sees
            # every staged change first, and nothing staged can later overwrite it.
            self.flush()
        return self._index._execute(sql.format(p=self._p), params)

    def tracked_position(self) -> int:
        rows = self._run("SELECT position FROM projection_tracking WHERE name = ?", (self._name,))
        return int(rows[0][0]) if rows else 0

    def set_tracking(self, position: int) -> None:
        self._run(
            "UPDATE projection_tracking SET position = ?, version = ? WHERE name = ?",
            (position, self._index.version, self._name),
        )

    def name_principal(self, aggregate_id: str, principal: str) -> None:
        self._principals[aggregate_id] = principal
        self._new_principals[aggregate_id] = principal

    def principal_of(self, aggregate_id: str) -> str:
        if aggregate_id not in self._principals:
            rows = self._run(
                "SELECT principal FROM {p}principals WHERE aggregate_id = ?", (aggregate_id,)
            )
            if not rows:
                raise LookupError(f"no Created event seen for principal aggregate {aggregate_id}")
            self._principals[aggregate_id] = rows[0][0]
        return self._principals[aggregate_id]

    def prefetch(self, belief_ids: Collection[str]) -> None:
        wanted = [b for b in belief_ids if b not in self._staged and b not in self._loaded]
        for start in range(0, len(wanted), _PREFETCH_CHUNK):
            chunk = wanted[start : start + _PREFETCH_CHUNK]
            marks = ", ".join("?" for _ in chunk)
            rows = self._run(
                f"{_SELECT_BELIEF} FROM {{p}}beliefs b WHERE b.belief_id IN ({marks})", chunk
            )
            found = {r[0]: decode_record(r) for r in rows}
            for belief_id in chunk:
                self._loaded[belief_id] = found.get(belief_id)

    def get(self, belief_id: str) -> BeliefRecord | None:
        staged = self._staged.get(belief_id)
        if staged is not None:
            return staged
        if belief_id not in self._loaded:
            rows = self._run(
                f"{_SELECT_BELIEF} FROM {{p}}beliefs b WHERE b.belief_id = ?", (belief_id,)
            )
            self._loaded[belief_id] = decode_record(rows[0]) if rows else None
        return self._loaded[belief_id]

    def insert_belief(self, record: BeliefRecord, terms: Counter[str]) -> None:
        self._staged[record.belief_id] = record
        self._inserted.add(record.belief_id)
        self._terms.extend(
            (record.principal, term, record.belief_id, n, record.doc_len)
            for term, n in terms.items()
        )
        added = self._stats.setdefault(record.principal, [0, 0])
        added[0] += 1
        added[1] += record.doc_len
        if self._keeps_term_stats:
            for term, n in terms.items():
                stat = self._term_stats.get((record.principal, term))
                if stat is None:
                    self._term_stats[(record.principal, term)] = [1, n, record.doc_len]
                else:
                    stat[0] += 1
                    stat[1] = max(stat[1], n)
                    stat[2] = min(stat[2], record.doc_len)
        encoder = self._index.vector_encoder
        if encoder is not None:
            self._vectors.append(
                (record.belief_id, record.principal, encoder.encode(vector_text(record)))
            )

    def update_belief(self, belief_id: str, **changes: Any) -> None:
        current = self.get(belief_id)
        if current is None:
            raise LookupError(belief_id)
        self._staged[belief_id] = current.evolve(**changes)
        if belief_id not in self._inserted:
            self._changed.add(belief_id)

    def open_session(self, record: SessionRecord) -> None:
        self._opened.setdefault(record.session_id, record)

    def update_session(self, session_id: str, **changes: Any) -> None:
        # Every change sets absolute values: the last one per column is the final state.
        self._session_changes.setdefault(session_id, {}).update(changes)

    def raise_head(self, principal: str, position: int) -> None:
        self._heads[principal] = max(position, self._heads.get(principal, position))

    def flush(self) -> None:
        """Write everything staged (inside the writer's transaction) and forget it.

        Runs when the writer's transaction ends and before any statement a writer method
        sends directly (not through the staging methods), so such methods stay correct.
        """
        index, p = self._index, self._p
        if self._new_principals:
            index._executemany(
                f"INSERT INTO {p}principals (aggregate_id, principal) VALUES (?, ?)"
                " ON CONFLICT (aggregate_id) DO NOTHING",
                sorted(self._new_principals.items()),
            )
        if self._inserted:
            index._insert_rows(
                f"{p}beliefs",
                BELIEF_COLUMNS,
                [encode_record(self._staged[b]) for b in sorted(self._inserted)],
            )
        if self._changed:
            index._executemany(
                f"UPDATE {p}beliefs SET {_ASSIGN_ALL} WHERE belief_id = ?",
                [(*encode_record(self._staged[b])[1:], b) for b in sorted(self._changed)],
            )
        if self._terms:
            # In formation order: sorting them by key first measured no faster to insert
            # on either store, and cost a sort of every posting in Python.
            index._insert_rows(f"{p}belief_terms", _POSTING_COLUMNS, self._terms)
        if self._heads:
            index._executemany(
                f"INSERT INTO {p}heads (principal, position) VALUES (?, ?)"
                " ON CONFLICT (principal) DO UPDATE SET position = excluded.position"
                f" WHERE excluded.position > {p}heads.position",
                sorted(self._heads.items()),
            )
        if self._stats:
            index._executemany(
                f"INSERT INTO {p}principal_stats (principal, documents, total_len)"
                " VALUES (?, ?, ?) ON CONFLICT (principal) DO UPDATE SET"
                f" documents = {p}principal_stats.documents + excluded.documents,"
                f" total_len = {p}principal_stats.total_len + excluded.total_len",
                [(k, d, n) for k, (d, n) in sorted(self._stats.items())],
            )
        if self._term_stats:
            index._executemany(
                f"INSERT INTO {p}term_stats (principal, term, documents, max_tf, min_len)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT (principal, term) DO UPDATE SET"
                f" documents = {p}term_stats.documents + excluded.documents,"
                f" max_tf = CASE WHEN excluded.max_tf > {p}term_stats.max_tf"
                f" THEN excluded.max_tf ELSE {p}term_stats.max_tf END,"
                f" min_len = CASE WHEN excluded.min_len < {p}term_stats.min_len"
                f" THEN excluded.min_len ELSE {p}term_stats.min_len END",
                [(k, t, *v) for (k, t), v in sorted(self._term_stats.items())],
            )
        if self._vectors:
            index._insert_rows(
                f"{p}belief_vectors", ("belief_id", "principal", "vector"), sorted(self._vectors)
            )
        if self._opened:
            marks = ", ".join("?" for _ in SESSION_COLUMNS)
            index._executemany(
                f"INSERT INTO {p}sessions ({', '.join(SESSION_COLUMNS)}) VALUES ({marks})"
                " ON CONFLICT (session_id) DO NOTHING",
                [[getattr(r, c) for c in SESSION_COLUMNS] for _, r in sorted(self._opened.items())],
            )
        by_columns: dict[tuple[str, ...], list[list[Any]]] = {}
        for session_id, changes in sorted(self._session_changes.items()):
            columns = tuple(sorted(changes))
            by_columns.setdefault(columns, []).append([*(changes[c] for c in columns), session_id])
        for columns, rows in by_columns.items():
            assignments = ", ".join(f"{c} = ?" for c in columns)
            index._executemany(f"UPDATE {p}sessions SET {assignments} WHERE session_id = ?", rows)
        self._new_principals = {}
        self._staged, self._inserted, self._changed, self._loaded = {}, set(), set(), {}
        self._terms, self._heads = [], {}
        self._stats, self._term_stats, self._vectors = {}, {}, []
        self._opened, self._session_changes = {}, {}


# Every column but the key, in BELIEF_COLUMNS order (the key comes first).
_ASSIGN_ALL = ", ".join(f"{c} = ?" for c in BELIEF_COLUMNS[1:])
_POSTING_COLUMNS = ("principal", "term", "belief_id", "tf", "doc_len")
_PREFETCH_CHUNK = 500
# Rows scored from postings and joined to beliefs before the full query is needed.
_TOP_FACTOR = 2
# Terms held by at most this many caps of beliefs are read whole by max-score.
_WHOLE_BELOW = 2
# Targets guessed, as shares of the query's best possible score, until an attempt finds
# the cap (its cap-th score then sets the next, exact target).
_TARGETS = (0.9, 0.7, 0.5, 0.35)
# A driver must ask at least this share of its bound (else it reads most of its term).
_MIN_DRIVE = 0.35
# Scoring some beliefs by key runs while it looks cheaper than this share of grouping
# every posting (a lookup costs about what grouping three postings does).
_LOOKUP_SHARE = 1.0
