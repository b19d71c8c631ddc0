"""Candidate selection, written once: the SQL both SQL adapters run and its Python twin.

Validity filters first (status, validity window, scope, position, exclusions), then a
BM25 relevance over the one lexeme table, newest first only on ties, then the cap.

Parity across memory, SQLite and PostgreSQL is by construction, not by tolerance:

* term weights (``SCALE * idf``) are computed here in Python from integer statistics
  (documents per principal, document frequency per term) and passed in as parameters;
* the per-term contribution uses only ``+ - * /`` on IEEE doubles, in the same order in
  SQL and in :func:`contribution`, and is floored to an integer;
* the score is a sum of integers, so summation order cannot change it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from projections.records import BeliefRecord

LIVE = ("active", "provisional")
# Rows that were believed once: reachable only through as_of / include-superseded reads.
HISTORICAL = ("active", "provisional", "superseded", "retired")

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


@dataclass(frozen=True)
class TermWeight:
    term: str
    weight: float
    admits: bool  # a boost term (the user, from first-person words) never admits alone


@dataclass(frozen=True)
class Bm25Params:
    k1: float = 1.2
    b: float = 0.75


def second(instant: str) -> str:
    """An ISO instant cut to whole seconds: stored instants may or may not carry micros."""
    return instant[:19]


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
        if second(record.valid_from) > f.as_of:
            return False
        if record.valid_to is not None and second(record.valid_to) <= f.as_of:
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


def contribution(weight: float, tf: int, doc_len: int, avgdl: float, p: Bm25Params) -> int:
    """One matched term's score; the SQL twin is in :func:`candidates_sql` (same op order)."""
    k1p1 = p.k1 + 1.0
    omb = 1.0 - p.b
    return math.floor(weight * (tf * k1p1) / (tf + p.k1 * (omb + p.b * doc_len / avgdl)))


def max_contribution(weight: float, p: Bm25Params) -> int:
    """An upper bound of :func:`contribution` over every tf and length (tf/(tf+...) < 1)."""
    return math.floor(weight * (p.k1 + 1.0))


def prune(weights: Sequence[TermWeight], p: Bm25Params) -> tuple[frozenset[str], int] | None:
    """Max-score split: (essential terms, the most a belief holding none can score).

    The cheapest terms to skip are those with the lowest bound (the most frequent); they
    are set aside while their bounds together stay below the weight of every remaining
    term (about what one remaining term gives a belief of average length). None when no
    term can be set aside.
    """
    order = sorted(weights, key=lambda w: (max_contribution(w.weight, p), w.term))
    bound, skipped = 0, 0
    for i, w in enumerate(order[:-1]):
        rest = min(x.weight for x in order[i + 1 :])
        if bound + max_contribution(w.weight, p) >= rest:
            break
        bound += max_contribution(w.weight, p)
        skipped = i + 1
    if skipped == 0:
        return None
    return frozenset(w.term for w in order[skipped:]), bound


def term_bound(weight: float, max_tf: int, min_len: int, avgdl: float, p: Bm25Params) -> int:
    """An upper bound of one term's contribution to any belief of the principal.

    A contribution grows with tf and shrinks with length (k1 >= 0, 0 <= b <= 1), so no
    posting exceeds the term's largest tf at its shortest length. The +1 covers the floor
    of a double computed at the bound rather than at the posting (the formula is monotone
    in the reals, not necessarily ulp for ulp).
    """
    return min(contribution(weight, max_tf, min_len, avgdl, p) + 1, max_contribution(weight, p))


def split_below(
    weights: Sequence[TermWeight], bounds: Mapping[str, int], floor: int
) -> tuple[frozenset[str], int]:
    """Max-score with a known floor of the answer's ``cap``-th score: (essential terms,
    the most a belief holding none of them scores), that most strictly below ``floor``.

    The terms with the lowest bounds are set aside while their bounds sum below the floor;
    a belief holding only those cannot reach the answer.
    """
    order = sorted(weights, key=lambda w: (bounds[w.term], w.term))
    skipped: set[str] = set()
    bound = 0
    for w in order:
        if bound + bounds[w.term] >= floor:
            break
        bound += bounds[w.term]
        skipped.add(w.term)
    return frozenset(w.term for w in weights if w.term not in skipped), bound


def driver_cost(
    driver: tuple[TermWeight, int], bounds: Mapping[str, int], df: Mapping[str, int], terms: int
) -> float:
    """About what scoring from a driver costs, in posting reads: its postings read, plus
    (were contributions spread evenly up to the bound) the share above the threshold
    looked up once per term."""
    w, need = driver
    return df.get(w.term, 0) * (_SCAN_COST + terms * max(0.0, 1.0 - need / bounds[w.term]))


def driver_for(
    weights: Sequence[TermWeight], bounds: Mapping[str, int], target: int, df: Mapping[str, int]
) -> tuple[TermWeight, int] | None:
    """A term every belief reaching ``target`` (from these terms alone) must hold, with the
    contribution it must give at least: the target less every other term's bound. None
    when no term must.

    Of the terms that qualify, the one expected to cost least (:func:`driver_cost`).
    """
    total = sum(bounds[w.term] for w in weights)
    chosen: tuple[TermWeight, int] | None = None
    cheapest = 0.0
    for w in weights:
        need = target - (total - bounds[w.term])
        if need <= 0 or bounds[w.term] <= 0:
            continue
        cost = driver_cost((w, need), bounds, df, len(weights))
        if chosen is None or cost < cheapest:
            chosen, cheapest = (w, need), cost
    return chosen


def reaching(
    weight: float, need: int, max_tf: int, min_len: int, avgdl: float, p: Bm25Params
) -> dict[int, int]:
    """Per tf up to ``max_tf``: the longest length whose contribution still reaches
    ``need`` (min_len - 1 when none does). The contribution as computed only shrinks with
    length (each operation is monotone), so these lengths select exactly the postings
    whose contribution reaches ``need``, as the SQL formula would compute it."""
    out: dict[int, int] = {}
    for tf in range(1, max_tf + 1):
        length = min_len - 1
        while (
            length < min_len + _LENGTH_SPAN
            and contribution(weight, tf, length + 1, avgdl, p) >= need
        ):
            length += 1
        if length >= min_len + _LENGTH_SPAN:
            length = 1 << 30  # every length reaches it (b = 0 or a long tail)
        out[tf] = length
    return out


# Lengths searched past a term's shortest belief before taking every length.
_LENGTH_SPAN = 4096
# What reading one posting costs beside looking one up by key (measured on SQLite).
_SCAN_COST = 0.1


def contribution_params(avgdl: float, p: Bm25Params) -> list[float]:
    return [p.k1 + 1.0, p.k1, 1.0 - p.b, p.b, avgdl]


# One posting's contribution in SQL, the same operations in the same order as
# :func:`contribution` (then the parameters of :func:`contribution_params`).
_CONTRIBUTION = "FLOOR({weight} * (t.tf * ?) / (t.tf + ? * (? + ? * t.doc_len / ?)))"


# -- SQL ------------------------------------------------------------------------------------

STATS_SQL = "SELECT documents, total_len FROM principal_stats WHERE principal = ?"


def df_sql(terms: Sequence[str]) -> str:
    """Per term: beliefs holding it, its largest tf and their shortest length (the writer
    keeps them in ``term_stats``, one row per principal and term)."""
    marks = ", ".join("?" for _ in terms)
    return (
        "SELECT term, documents, max_tf, min_len FROM term_stats WHERE principal = ?"
        f" AND term IN ({marks})"
    )


def candidates_sql(
    select_belief: str,
    weights: Sequence[TermWeight],
    f: Filters,
    *,
    principal: str,
    avgdl: float,
    bm25: Bm25Params,
    cap: int,
    top: int | None = None,
    essential: frozenset[str] | None = None,
    driver: tuple[TermWeight, dict[int, int]] | None = None,
    read: dict[int, int] | None = None,
) -> tuple[str, list[Any]]:
    """BM25 over the lexeme table: the statement and its parameters, in order.

    Every matched belief is scored from its postings alone (``belief_terms`` carries tf
    and the belief's indexed length), so the scoring never reads ``beliefs``. With
    ``top`` only the ``top`` best scores — and every row tied with the lowest of them —
    are joined to ``beliefs`` for the validity filters and the final order; any row left
    out scores strictly lower than every row kept. So when at least ``cap`` kept rows
    pass the filters, the answer is exactly the full query's; otherwise (the last column,
    ``cut``, says whether rows were left out) the caller runs the full query, ``top=None``.

    With ``essential`` (max-score pruning) only beliefs holding an essential term are
    scored (fully: every query term's posting of theirs is looked up by key). A belief
    holding none scores at most :func:`max_score` of the other terms, so the caller keeps
    the answer only when its ``cap``-th score is strictly above that bound.

    With ``driver`` (a term and, per tf, the longest length whose contribution reaches
    a threshold: :func:`reaching`) the beliefs whose contribution from that term reaches
    the threshold are scored the same way, beside the essential terms' beliefs. The
    caller picks the threshold so that no other belief can reach its target score.
    With ``read`` (lengths per tf of an earlier, higher threshold of the same driver) the
    driver's postings that threshold already selected are left out.
    """
    where, where_params = where_sql("b", f)
    params: list[Any] = []
    if essential is None and driver is None:
        # The postings are read by the lexeme table's (principal, term) key and scored
        # there, materialized, so no planner (PostgreSQL without statistics included)
        # starts from the beliefs table instead.
        values = ", ".join("(?, ?, ?)" for _ in weights)
        for w in weights:
            params += [w.term, w.weight, 1 if w.admits else 0]
        sql = (
            f"WITH q(term, weight, admits) AS (VALUES {values}),"
            " s AS MATERIALIZED ("
            " SELECT t.belief_id, SUM(q.admits) AS matched,"
            f" SUM({_CONTRIBUTION.format(weight='q.weight')}) AS lex"
            " FROM q JOIN belief_terms t ON t.principal = ? AND t.term = q.term"
            " GROUP BY t.belief_id HAVING SUM(q.admits) > 0"
            ")"
        )
        params += [*contribution_params(avgdl, bm25), principal]
    else:
        # Only some beliefs are scored: each query term's posting of each is looked up by
        # key (a scalar subquery per term: no join to group and sort afterwards).
        seeds: list[str] = []
        if essential is not None:
            marks = ", ".join("?" for _ in sorted(essential))
            seeds.append(
                "SELECT DISTINCT t.belief_id FROM belief_terms t"
                f" WHERE t.principal = ? AND t.term IN ({marks})"
            )
            params += [principal, *sorted(essential)]
        if driver is not None:
            # The postings whose contribution reaches the threshold: for each tf, those up
            # to a length (a contribution only shrinks with length, as computed too).
            term, lengths = driver
            cases = " ".join("WHEN ? THEN ?" for _ in lengths)
            seeds.append(
                "SELECT t.belief_id FROM belief_terms t WHERE t.principal = ? AND t.term = ?"
                f" AND t.doc_len <= CASE t.tf {cases} ELSE ? END"
            )
            params += [principal, term.term]
            for tf, length in sorted(lengths.items()):
                params += [tf, length]
            params.append(1 << 30)  # a tf above the term's largest: not written, but safe
            if read is not None:
                cases = " ".join("WHEN ? THEN ?" for _ in read)
                seeds[-1] += f" AND t.doc_len > CASE t.tf {cases} ELSE ? END"
                for tf, length in sorted(read.items()):
                    params += [tf, length]
                params.append(-1)
        sql = f"WITH e AS MATERIALIZED ({' UNION '.join(seeds)}),"
        lookups = []
        for i, w in enumerate(weights):
            lookups.append(
                f"(SELECT {_CONTRIBUTION.format(weight='?')} FROM belief_terms t"
                f" WHERE t.principal = ? AND t.term = ? AND t.belief_id = e.belief_id) AS c{i}"
            )
            params += [w.weight, *contribution_params(avgdl, bm25), principal, w.term]
        matched = " + ".join(
            f"(CASE WHEN c.c{i} IS NULL THEN 0 ELSE {1 if w.admits else 0} END)"
            for i, w in enumerate(weights)
        )
        lex = " + ".join(f"COALESCE(c.c{i}, 0)" for i in range(len(weights)))
        sql += (
            f" c AS MATERIALIZED (SELECT e.belief_id, {', '.join(lookups)} FROM e),"
            f" s AS MATERIALIZED (SELECT c.belief_id, {matched} AS matched, {lex} AS lex"
            f" FROM c WHERE {matched} > 0)"
        )
    if top is None:
        source, cut = "s", "0"
    else:
        sql += (
            ", k AS MATERIALIZED ("
            " SELECT s.belief_id, s.matched, s.lex FROM s WHERE s.lex >= ("
            " SELECT MIN(x.lex) FROM (SELECT s.lex FROM s ORDER BY s.lex DESC LIMIT ?) x)"
            ")"
        )
        params.append(top)
        source, cut = "k", "(SELECT COUNT(*) FROM s) - (SELECT COUNT(*) FROM k)"
    sql += (
        f" {select_belief}, m.matched, m.lex, {cut} FROM {source} m"
        " JOIN beliefs b ON b.belief_id = m.belief_id"
        f" WHERE {where}"
        " ORDER BY m.lex DESC, b.position DESC, b.belief_id DESC LIMIT ?"
    )
    params += [*where_params, cap]
    return sql, params


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
