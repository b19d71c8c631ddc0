"""The ranking over arrays gives the scalar formula's answer, double for double.

``rank`` scores the candidate pool as numpy columns. The reference below is the formula
of ranking.py's docstring written one candidate at a time, as ``rank`` was before it
worked on arrays; over random pools (ties, shared subjects, near-duplicate statements,
closed validities, every status, other projects, utility, evidence and age) both give
the same order, the same scores and the same components, compared with ``==`` on
floats and on their ``repr`` (what JSON carries).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from memory_es.domain.values import Status
from memory_es.ports import parse_iso
from memory_es.profiles import RetrievalProfile, load_profile
from memory_es.retrieval.ranking import (
    C_MAX,
    MAX_AUTHORITY,
    Components,
    Offered,
    Scored,
    rank,
    select,
    subject_key,
    validity,
)
from memory_es.retrieval.tokenizer import lexemes
from tests.test_ranking import belief

NOW = datetime(2026, 6, 1, tzinfo=UTC)
PROFILE = load_profile().retrieval


def _reference_terms(
    o: Offered, top: float, now: datetime, project: str, p: RetrievalProfile
) -> tuple[float, ...]:
    """(match, confidence, reinforce, authority, scope, utility, dated, lifecycle, base,
    stale); a question that names no time, so ``dated`` is 0 (tests/test_temporal.py reads it)."""
    b = o.record
    w = p.ranking_weights
    match = o.relevance / top if top > 0 else 0.0
    reinforce = min(1.0, math.log1p(b.evidence_count) / math.log1p(C_MAX))
    if p.time_decay_enabled:
        age_days = max(0, (now - parse_iso(b.last_evidence_at)).days)
        taus = p.decay_tau_days
        reinforce *= math.exp(-age_days / getattr(taus, b.belief_type, taus.fact))
    authority = b.authority / MAX_AUTHORITY
    scope = 1.0 if b.project == project else 0.0
    lifecycle = 1.0
    if b.status == Status.ACTIVE:
        lifecycle = p.lifecycle_weights.active
    elif b.status == Status.PROVISIONAL:
        lifecycle = p.lifecycle_weights.provisional
    base = lifecycle * (
        w.match * match
        + w.confidence * b.confidence
        + w.reinforce * reinforce
        + w.authority * authority
        + w.scope * scope
        + w.utility * b.utility
        + w.dated * 0.0
    )
    stale = p.stale_penalty if b.valid_to is not None else 0.0
    return (
        match,
        b.confidence,
        reinforce,
        authority,
        scope,
        b.utility,
        0.0,
        lifecycle,
        base,
        stale,
    )


def _jaccard(a: str, b: str) -> float:
    x, y = frozenset(lexemes(a)), frozenset(lexemes(b))
    return 1.0 if not x and not y else len(x & y) / len(x | y)


def reference_rank(
    offered: Sequence[Offered], *, now: datetime, project: str, profile: RetrievalProfile
) -> list[Scored]:
    top = max((o.relevance for o in offered), default=0.0)
    pre = [(o, _reference_terms(o, top, now, project, profile)) for o in offered]
    pre.sort(key=lambda e: (-(e[1][8] - e[1][9]), -e[0].record.position))
    out = []
    seen: dict[tuple[str, str], list[str]] = {}
    for o, terms in pre:
        b = o.record
        group = seen.setdefault((b.belief_type, subject_key(b)), [])
        penalty = 0.0
        if any(_jaccard(b.statement, h) >= profile.near_duplicate_jaccard for h in group):
            penalty = profile.near_duplicate_penalty
        group.append(b.statement)
        c = Components(*terms, penalty)
        score = round(max(0.0, c.base - c.stale_penalty - penalty), 9)
        out.append(Scored(b, score, o.matched, o.lexical, o.cosine, c, validity(b)))
    out.sort(key=lambda s: (-s.score, -s.record.position, s.record.belief_id))
    return out


WORDS = ["coffee", "tea", "seattle", "dana", "manager", "lives", "drinks", "every", "morning"]
candidate = st.tuples(
    st.integers(0, 5),  # relevance bucket: ties on purpose
    st.sampled_from([0.5, 0.7, 0.9, 1.0]),  # confidence
    st.integers(1, 15),  # evidence count
    st.sampled_from(["fact", "preference", "goal", "event"]),
    st.integers(0, 400),  # age in days
    st.sampled_from([Status.ACTIVE, Status.PROVISIONAL, Status.SUPERSEDED, Status.RETIRED]),
    st.booleans(),  # validity closed
    st.sampled_from(["general", "proj"]),
    st.sampled_from([-0.5, 0.0, 0.25]),  # utility
    st.integers(1, 3),  # authority
    st.integers(0, 3),  # subject
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=4),  # statement words
    st.integers(1, 6),  # position: ties on purpose
)


Row = tuple[int, float, int, str, int, Status, bool, str, float, int, int, list[str], int]


def _pool(rows: list[Row], rrf: bool) -> list[Offered]:
    out = []
    for n, row in enumerate(rows):
        rel, conf, ev, kind, age, status, closed, project, util, auth, subj, words, pos = row
        record = belief(
            n + 1,
            " ".join(words),
            confidence=conf,
            evidence_count=ev,
            belief_type=kind,
            last_evidence_at=(NOW - timedelta(days=age)).isoformat().replace("+00:00", "Z"),
            status=status,
            valid_to="2026-05-01T00:00:00Z" if closed else None,
            project=project,
            utility=util,
            authority=auth,
            subjects=(f"Subject {subj}",),
            position=pos,
        )
        relevance = 1.0 / (60 + rel) if rrf else float(rel * 1375)
        out.append(Offered(record, matched=1, lexical=int(relevance), relevance=relevance))
    return out


def _same(mine: list[Scored], theirs: list[Scored]) -> None:
    assert [s.record.belief_id for s in mine] == [s.record.belief_id for s in theirs]
    assert mine == theirs
    for a, b in zip(mine, theirs, strict=True):
        assert repr(a.score) == repr(b.score)
        assert repr(a.components.as_dict()) == repr(b.components.as_dict())


@settings(max_examples=300, deadline=None)
@given(st.lists(candidate, min_size=0, max_size=40), st.booleans(), st.booleans())
def test_the_ranking_over_arrays_is_the_scalar_formula_double_for_double(
    rows: list[Row], rrf: bool, decay: bool
) -> None:
    profile = PROFILE.model_copy(update={"time_decay_enabled": decay})
    pool = _pool(rows, rrf)
    mine = rank(pool, now=NOW, project="general", profile=profile)
    theirs = reference_rank(pool, now=NOW, project="general", profile=profile)
    _same(mine, theirs)
    assert select(mine, limit=10, profile=profile) == select(theirs, limit=10, profile=profile)
