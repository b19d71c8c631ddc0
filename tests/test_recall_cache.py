"""Recall's faster candidate search returns what the full search returns.

Two changes, each held to identical answers:

- the pruned search (``candidates.top_candidates``: MaxScore's bound over each term's
  scored postings) against the full one (``best_first`` over ``combine``: every belief
  holding a query term scored), on random postings full of ties, boost terms and
  filters that refuse most beliefs;
- the per-process recall cache of a SQL store (``projections/recall_cache.py``) against
  a fresh instance's answers, across another instance's writes and a rebuild's swap.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import timedelta

import numpy as np
import pytest

import memory_es
from memory_es.benchmarks.perf import phases, synthetic
from memory_es.domain.values import Status
from memory_es.ports import FixedClock
from memory_es.projections import candidates as cq
from memory_es.projections.records import BeliefRecord, Candidate

NOW = synthetic.START + timedelta(days=400)
# The bench's bulk-built beliefs carry their own formation tag: opening warns, as it should.
pytestmark = pytest.mark.filterwarnings("ignore::memory_es.errors.StaleFormationWarning")


def _record(n: int, position: int) -> BeliefRecord:
    return BeliefRecord(
        belief_id=f"b{n:06d}",
        short_id=f"{n:08x}",
        principal="p",
        statement=f"s{n}",
        belief_type="fact",
        subjects=(),
        polarity=True,
        authority=2,
        confidence=0.9,
        status=Status.ACTIVE,
        project="general",
        portable=False,
        source_event_ids=(),
        source_session_id="",
        valid_from="2026-01-01T00:00:00Z",
        valid_to=None,
        successor_id=None,
        conflicts_with=(),
        position=position,
        evidence_count=1,
        last_evidence_at="2026-01-01T00:00:00Z",
        formed_at="2026-01-01T00:00:00Z",
        policy="p",
        doc_len=1,
    )


def _terms(rng: random.Random, documents: int) -> list[cq.Scored]:
    """A query's terms over ``documents`` beliefs: a few common, a few rare, some boost;
    tf and lengths from small ranges, so many beliefs tie."""
    out = []
    for t in range(rng.randint(1, 5)):
        df = rng.choice([1, 3, 40, documents // 10, documents // 3, documents - 1])
        numbers = sorted(rng.sample(range(1, documents + 1), max(1, df)))
        held = np.array(
            [(n, rng.choice([1, 1, 1, 2, 3]), rng.randint(4, 9)) for n in numbers],
            dtype=cq.posting_dtype(),
        )
        weight = cq.TermWeight(
            f"t{t}", cq.SCALE * cq.idf(len(numbers), documents), t > 0 or rng.random() < 0.8
        )
        out.append((weight, cq.term_scores(weight, held, 6.5, cq.Bm25Params())))
    return out


def _answer(found: list[Candidate]) -> list[tuple[str, int, int]]:
    return [(c.record.belief_id, c.matched, c.lexical) for c in found]


@pytest.mark.parametrize("seed", range(12))
def test_the_pruned_search_returns_the_full_searchs_candidates(seed: int) -> None:
    rng = random.Random(seed)
    documents = rng.choice([300, 5000, 12000])
    # Positions repeat (ties on score and position fall to the belief id).
    records = {n: _record(n, rng.randint(1, documents // 4)) for n in range(1, documents + 1)}
    for _ in range(15):
        scored = _terms(rng, documents)
        refused = set(
            rng.sample(range(1, documents + 1), rng.choice([0, documents // 2, documents - 50]))
        )

        def valid(chosen: list[int], refused: set[int] = refused) -> dict[int, BeliefRecord]:
            return {n: records[n] for n in chosen if n not in refused}

        cap = rng.choice([1, 10, 64, 80, 160])
        # The definition: every belief holding an admitting term, scored, filtered,
        # in the candidate order, capped.
        numbers, matched, lex = cq.combine(scored)
        hits = dict(zip(numbers.tolist(), matched.tolist(), strict=True))
        ordered = cq.in_order(
            [
                (s, records[n])
                for n, s in zip(numbers.tolist(), lex.tolist(), strict=True)
                if n not in refused
            ]
        )[:cap]
        expected = [(r.belief_id, hits[int(r.belief_id[1:])], s) for s, r in ordered]
        assert _answer(cq.best_first(numbers, matched, lex, cap, valid)) == expected
        assert _answer(cq.top_candidates(scored, cap, valid)) == expected, (seed, cap)
        numbers = cq.combine(scored)[0]
        assert [x.tolist() for x in cq.exact(scored, numbers)] == [
            x.tolist() for x in cq.combine(scored)
        ]


def test_the_pruned_search_scores_few_beliefs_when_a_rare_term_decides(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Not a stopwatch: the bound must leave most of a common term's postings unscored
    when a rare term decides the answer, or the search is the full one in disguise."""
    rng = random.Random(5)
    documents = 20000
    common = np.array(
        [(n, 1, rng.randint(4, 9)) for n in range(1, documents + 1, 2)], dtype=cq.posting_dtype()
    )
    rare = np.array([(n, 1, 5) for n in range(7, documents, 97)], dtype=cq.posting_dtype())
    scored = []
    for name, held in (("common", common), ("rare", rare)):
        w = cq.TermWeight(name, cq.SCALE * cq.idf(len(held), documents), True)
        scored.append((w, cq.term_scores(w, held, 6.5, cq.Bm25Params())))
    records = {n: _record(n, n) for n in range(1, documents + 1)}

    def valid(chosen: list[int]) -> dict[int, BeliefRecord]:
        return {n: records[n] for n in chosen}

    full = cq.best_first(*cq.combine(scored), 80, valid)
    sizes: list[int] = []
    exact = cq.exact

    def counted(scored: list[cq.Scored], numbers: np.ndarray) -> tuple[np.ndarray, ...]:
        sizes.append(len(numbers))
        return exact(scored, numbers)

    def refused(scored: list[cq.Scored]) -> None:
        raise AssertionError("the full search ran")

    monkeypatch.setattr(cq, "exact", counted)
    monkeypatch.setattr(cq, "combine", refused)
    pruned = cq.top_candidates(scored, 80, valid)
    assert _answer(pruned) == _answer(full) and len(pruned) == 80
    assert sizes and max(sizes) < len(common) // 4, sizes


# -- the recall cache ----------------------------------------------------------------------

PRINCIPAL = "holder"
BELIEFS = 1500


@pytest.fixture
def built(persistent_store_url: str) -> Iterator[str]:
    with phases._open(persistent_store_url) as memory:
        phases.build_beliefs(memory, PRINCIPAL, BELIEFS, synthetic.Text(seed=3))
        phases.settle(memory)
    yield persistent_store_url


def _queries(count: int) -> list[str]:
    text = synthetic.Text(seed=3)
    for _ in range(BELIEFS):
        text.statement()
    return [text.query() for _ in range(count)]


def _answers(memory: memory_es.Memory, queries: list[str]) -> list[list[tuple[str, float]]]:
    out = []
    for i, q in enumerate(queries):
        r = memory.recall(PRINCIPAL, q, limit=(10, 3, 20)[i % 3])
        out.append(
            [(s.record.belief_id, s.score) for s in r.items]
            + [(s.record.belief_id, -1.0) for s in r.dropped]
            + [(s.record.belief_id, -2.0) for s, _ in r.blocked]
        )
    return out


def _fresh(url: str, queries: list[str]) -> list[list[tuple[str, float]]]:
    with memory_es.open(url, clock=FixedClock(NOW)) as memory:
        return _answers(memory, queries)


def test_a_cached_recall_answers_as_a_fresh_instance_across_another_ones_writes(
    built: str,
) -> None:
    url = built
    queries = _queries(40)
    with memory_es.open(url, clock=FixedClock(NOW)) as reader:
        first = _answers(reader, queries)
        assert first == _answers(reader, queries)  # the second pass reads the cache
        hot = reader.index._hot  # type: ignore[attr-defined]
        assert hot.scored and hot._rows, "the cache was not used"
        assert first == _fresh(url, queries)
        # Another instance changes what the answers hold: a rejection of the first
        # answer's best belief, and new beliefs with the queries' own words.
        with memory_es.open(url, clock=FixedClock(NOW)) as writer:
            writer.reject(first[0][0][0])
            session = writer.open_session(PRINCIPAL)
            writer.say(session, f"I like {queries[1].split()[2].strip('?')}.")
            writer.close_session(session)
        after = _answers(reader, queries)
        assert after == _fresh(url, queries)
        assert after != first


def test_a_cached_recall_sees_a_rebuilds_swap(built: str) -> None:
    url = built
    queries = _queries(10)
    with memory_es.open(url, clock=FixedClock(NOW)) as reader:
        before = _answers(reader, queries)
        token = reader.index._hot._token  # type: ignore[attr-defined]
        assert token is not None
        with memory_es.open(url) as other:
            other.rebuild_projections(resume=False)
        # The swap leaves the tracked position where it was: the generation changes.
        assert _answers(reader, queries) == before == _fresh(url, queries)
        assert reader.index._hot._token != token  # type: ignore[attr-defined]
        assert reader.index._hot._token[0] == token[0]  # type: ignore[attr-defined]


def test_the_cache_keeps_within_its_bounds_and_nothing_without_a_token(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from memory_es.projections import recall_cache

    monkeypatch.setattr(recall_cache, "ROWS_MAX", 8)
    monkeypatch.setattr(recall_cache, "POSTINGS_MAX", 100)
    cache = recall_cache.RecallCache()
    records = {n: _record(n, n) for n in range(1, 21)}
    cache.check(None)
    cache.keep_rows("p", records, list(records))
    assert cache.rows_of("p", list(records)) == {}  # no token: nothing kept
    cache.check((5, 1))
    cache.keep_rows("p", records, list(records))
    kept = cache.rows_of("p", list(records))
    assert 0 < len(kept) <= 8 and 20 in kept  # the newest stay
    held = np.array([(n, 1, 5) for n in range(1, 41)], dtype=cq.posting_dtype())
    w = cq.TermWeight("t", 100.0, True)
    for k in range(5):
        cache.keep_scored(("p", k), cq.term_scores(w, held, 5.0, cq.Bm25Params()))
    assert 0 < sum(len(t.numbers) for t in cache.scored.values()) <= 100
    assert ("p", 4) in cache.scored
    cache.check((5, 1))  # the same token: kept
    assert cache.rows_of("p", [20])
    cache.check((6, 1))  # a write: emptied
    assert not cache.rows_of("p", [20]) and not cache.scored
