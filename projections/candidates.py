"""Candidate selection, written once for every store: validity, then BM25, then the cap.

Validity filters (status, validity window, scope, position, exclusions) decide what may
be offered at all; among what passes, BM25 relevance over the principal's postings, newest
first only on ties, then the cap.

Parity across memory, SQLite and PostgreSQL is by construction, not by tolerance: every
store hands its postings (packed records, :func:`posting_dtype`) to the one scoring function
here, :func:`scores`; term weights (``SCALE * idf``) come from integer statistics; each
contribution is floored to an integer, so the sum is exact in any order. The SQL stores
run only the validity filters in SQL (:func:`where_sql`, twin of :func:`passes`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from itertools import chain
from typing import TYPE_CHECKING, Any

from memory_es.domain.values import Status
from memory_es.ports import second_key
from memory_es.projections.records import BeliefRecord, Candidate

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

LIVE = (Status.ACTIVE, Status.PROVISIONAL)
# Rows that were believed once: reachable only through as_of / include-superseded reads.
HISTORICAL = (*LIVE, Status.SUPERSEDED, Status.RETIRED)

# Fixed-point scale of a term weight: contributions are integers in thousandths.
SCALE = 1000.0


@dataclass(frozen=True)
class Filters:
    """What may be offered to ranking at all: validity before relevance."""

    project: str
    statuses: tuple[str, ...] = LIVE
    as_of: str | None = None  # second resolution, "YYYY-MM-DDTHH:MM:SS"
    min_position: int = 0
    exclude: tuple[str, ...] = field(default_factory=tuple)
    max_position: int | None = None  # the session snapshot reads up to its watermark
    belief_types: tuple[str, ...] | None = None  # None: every type


LIFECYCLE_PAGE = 500  # rows a lifecycle sweep reads at a time


@dataclass(frozen=True)
class LifecycleQuery:
    """A bounded read for a lifecycle sweep (decay, L1, session end), across principals
    unless one is named: rows matching every set condition, least recently evidenced
    first ``(last_evidence_at, belief_id)``, strictly after the cursor ``after``.
    :meth:`matches` is the Python twin of the SQL stores' ``WHERE`` (projections/sql.py)."""

    statuses: tuple[Status, ...] = LIVE
    principal: str | None = None
    max_authority: int | None = None
    provisional_or_below: float | None = None  # provisional, or confidence below this
    max_importance: int | None = None
    idle_before: str | None = None  # idle_since at or before
    touched_before: str | None = None  # touched_at at or before
    interval_before: str | None = None  # interval_started_at at or before
    source_session: str | None = None
    max_evidence: int | None = None  # evidence_count at most
    unpinned: bool = True
    after: tuple[str, str] | None = None
    limit: int = LIFECYCLE_PAGE

    def matches(self, b: BeliefRecord) -> bool:
        return (
            b.status in self.statuses
            and (self.principal is None or b.principal == self.principal)
            and (self.max_authority is None or b.authority <= self.max_authority)
            and (
                self.provisional_or_below is None
                or b.status == Status.PROVISIONAL
                or b.confidence < self.provisional_or_below
            )
            and (self.max_importance is None or b.importance <= self.max_importance)
            and (self.idle_before is None or b.idle_since <= self.idle_before)
            and (self.touched_before is None or b.touched_at <= self.touched_before)
            and (self.interval_before is None or b.interval_started_at <= self.interval_before)
            and (self.source_session is None or b.source_session_id == self.source_session)
            and (self.max_evidence is None or b.evidence_count <= self.max_evidence)
            and (not self.unpinned or not b.pinned)
            and (self.after is None or (b.last_evidence_at, b.belief_id) > self.after)
        )

    def where_sql(self) -> tuple[str, list[Any]]:
        """The same conditions as SQL over ``beliefs b`` (``?`` placeholders)."""
        marks = ", ".join("?" for _ in self.statuses)
        clauses = [f"b.status IN ({marks})"]
        params: list[Any] = list(self.statuses)
        optional: tuple[tuple[Any, str], ...] = (
            (self.principal, "b.principal = ?"),
            (self.max_authority, "b.authority <= ?"),
            (self.max_importance, "b.importance <= ?"),
            (self.idle_before, "b.idle_since <= ?"),
            (self.touched_before, "b.touched_at <= ?"),
            (self.interval_before, "b.interval_started_at <= ?"),
            (self.source_session, "b.source_session_id = ?"),
            (self.max_evidence, "b.evidence_count <= ?"),
        )
        for value, clause in optional:
            if value is not None:
                clauses.append(clause)
                params.append(value)
        if self.provisional_or_below is not None:
            clauses.append("(b.status = ? OR b.confidence < ?)")
            params.extend([Status.PROVISIONAL.value, self.provisional_or_below])
        if self.unpinned:
            clauses.append("b.pinned = 0")
        if self.after is not None:
            clauses.append(
                "(b.last_evidence_at > ? OR (b.last_evidence_at = ? AND b.belief_id > ?))"
            )
            params.extend([self.after[0], self.after[0], self.after[1]])
        return " AND ".join(clauses), params


@dataclass(frozen=True)
class TermWeight:
    term: str
    weight: float
    admits: bool  # a boost term (the user, from first-person words) never admits alone


@dataclass(frozen=True)
class Bm25Params:
    k1: float = 1.2
    b: float = 0.75


def passes(record: BeliefRecord, f: Filters) -> bool:
    """The Python twin of :func:`where_sql`."""
    if record.status not in f.statuses or record.position <= f.min_position:
        return False
    if not (record.project == f.project or record.portable):
        return False
    if record.belief_id in f.exclude:
        return False
    if f.max_position is not None and record.position > f.max_position:
        return False
    if f.belief_types is not None and record.belief_type not in f.belief_types:
        return False
    if f.as_of is not None:
        if second_key(record.valid_from) > f.as_of:
            return False
        if record.valid_to is not None and second_key(record.valid_to) <= f.as_of:
            return False
    return True


def where_sql(alias: str, f: Filters) -> tuple[str, list[Any]]:
    a = alias
    parts = [
        f"{a}.status IN ({', '.join('?' for _ in f.statuses)})",
        f"({a}.project = ? OR {a}.portable = 1)",
        f"{a}.position > ?",
    ]
    params: list[Any] = [*f.statuses, f.project, f.min_position]
    if f.exclude:
        parts.append(f"{a}.belief_id NOT IN ({', '.join('?' for _ in f.exclude)})")
        params.extend(f.exclude)
    if f.max_position is not None:
        parts.append(f"{a}.position <= ?")
        params.append(f.max_position)
    if f.belief_types is not None:
        parts.append(f"{a}.belief_type IN ({', '.join('?' for _ in f.belief_types)})")
        params.extend(f.belief_types)
    if f.as_of is not None:
        parts.append(f"SUBSTR({a}.valid_from, 1, 19) <= ?")
        parts.append(f"({a}.valid_to IS NULL OR SUBSTR({a}.valid_to, 1, 19) > ?)")
        params.extend([f.as_of, f.as_of])
    return " AND ".join(parts), params


def idf(df: int, documents: int) -> float:
    """Okapi BM25's idf with Lucene's +1, so it is never negative."""
    return math.log(1.0 + (documents - df + 0.5) / (df + 0.5))


def term_weights(
    terms: Iterable[str], boost: Iterable[str], df: Mapping[str, int], documents: int
) -> list[TermWeight]:
    out = [TermWeight(t, SCALE * idf(df.get(t, 0), documents), True) for t in sorted(set(terms))]
    admitted = {w.term for w in out}
    out += [
        TermWeight(t, SCALE * idf(df.get(t, 0), documents), False)
        for t in sorted(set(boost) - admitted)
    ]
    return out


def _saturated(weight: Any, tf: Any, length: Any, avgdl: float, p: Bm25Params) -> Any:
    """BM25's per-term formula, written once: on floats and on numpy arrays alike (the same
    IEEE operations in the same order either way)."""
    return weight * (tf * (p.k1 + 1.0)) / (tf + p.k1 * ((1.0 - p.b) + p.b * length / avgdl))


def contribution(weight: float, tf: int, doc_len: int, avgdl: float, p: Bm25Params) -> int:
    """One matched term's score, floored: what :func:`scores` gives each posting."""
    return math.floor(float(_saturated(weight, tf, doc_len, avgdl, p)))


# -- postings: one term's beliefs, packed -----------------------------------------------------
#
# Every store keeps a term's postings as fixed-size records (belief number, tf, the belief's
# indexed length) in blocks of ``BLOCK`` records, in belief-number order; the SQL stores keep
# a block a row. A query reads its terms' blocks whole and scores every posting at once in
# numpy: reading a block costs about what reading one posting row did, and the arithmetic
# is vectorized, so a term held by most beliefs costs little more than a rare one.
#
# numpy is imported by the functions that use it, not by this module: the projector and
# the SQL adapters import it, and a command that writes no postings (``session say``)
# must not pay numpy's import (tests/test_cli_startup.py).

POSTING_SIZE = 16  # bytes a record: the dtype below (i8 + i4 + i4)
BLOCK = 512  # records a block: 8 KiB, so a writer appending to a term rewrites at most that


@cache
def posting_dtype() -> np.dtype[Any]:
    """The posting record: belief number, tf, the belief's indexed length."""
    import numpy as np

    dtype = np.dtype([("no", "<i8"), ("tf", "<i4"), ("len", "<i4")])
    assert dtype.itemsize == POSTING_SIZE
    return dtype


def pack(postings: Sequence[tuple[int, int, int]]) -> bytes:
    """(belief number, tf, length) records as stored; appending is concatenating bytes."""
    import numpy as np

    return np.array(postings, dtype=posting_dtype()).tobytes()


def pack_each(groups: Sequence[Sequence[tuple[int, int, int]]]) -> list[bytes]:
    """:func:`pack` of every group, the records put in one array at once: a page's
    postings are thousands of short groups, and numpy builds a structured array from
    tuples one tuple at a time, but reads a flat run of integers at C speed."""
    import numpy as np

    total = sum(map(len, groups))
    if not total:
        return [b"" for _ in groups]
    flat = np.fromiter(
        chain.from_iterable(chain.from_iterable(groups)), dtype=np.int64, count=3 * total
    ).reshape(total, 3)
    records = np.empty(total, dtype=posting_dtype())
    records["no"], records["tf"], records["len"] = flat[:, 0], flat[:, 1], flat[:, 2]
    data = records.tobytes()
    out = []
    start = 0
    for group in groups:
        end = start + len(group) * POSTING_SIZE
        out.append(data[start:end])
        start = end
    return out


def unpack(blocks: Iterable[bytes | bytearray]) -> npt.NDArray[Any]:
    """One term's blocks, in block order, as one array of :func:`posting_dtype` records."""
    import numpy as np

    return np.frombuffer(b"".join(blocks), dtype=posting_dtype())


def blocks(stored: bytes, appended: bytes, first: int) -> list[tuple[int, int, bytes]]:
    """(block, records, bytes) rows holding a term's tail block ``first`` (``stored``, may
    be empty) followed by ``appended``: the tail filled up to :data:`BLOCK`, then new ones."""
    data = stored + appended
    size = BLOCK * POSTING_SIZE
    return [
        (first + i, len(data[start : start + size]) // POSTING_SIZE, data[start : start + size])
        for i, start in enumerate(range(0, len(data), size))
    ]


def postings_rows(
    ids: Mapping[tuple[str, int], str], stored: Iterable[tuple[str, str, bytes]]
) -> list[tuple[str, str, str, int]]:
    """(principal, term, belief id, tf) of every stored posting, sorted: what a dump holds,
    so stores (and a rebuild against the live tables) compare whatever their numbering."""
    out = []
    for principal, term, data in stored:
        for record in unpack([data]):
            out.append((principal, term, ids[(principal, int(record["no"]))], int(record["tf"])))
    return sorted(out)


class TermScores:
    """One term's postings scored (:func:`term_scores`)."""

    __slots__ = ("_top", "best", "numbers", "parts")

    def __init__(self, numbers: npt.NDArray[np.int64], parts: npt.NDArray[np.float64]) -> None:
        self.numbers = numbers  # ascending
        self.parts = parts  # floored contributions, integers
        self.best = float(parts.max()) if len(parts) else 0.0  # the largest part
        self._top: npt.NDArray[np.int64] | None = None

    def top(self, count: int) -> npt.NDArray[np.int64]:
        """The numbers of the ``count`` (at most :data:`TOP_PARTS`) largest parts; found
        once, on the first search that seeds from this term."""
        import numpy as np

        if self._top is None:
            parts = self.parts
            top = (
                np.argpartition(parts, -TOP_PARTS)[-TOP_PARTS:]
                if len(parts) > TOP_PARTS
                else np.arange(len(parts))
            )
            self._top = top[np.argsort(-parts[top], kind="stable")]
        return self.numbers[self._top[:count]]

    def unseeded(self, count: int) -> float:
        """The largest part outside :meth:`top` (``count`` below :data:`TOP_PARTS`)."""
        self.top(count)
        assert self._top is not None
        return float(self.parts[self._top[count]]) if len(self.parts) > count else 0.0


TOP_PARTS = 1024  # per term: the seeds of the pruned search (a cap above it seeds itself)


def term_scores(w: TermWeight, held: npt.NDArray[Any], avgdl: float, p: Bm25Params) -> TermScores:
    """One term's postings scored: what :func:`contribution` gives each, the same IEEE
    operations in the same order on doubles (numpy's are the machine's, as Python's
    are). A function of the postings, the term's weight, ``avgdl`` and ``p`` only, so a
    reader may keep it while they hold."""
    import numpy as np

    tf = held["tf"].astype(np.float64)
    parts = np.floor(_saturated(w.weight, tf, held["len"].astype(np.float64), avgdl, p))
    numbers = np.ascontiguousarray(held["no"])
    if len(numbers) > 1 and not bool((numbers[1:] > numbers[:-1]).all()):
        order = np.argsort(numbers, kind="stable")  # stored in number order; made sure
        numbers, parts = numbers[order], parts[order]
    return TermScores(numbers, parts)


Scored = tuple[TermWeight, TermScores]


def combine(
    scored: Sequence[Scored],
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """(belief numbers, admitting terms matched, BM25 integer) of every belief holding an
    admitting term: each term's parts summed per belief (integers, so the order of the
    sum cannot move it)."""
    import numpy as np

    scored = [(w, t) for w, t in scored if len(t.numbers)]
    admitting = [t.numbers for w, t in scored if w.admits]
    if not admitting:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    # Belief numbers are small and dense (1..documents), so a belief's sums live at its
    # number: a count per number, no sort of the postings.
    where = np.concatenate([t.numbers for _, t in scored])
    lex = np.bincount(where, weights=np.concatenate([t.parts for _, t in scored]))
    matched = np.bincount(np.concatenate(admitting), minlength=len(lex))
    held = np.flatnonzero(matched)
    return held.astype(np.int64), matched[held].astype(np.int64), lex[held].astype(np.int64)


def exact(
    scored: Sequence[Scored], numbers: npt.NDArray[np.int64]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """:func:`combine`'s (numbers, matched, BM25) for the given beliefs only (ascending,
    distinct): each term's part looked up by number."""
    import numpy as np

    if len(numbers) * len(scored) * 4 > sum(len(t.numbers) for _, t in scored):
        # Many: add every term's parts at their numbers (no number twice in one term).
        size = int(numbers[-1]) + 1 if len(numbers) else 0
        dense = np.zeros(size, dtype=np.float64)
        counts = np.zeros(size, dtype=np.int64)
        for w, t in scored:
            inside = t.numbers[: np.searchsorted(t.numbers, size)]
            dense[inside] += t.parts[: len(inside)]
            if w.admits:
                counts[inside] += 1
        return numbers, counts[numbers], dense[numbers].astype(np.int64)
    lex = np.zeros(len(numbers), dtype=np.float64)
    matched = np.zeros(len(numbers), dtype=np.int64)
    for w, t in scored:
        at = np.searchsorted(t.numbers, numbers)
        np.minimum(at, len(t.numbers) - 1, out=at)
        hit = t.numbers[at] == numbers
        lex += np.where(hit, t.parts[at], 0.0)
        if w.admits:
            matched += hit
    return numbers, matched, lex.astype(np.int64)


PRUNE_FROM = 4096  # postings: below this every belief is scored (cheaper than bounding)


def top_candidates(
    scored: Sequence[Scored],
    cap: int,
    valid: Callable[[list[int]], Mapping[int, BeliefRecord]],
) -> list[Candidate]:
    """:func:`best_first` over :func:`combine` — the same list — scoring only beliefs
    that can reach it (MaxScore's bound, safe by construction).

    Seeds (each admitting term's largest parts) are scored exactly and read best first
    until ``cap`` pass the filters: the last of them scores ``floor``, so the answer's
    lowest score is at least ``floor`` (first tried without the filters: the seeds' own
    cap-th score, kept when the answer it gives ends at least that high). Outside the
    seeds a belief's part of a term is at most what the seeds left of it (``left``), and
    it scores at most the sum of those of the terms it holds; so one that can score
    ``floor`` holds an *essential* term (the terms left after the longest run, smallest
    first, whose ``left`` sum below ``floor``), and in every term it holds its part is at
    least ``floor`` minus the other terms' ``left``. Only the seeds and the essential
    terms' postings passing that are scored and read: every belief left out scores below
    ``floor``, strictly below each of the ``cap`` returned, as in the full search.
    """
    import numpy as np

    scored = [(w, t) for w, t in scored if len(t.numbers)]
    admitting = [(w, t) for w, t in scored if w.admits]
    postings = sum(len(t.numbers) for _, t in scored)
    known: dict[int, BeliefRecord | None] = {}

    def once(chosen: list[int]) -> dict[int, BeliefRecord]:
        new = [n for n in chosen if n not in known]
        if new:
            found = valid(new)
            for n in new:
                known[n] = found.get(n)
        return {n: r for n in chosen if (r := known[n]) is not None}

    if not admitting:
        return []
    if postings < PRUNE_FROM or cap >= TOP_PARTS:
        return best_first(*combine(scored), cap, once)
    seeds = exact(scored, _union([t.top(cap) for _, t in admitting]))
    # Outside the seeds a belief's part of an admitting term is at most the largest part
    # not seeded (0 when every holder is a seed); of a boost term, its largest.
    left = [t.unseeded(cap) if w.admits else t.best for w, t in scored]
    if len(seeds[0]) >= cap:
        # First the bound of the seeds' cap-th score, filters not read: when the answer
        # it gives scores that much at its last, the bound held (every belief left out
        # scores below it) and the seeds' rows are read only once, by that search.
        guess = int(np.partition(seeds[2], -cap)[-cap])
        found = _bounded(scored, left, seeds[0], guess, cap, postings, once)
        if found is not None and len(found) == cap and found[-1].lexical >= guess:
            return found
    first = best_first(*seeds, cap, once)
    if len(first) < cap:  # fewer than cap seeds pass the filters: no bound
        return best_first(*combine(scored), cap, once)
    found = _bounded(scored, left, seeds[0], first[-1].lexical, cap, postings, once)
    return best_first(*combine(scored), cap, once) if found is None else found


def _bounded(
    scored: Sequence[Scored],
    left: Sequence[float],
    seeds: npt.NDArray[np.int64],
    floor: int,
    cap: int,
    postings: int,
    valid: Callable[[list[int]], Mapping[int, BeliefRecord]],
) -> list[Candidate] | None:
    """:func:`best_first` over the seeds and the beliefs outside them that can score
    ``floor``, each term's part there at most ``left`` (None: most beliefs can)."""
    ceiling = sum(left)
    by_left = sorted(zip(left, (t for _, t in scored), strict=True), key=lambda s: s[0])
    below = 0.0
    while by_left and below + by_left[0][0] < floor:
        below += by_left.pop(0)[0]
    reach = [t.numbers[t.parts >= floor - (ceiling - most)] for most, t in by_left]
    if sum(len(r) for r in reach) * 2 > postings:  # the bound leaves most: score them all
        return None
    numbers, matched, lex = exact(scored, _union([seeds, *reach]))
    held = matched > 0  # an essential boost term reaches beliefs no admitting term holds
    return best_first(numbers[held], matched[held], lex[held], cap, valid)


def _union(arrays: Sequence[npt.NDArray[np.int64]]) -> npt.NDArray[np.int64]:
    """The distinct belief numbers of ``arrays``, ascending: a mark per number (they are
    dense, 1..documents), measured 100x faster than ``np.unique`` at 50k."""
    import numpy as np

    if len(arrays) == 1 and len(arrays[0]) and bool((arrays[0][1:] > arrays[0][:-1]).all()):
        return arrays[0]
    marks = np.zeros(max((int(a.max()) for a in arrays if len(a)), default=0) + 1, dtype=bool)
    for a in arrays:
        marks[a] = True
    return np.flatnonzero(marks).astype(np.int64)


def scores(
    weights: Sequence[TermWeight],
    postings: Mapping[str, npt.NDArray[Any]],
    avgdl: float,
    p: Bm25Params,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """(belief numbers, admitting terms matched, BM25 integer) of every belief holding an
    admitting query term: :func:`term_scores` of each term, :func:`combine`."""
    return combine(scored_terms(weights, postings, avgdl, p))


def scored_terms(
    weights: Sequence[TermWeight],
    postings: Mapping[str, npt.NDArray[Any]],
    avgdl: float,
    p: Bm25Params,
) -> list[Scored]:
    out = []
    for w in weights:
        held = postings.get(w.term)
        if held is not None and len(held):
            out.append((w, term_scores(w, held, avgdl, p)))
    return out


def best_first(
    numbers: npt.NDArray[np.int64],
    matched: npt.NDArray[np.int64],
    lex: npt.NDArray[np.int64],
    cap: int,
    valid: Callable[[list[int]], Mapping[int, BeliefRecord]],
) -> list[Candidate]:
    """The ``cap`` best scored beliefs that pass the filters, in the candidate order.

    Scores are read best first in slices (the ``cap`` best, then twice as many of the
    rest, ...), every belief tied with a slice's lowest score included; ``valid`` returns
    those of a slice's numbers that pass the filters. Once ``cap`` have passed, every
    belief not read scores strictly lower than each of them, so the answer is exactly the
    filtered, ordered, capped list. A large pool is first read within its ``8 * cap``
    best (every tie included): when ``cap`` of those pass, every belief outside scores
    strictly lower than each, so that is the answer, and the pool's arrays are not
    sliced again and again.
    """
    import numpy as np

    region = 8 * cap
    if len(lex) > 2 * region:
        inside = np.flatnonzero(lex >= np.partition(lex, -region)[-region])
        if len(inside) * 2 <= len(lex):  # else ties fill the region: no smaller pool
            best = best_first(numbers[inside], matched[inside], lex[inside], cap, valid)
            if len(best) == cap:
                return best
    rows: list[tuple[int, BeliefRecord]] = []
    held: dict[str, int] = {}
    rest = np.ones(len(lex), dtype=bool)  # not read yet
    width = cap
    while len(rows) < cap and rest.any():
        left = lex[rest]
        lowest = left.min() if len(left) <= width else np.partition(left, -width)[-width]
        chosen = np.flatnonzero(rest & (lex >= lowest))
        rest[chosen] = False
        found = valid(numbers[chosen].tolist())
        for n, score, hits in zip(
            numbers[chosen].tolist(), lex[chosen].tolist(), matched[chosen].tolist(), strict=True
        ):
            record = found.get(n)
            if record is not None:
                rows.append((score, record))
                held[record.belief_id] = hits
        width *= 2
    return [
        Candidate(record=r, matched=held[r.belief_id], lexical=n) for n, r in in_order(rows)[:cap]
    ]


# -- SQL ------------------------------------------------------------------------------------

# The principal's statistics row, its term column NULL (a UNION with term_stats follows).
STATS_SQL = "SELECT NULL, documents, total_len FROM principal_stats WHERE principal = ?"


def browse_sql(
    select_belief: str, f: Filters, *, principal: str, cap: int
) -> tuple[str, list[Any]]:
    """No query text (a priming or delta read): every valid row, newest first."""
    where, params = where_sql("b", f)
    sql = (
        f"{select_belief}, 0, 0 FROM beliefs b WHERE b.principal = ? AND {where}"
        " ORDER BY b.position DESC, b.belief_id DESC LIMIT ?"
    )
    return sql, [principal, *params, cap]


def vectors_sql(select_belief: str, f: Filters, *, principal: str) -> tuple[str, list[Any]]:
    """Every valid row of the principal that has a vector (the vector arm scores them)."""
    where, params = where_sql("b", f)
    sql = (
        f"{select_belief}, v.vector FROM belief_vectors v"
        " JOIN beliefs b ON b.belief_id = v.belief_id"
        f" WHERE v.principal = ? AND {where}"
    )
    return sql, [principal, *params]


def in_order(rows: list[tuple[int, BeliefRecord]]) -> list[tuple[int, BeliefRecord]]:
    """Python twin of ``ORDER BY lex DESC, position DESC, belief_id DESC`` (stable sorts)."""
    rows = sorted(rows, key=lambda r: r[1].belief_id, reverse=True)
    return sorted(rows, key=lambda r: (-r[0], -r[1].position))
