"""The one ranking function: fused candidates in, scored, penalised and selected out.

    base  = lifecycle[status] * ( w.match      * match
                                 + w.confidence * confidence
                                 + w.reinforce  * reinforce
                                 + w.authority  * authority / 3
                                 + w.scope      * scope
                                 + w.utility    * utility
                                 + w.dated      * dated )
    score = max(0, base - stale_penalty [validity closed]
                        - near_duplicate_penalty [same subject+type, Jaccard >= 0.8])

    match     = relevance / max relevance in the pool (BM25, or RRF when hybrid)
    reinforce = min(1, log1p(evidence_count) / log1p(10)) * exp(-age_days / tau[type])
    age_days  = max(0, whole days from last_evidence_at to now)   (now: as_of or clock)
    dated     = 1 when the question asks when and the statement names a time, or the
                question names a period and the belief was stated in it; else 0

Order: score descending, then store position descending, then belief id. Selection then
leaves out, in a query read, lines under ``MIN_MATCH`` of the best match, collapses exact
duplicates, caps items per subject (conflict partners bypass the cap),
holds ``ceil(durable_item_share * limit)`` slots for beliefs about the person in a
priming read, and cuts to the caller's budget. Everything here is pure Python over
values every store returns identically, so the order is identical on every store.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from memory_es.domain.values import PORTABLE_TYPES, Status, normalize_statement
from memory_es.ports import parse_iso
from memory_es.projections.records import BeliefRecord
from memory_es.retrieval.quantity import names_quantity
from memory_es.retrieval.temporal import dated
from memory_es.retrieval.tokenizer import lexemes, terms

if TYPE_CHECKING:
    from memory_es.profiles import RetrievalProfile

C_MAX = 10
MAX_AUTHORITY = 3
MIN_CAPPED_AUTHORITY = 1  # INFERRED: the beliefs that carry their turn's context
DURABLE_TYPES = frozenset(t.value for t in PORTABLE_TYPES)


@dataclass(frozen=True)
class Offered:
    """A candidate after fusion: what the arms found and how relevant it is."""

    record: BeliefRecord
    matched: int = 0  # admitting query terms it holds
    lexical: int = 0  # BM25 in fixed point; 0 when only the vector arm found it
    cosine: float | None = None  # vector arm similarity, when the arm ran and found it
    relevance: float = 0.0  # what ``match`` is normalised from


@dataclass(frozen=True)
class Components:
    match: float
    confidence: float
    reinforce: float
    authority: float
    scope: float
    utility: float
    dated: float
    lifecycle: float
    base: float
    stale_penalty: float
    near_duplicate_penalty: float

    def as_dict(self) -> dict[str, float]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


@dataclass(frozen=True)
class Scored:
    record: BeliefRecord
    score: float
    matched: int
    lexical: int
    cosine: float | None
    components: Components
    validity: str


@dataclass(frozen=True)
class Selection:
    items: tuple[Scored, ...]
    dropped: tuple[Scored, ...]  # eligible, but past the caller's item budget
    blocked: tuple[tuple[Scored, str], ...] = field(default_factory=tuple)  # (item, reason)


def validity(record: BeliefRecord) -> str:
    """current | unresolved_conflict | superseded | retired (the label recall carries)."""
    if record.status in (Status.SUPERSEDED, Status.RETIRED):
        return record.status
    if record.conflicts_with:
        return "unresolved_conflict"
    return "current"


def reinforcement(record: BeliefRecord, now: datetime, profile: RetrievalProfile) -> float:
    return _Formula(now, "", profile).reinforce(record)


# ln(1 + C_MAX), the strength's denominator: a constant, taken once.
_LOG1P_C_MAX = math.log1p(C_MAX)


class _Formula:
    """The formula's inputs that depend only on the query (weights, now, scope), read
    from the profile once per ranking rather than once per candidate."""

    __slots__ = (
        "active",
        "decay",
        "now",
        "period",
        "project",
        "provisional",
        "reinforced",
        "stale",
        "tau_profile",
        "taus",
        "temporal",
        "w_authority",
        "w_confidence",
        "w_dated",
        "w_match",
        "w_reinforce",
        "w_scope",
        "w_utility",
    )

    def __init__(
        self,
        now: datetime,
        project: str,
        profile: RetrievalProfile,
        *,
        temporal: bool = False,
        period: tuple[datetime, datetime] | None = None,
    ) -> None:
        w = profile.ranking_weights
        self.now = now
        self.project = project
        self.temporal = temporal
        self.period = period
        self.w_dated = w.dated
        self.decay = profile.time_decay_enabled
        self.tau_profile = profile.decay_tau_days
        self.taus: dict[str, float] = {}  # per belief type, as the profile names it
        # reinforce per (evidence count, last evidence, type): a pool repeats them.
        self.reinforced: dict[tuple[int, str, str], float] = {}
        self.w_match = w.match
        self.w_confidence = w.confidence
        self.w_reinforce = w.reinforce
        self.w_authority = w.authority
        self.w_scope = w.scope
        self.w_utility = w.utility
        self.active = profile.lifecycle_weights.active
        self.provisional = profile.lifecycle_weights.provisional
        self.stale = profile.stale_penalty

    def reinforce(self, record: BeliefRecord) -> float:
        key = (record.evidence_count, record.last_evidence_at, record.belief_type)
        known = self.reinforced.get(key)
        if known is not None:
            return known
        strength = min(1.0, math.log1p(record.evidence_count) / _LOG1P_C_MAX)
        if self.decay:
            age_days = max(0, (self.now - _instant(record.last_evidence_at)).days)
            tau = self.taus.get(record.belief_type)
            if tau is None:
                taus = self.tau_profile
                tau = self.taus[record.belief_type] = getattr(taus, record.belief_type, taus.fact)
            strength = strength * math.exp(-age_days / tau)
        self.reinforced[key] = strength
        return strength

    def lifecycle(self, status: str) -> float:
        if status == Status.ACTIVE:
            return self.active
        if status == Status.PROVISIONAL:
            return self.provisional
        return 1.0

    def bears_time(self, record: BeliefRecord) -> bool:
        """The ``dated`` component: a statement naming a time for a question asking
        when, or one stated within the period the question names."""
        if self.period is not None:
            start, end = self.period
            if start <= _instant(record.valid_from) < end:
                return True
        return self.temporal and dated(tokens_of(record.statement))


# A belief's last evidence instant is read on every recall that offers it; the parsed
# value never changes for one string, so a bounded per-process cache holds it.
_instant = lru_cache(maxsize=65536)(parse_iso)


def subject_key(record: BeliefRecord) -> str:
    return record.subjects[0].casefold().strip() if record.subjects else ""


def source_key(record: BeliefRecord) -> str:
    """The turn an inferred belief was formed from (the first of its sorted source ids);
    "" for a belief at a higher authority, which the per-source cap never counts."""
    if record.authority > MIN_CAPPED_AUTHORITY or not record.source_event_ids:
        return ""
    return record.source_event_ids[0]


def jaccard(a: str, b: str) -> float:
    """Token Jaccard similarity of two statements (the shared tokenizer's lexemes)."""
    return _jaccard(tokens_of(a), tokens_of(b))


@lru_cache(maxsize=65536)
def tokens_of(statement: str) -> frozenset[str]:
    return frozenset(lexemes(statement))


def _jaccard(x: frozenset[str], y: frozenset[str]) -> float:
    if not x and not y:
        return 1.0
    shared = len(x & y)
    return shared / (len(x) + len(y) - shared)  # |x | y|, without building the union


def _order(item: Scored) -> tuple[float, int, str]:
    return (-item.score, -item.record.position, item.record.belief_id)


# Components and Scored are built by setting their field dict whole, not through their
# frozen __init__ (which sets each field through object.__setattr__: most of ranking's
# cost per candidate): the same fields, equality and as_dict as the constructor's
# (tests/test_ranking_arrays.py compares them with constructed ones).
_new = object.__new__
_set_dict = object.__setattr__


def rank(
    offered: Sequence[Offered],
    *,
    now: datetime,
    project: str,
    profile: RetrievalProfile,
    temporal: bool = False,
    period: tuple[datetime, datetime] | None = None,
) -> list[Scored]:
    """Score every candidate and order them; the near-duplicate penalty applies here.

    The pool is scored as arrays: one column per input, ``match``, the weighted sum
    ``base`` and ``base - stale_penalty`` element-wise (the same IEEE operations in the
    same order as the scalar formula in the module docstring, so the same doubles), the
    candidate order a stable argsort; ``reinforce``'s logarithm and exponential are taken
    once per distinct (evidence count, last evidence, type) with ``math``; the
    near-duplicate test (within a (type, subject) group, best first) and the rounded
    score are per candidate, in that order. ``temporal`` (the question asks when) and
    ``period`` (the [start, end) it names; memory_es/retrieval/temporal.py) give the
    ``dated`` component.
    """
    if not offered:
        return []
    import numpy as np

    f = _Formula(now, project, profile, temporal=temporal, period=period)
    records = [o.record for o in offered]
    relevance = np.array([o.relevance for o in offered], dtype=np.float64)
    confidence = [b.confidence for b in records]
    utility = [b.utility for b in records]
    authority = [b.authority / MAX_AUTHORITY for b in records]
    reinforce = [f.reinforce(b) for b in records]
    scope = [1.0 if b.project == f.project else 0.0 for b in records]
    lifecycle = [f.lifecycle(b.status) for b in records]
    when = [1.0 if f.bears_time(b) else 0.0 for b in records]
    stale = [f.stale if b.valid_to is not None else 0.0 for b in records]
    position = np.array([b.position for b in records], dtype=np.int64)

    top = float(relevance.max())
    match = relevance / top if top > 0 else np.zeros(len(records))
    base = np.array(lifecycle) * (
        f.w_match * match
        + f.w_confidence * np.array(confidence, dtype=np.float64)
        + f.w_reinforce * np.array(reinforce, dtype=np.float64)
        + f.w_authority * np.array(authority, dtype=np.float64)
        + f.w_scope * np.array(scope, dtype=np.float64)
        + f.w_utility * np.array(utility, dtype=np.float64)
        + f.w_dated * np.array(when, dtype=np.float64)
    )
    unpenalised = base - np.array(stale, dtype=np.float64)
    # Best first, newer first on ties: the order the near-duplicate test reads them in.
    pre = np.lexsort((-position, -unpenalised)).tolist()

    threshold = profile.near_duplicate_jaccard
    near_penalty = profile.near_duplicate_penalty
    match_ = match.tolist()
    base_ = base.tolist()
    out: list[Scored] = []
    # Higher-scored statements seen so far, per (type, subject): the near-duplicate test
    # only compares within one group, and tokenizes a statement only when it must.
    seen: dict[tuple[str, str], list[str]] = {}
    for i in pre:
        b = records[i]
        penalty = 0.0
        key = (b.belief_type, subject_key(b))
        group = seen.get(key)
        if group is None:
            seen[key] = [b.statement]
        else:
            mine = tokens_of(b.statement)
            for higher in group:
                if _jaccard(mine, tokens_of(higher)) >= threshold:
                    penalty = near_penalty
                    break
            group.append(b.statement)
        c = _new(Components)
        _set_dict(
            c,
            "__dict__",
            {
                "match": match_[i],
                "confidence": confidence[i],
                "reinforce": reinforce[i],
                "authority": authority[i],
                "scope": scope[i],
                "utility": utility[i],
                "dated": when[i],
                "lifecycle": lifecycle[i],
                "base": base_[i],
                "stale_penalty": stale[i],
                "near_duplicate_penalty": penalty,
            },
        )
        o = offered[i]
        scored = _new(Scored)
        _set_dict(
            scored,
            "__dict__",
            {
                "record": b,
                "score": round(max(0.0, base_[i] - stale[i] - penalty), 9),
                "matched": o.matched,
                "lexical": o.lexical,
                "cosine": o.cosine,
                "components": c,
                "validity": validity(b),
            },
        )
        out.append(scored)
    out.sort(key=_order)
    return out


@lru_cache(maxsize=65536)
def statement_terms(statement: str) -> frozenset[str]:
    """The indexed terms of a statement alone (lexemes and their stems): not its
    subjects, not its turn's context words."""
    return frozenset(terms(statement))


def sibling_preference(
    item: Scored, query: frozenset[str], quantity: bool = False
) -> tuple[int, int, int, int]:
    """How a reading of one turn is preferred over its siblings (higher first): for a
    question asking when, a statement naming a time (the ``dated`` component); for one
    asking how many or how long, a statement naming a number (retrieval/quantity.py);
    then the question's own terms its statement holds (its words, not the context it
    shares with its siblings, nor the expansion's guesses); then the shorter statement,
    which says it in fewer rendered tokens."""
    statement = item.record.statement
    return (
        int(item.components.dated > 0),
        int(quantity and names_quantity(tokens_of(statement))),
        len(query & statement_terms(statement)),
        -len(statement.split()),
    )


def _siblings_in_place(
    unique: list[Scored], query: frozenset[str], quantity: bool = False
) -> list[Scored]:
    """The inferred readings of one turn share its context words, so BM25 scores them
    nearly alike and the cap would keep whichever is shortest or newest. Each turn's
    readings keep the slots they ranked into, refilled best first by
    :func:`sibling_preference` (ties: the ranked order): the turn's first slot goes to
    the reading whose own words meet the query, not to "User said: agreed."."""
    slots: dict[str, list[int]] = {}
    for at, item in enumerate(unique):
        source = source_key(item.record)
        if source:
            slots.setdefault(source, []).append(at)
    out = list(unique)
    for places in slots.values():
        if len(places) < 2:
            continue
        members = [unique[at] for at in places]
        order = sorted(
            range(len(members)),
            key=lambda i: (*(-v for v in sibling_preference(members[i], query, quantity)), i),
        )
        for at, i in zip(places, order, strict=True):
            out[at] = members[i]
    return out


# What one turn says is often split over its sentences (the pottery workshop in one, the
# pots made there in the next): the turn whose reading ranks first may show this many
# readings more than the per-source cap, each one saying a word of the question itself.
LEAD_SOURCE_EXTRA = 1


# A query's answer holds no inferred reading whose relevance is under this share of the
# best one's (``match``): such a line shares a word or two with the question at most (often
# only through its turn's context words), and fills the caller's budget with tokens no
# reader needs; a pool with fewer good lines returns fewer. A statement the user made
# (USER, AFFIRMED) that the query admits keeps its place: it is found by its own words.
MIN_MATCH = 0.2


def _lead_extra(item: Scored, source: str, lead: str, asked: frozenset[str]) -> int:
    if source != lead or not asked or not asked & statement_terms(item.record.statement):
        return 0
    return LEAD_SOURCE_EXTRA


def select(
    ranked: Sequence[Scored],
    *,
    limit: int,
    profile: RetrievalProfile,
    hold_durable: bool = False,
    query_terms: Sequence[str] = (),
    quantity: bool = False,
) -> Selection:
    """Collapse exact duplicates, cap per subject, hold the durable share, cut to budget.

    The durable share holds slots only in a priming read (no query text: a session
    snapshot), as the seed specifies it; a query's answer is never displaced by a less
    relevant belief just because it is about the person. ``query_terms`` (the stems of
    the question's own words, before expansion) choose which of one turn's readings the
    per-source cap keeps (:func:`_siblings_in_place`), and let the best-ranked turn show
    ``LEAD_SOURCE_EXTRA`` more that say one of them (:func:`_lead_extra`); ``quantity``
    (the question asks how many or how long) prefers the reading that names a number.
    """
    blocked: list[tuple[Scored, str]] = []
    seen: set[tuple[str, str, bool]] = set()
    unique: list[Scored] = []
    for item in ranked:
        if (
            query_terms
            and item.components.match < MIN_MATCH
            and item.record.authority <= MIN_CAPPED_AUTHORITY
        ):
            blocked.append((item, "weak_match"))
            continue
        exact = (
            normalize_statement(item.record.statement),
            item.record.belief_type,
            item.record.polarity,
        )
        if exact in seen:
            blocked.append((item, "duplicate"))
            continue
        seen.add(exact)
        unique.append(item)

    # Conflict partners bypass the cap (and do not count toward it): both statements of
    # an unresolved conflict surface together, or the user cannot see the dispute.
    pool = {u.record.belief_id for u in unique}
    disputed = {u.record.belief_id for u in unique if set(u.record.conflicts_with) & pool}
    # Beliefs formed from one turn share its context words, so a query that matches the
    # turn would fill the budget with that one turn's beliefs: in a query read (not a
    # priming read) at most ``per_source_cap`` items per source turn, the best first.
    source_cap = 0 if hold_durable else profile.per_source_cap
    if source_cap and query_terms:
        unique = _siblings_in_place(unique, frozenset(query_terms), quantity)
    per_subject: dict[str, int] = {}
    per_source: dict[str, int] = {}
    admitted: list[Scored] = []
    asked = frozenset(query_terms)
    lead = ""  # the turn of the best-ranked inferred reading: it may show one more
    for item in unique:
        key = subject_key(item.record)
        source = source_key(item.record)
        if not lead and source:
            lead = source
        if item.record.belief_id in disputed:
            admitted.append(item)
        elif (
            source_cap
            and source
            and per_source.get(source, 0) >= source_cap + _lead_extra(item, source, lead, asked)
        ):
            blocked.append((item, "source_cap"))
        elif not key or per_subject.get(key, 0) < profile.per_subject_cap:
            if key:
                per_subject[key] = per_subject.get(key, 0) + 1
            if source:
                per_source[source] = per_source.get(source, 0) + 1
            admitted.append(item)
        else:
            blocked.append((item, "subject_cap"))

    chosen = admitted[:limit]
    reserve = math.ceil(profile.durable_item_share * limit) if hold_durable else 0
    have = sum(1 for c in chosen if c.record.belief_type in DURABLE_TYPES)
    waiting = [a for a in admitted[limit:] if a.record.belief_type in DURABLE_TYPES]
    while have < reserve and waiting:
        victims = [c for c in chosen if c.record.belief_type not in DURABLE_TYPES]
        if not victims:
            break
        chosen.remove(victims[-1])
        chosen.append(waiting.pop(0))
        have += 1
    if hold_durable:
        chosen.sort(key=_order)  # the reserve's swaps, back in ranked order
    chosen_ids = {c.record.belief_id for c in chosen}
    dropped = tuple(a for a in admitted if a.record.belief_id not in chosen_ids)
    return Selection(items=tuple(chosen), dropped=dropped, blocked=tuple(blocked))


def fuse(
    lexical: Sequence[tuple[BeliefRecord, int, int]],
    vector: Sequence[tuple[BeliefRecord, float]] | None,
    *,
    k: int,
    cap: int,
) -> list[Offered]:
    """Lexical-only: relevance is BM25. Hybrid: reciprocal rank fusion of both arms."""
    if vector is None:
        return [Offered(r, matched=m, lexical=n, relevance=float(n)) for r, m, n in lexical]
    found: dict[str, dict[str, Any]] = {}
    for rank_, (record, matched, lex) in enumerate(lexical, start=1):
        found[record.belief_id] = {
            "record": record,
            "matched": matched,
            "lexical": lex,
            "cosine": None,
            "rrf": 1.0 / (k + rank_),
        }
    for rank_, (record, cosine) in enumerate(vector, start=1):
        entry = found.setdefault(
            record.belief_id,
            {"record": record, "matched": 0, "lexical": 0, "cosine": None, "rrf": 0.0},
        )
        entry["cosine"] = cosine
        entry["rrf"] += 1.0 / (k + rank_)
    pool = sorted(found.values(), key=lambda e: (-e["rrf"], -e["record"].position))[:cap]
    return [
        Offered(
            e["record"],
            matched=e["matched"],
            lexical=e["lexical"],
            cosine=e["cosine"],
            relevance=e["rrf"],
        )
        for e in pool
    ]
