"""The one ranking function: the formula, its penalties and the selection rules."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from memory_es.profiles import load_profile
from memory_es.projections.records import BeliefRecord
from memory_es.retrieval.ranking import (
    MIN_MATCH,
    Offered,
    fuse,
    jaccard,
    rank,
    reinforcement,
    select,
)

NOW = datetime(2026, 6, 1, tzinfo=UTC)
PROFILE = load_profile().retrieval


def belief(n: int, statement: str = "", **changes: object) -> BeliefRecord:
    record = BeliefRecord(
        belief_id=f"{n:08x}-0000-4000-8000-000000000000",
        short_id=f"{n:08x}",
        principal="default/alice",
        statement=statement or f"Statement number {n}.",
        belief_type="fact",
        subjects=(f"subject {n}",),
        polarity=True,
        authority=3,
        confidence=0.9,
        status="active",
        project="general",
        portable=False,
        source_event_ids=("t",),
        source_session_id="s",
        valid_from="2026-06-01T00:00:00Z",
        valid_to=None,
        successor_id=None,
        conflicts_with=(),
        position=n,
        evidence_count=1,
        last_evidence_at="2026-06-01T00:00:00Z",
        formed_at="2026-06-01T00:00:00Z",
        policy="formation@1",
        doc_len=4,
    )
    return record.evolve(**changes)


def offered(*records: BeliefRecord, relevance: float = 1.0) -> list[Offered]:
    return [Offered(r, matched=1, lexical=1000, relevance=relevance) for r in records]


def test_reinforcement_grows_with_evidence_and_decays_with_age_per_type() -> None:
    fresh = belief(1, evidence_count=10)
    assert reinforcement(fresh, NOW, PROFILE) == 1.0
    one = belief(1, evidence_count=1)
    assert reinforcement(one, NOW, PROFILE) == math.log1p(1) / math.log1p(10)
    aged = belief(1, evidence_count=10, last_evidence_at="2026-03-03T00:00:00Z")  # 90 days
    assert reinforcement(aged, NOW, PROFILE) == math.exp(-90 / 90)
    pref = aged.evolve(belief_type="preference")
    assert reinforcement(pref, NOW, PROFILE) == math.exp(-90 / 365)  # fades slower
    future = belief(1, evidence_count=10, last_evidence_at="2026-07-01T00:00:00Z")
    assert reinforcement(future, NOW, PROFILE) == 1.0  # age floored at zero
    off = load_profile({"retrieval": {"time_decay_enabled": False}}).retrieval
    assert reinforcement(aged, NOW, off) == 1.0


def test_the_score_is_the_weighted_sum_of_its_components() -> None:
    (item,) = rank(offered(belief(1)), now=NOW, project="general", profile=PROFILE)
    c, w = item.components, PROFILE.ranking_weights
    expected = (
        w.match * 1.0
        + w.confidence * 0.9
        + w.reinforce * c.reinforce
        + w.authority * 1.0
        + w.scope * 1.0
        + w.utility * 0.0
    )
    assert item.score == round(expected, 9)
    provisional = rank(
        offered(belief(1, status="provisional")), now=NOW, project="general", profile=PROFILE
    )[0]
    assert provisional.score == round(PROFILE.lifecycle_weights.provisional * expected, 9)


def test_a_closed_validity_takes_the_stale_penalty() -> None:
    live, old = belief(1), belief(2, status="superseded", valid_to="2026-05-01T00:00:00Z")
    ranked = rank(offered(live, old), now=NOW, project="general", profile=PROFILE)
    assert [s.record.position for s in ranked] == [1, 2]
    assert ranked[1].components.stale_penalty == PROFILE.stale_penalty
    assert ranked[1].validity == "superseded"


def test_a_near_duplicate_of_a_higher_scored_candidate_is_demoted_not_deleted() -> None:
    a = belief(1, "The team deploys on Fridays every week.", subjects=("deploy",))
    b = belief(2, "The team deploys on Fridays every week now.", subjects=("deploy",))
    other_subject = b.evolve(
        belief_id="3" * 8 + "-0000-4000-8000-000000000000", position=3, subjects=("release",)
    )
    assert jaccard(a.statement, b.statement) >= 0.8
    ranked = rank(
        [
            Offered(a, relevance=1.0),
            Offered(b, relevance=1.0),
            Offered(other_subject, relevance=1.0),
        ],
        now=NOW,
        project="general",
        profile=PROFILE,
    )
    by_position = {s.record.position: s for s in ranked}
    # b is newer, so it ranks first on the tie and a is the near-duplicate demoted.
    assert by_position[2].components.near_duplicate_penalty == 0.0
    assert by_position[1].components.near_duplicate_penalty == PROFILE.near_duplicate_penalty
    assert by_position[3].components.near_duplicate_penalty == 0.0  # another subject
    assert len(ranked) == 3


def test_penalties_floor_the_score_at_zero() -> None:
    harsh = load_profile({"retrieval": {"stale_penalty": 5.0}}).retrieval
    old = belief(1, status="retired", valid_to="2026-05-01T00:00:00Z")
    assert rank(offered(old), now=NOW, project="general", profile=harsh)[0].score == 0.0


def test_the_scope_component_prefers_the_query_project() -> None:
    here = belief(1, project="atlas")
    elsewhere = belief(2, project="general", portable=True)
    ranked = rank(offered(here, elsewhere), now=NOW, project="atlas", profile=PROFILE)
    assert [s.record.position for s in ranked] == [1, 2]
    assert ranked[0].components.scope == 1.0 and ranked[1].components.scope == 0.0


def test_the_durable_share_holds_slots_for_beliefs_about_the_person() -> None:
    facts = [belief(n) for n in range(10, 14)]
    pref = belief(1, belief_type="preference", confidence=0.5)
    ranked = rank(
        [*offered(*facts), Offered(pref, relevance=0.1)],
        now=NOW,
        project="general",
        profile=PROFILE,
    )
    assert ranked[-1].record.belief_type == "preference"
    # A priming read holds ceil(0.25 * 4) = 1 slot for a belief about the person ...
    chosen = select(ranked, limit=4, profile=PROFILE, hold_durable=True)
    assert [s.record.belief_type for s in chosen.items].count("preference") == 1
    assert len(chosen.items) == 4 and len(chosen.dropped) == 1
    # ... a query's answer is not displaced, and a zero share holds nothing.
    assert all(
        s.record.belief_type == "fact" for s in select(ranked, limit=4, profile=PROFILE).items
    )
    no_share = load_profile({"retrieval": {"durable_item_share": 0}}).retrieval
    assert all(
        s.record.belief_type == "fact"
        for s in select(ranked, limit=4, profile=no_share, hold_durable=True).items
    )


def test_exact_duplicates_collapse_and_the_subject_cap_blocks() -> None:
    a = belief(1, "User likes tea.", subjects=("drink",))
    b = belief(2, "user likes tea", subjects=("drink",))
    c = belief(3, "User likes green tea.", subjects=("drink",))
    d = belief(4, "User likes black tea.", subjects=("drink",))
    ranked = rank(offered(a, b, c, d), now=NOW, project="general", profile=PROFILE)
    chosen = select(ranked, limit=10, profile=PROFILE)
    reasons = sorted(reason for _, reason in chosen.blocked)
    assert reasons == ["duplicate", "subject_cap"]
    assert len(chosen.items) == 2


def test_conflict_partners_bypass_the_subject_cap() -> None:
    a = belief(1, "User lives in Oslo.", subjects=("home",))
    b = belief(2, "User lives in Rome.", subjects=("home",))
    c = belief(
        3,
        "User lives in Bergen.",
        subjects=("home",),
        confidence=0.1,
        conflicts_with=(a.belief_id,),
    )
    d = belief(4, "User lives in Paris.", subjects=("home",), confidence=0.2)
    a = a.evolve(conflicts_with=(c.belief_id,))
    cap_one = load_profile({"retrieval": {"per_subject_cap": 1}}).retrieval
    ranked = rank(offered(a, b, c, d), now=NOW, project="general", profile=cap_one)
    chosen = select(ranked, limit=10, profile=cap_one)
    statements = {s.record.statement for s in chosen.items}
    # Both partners are seated past the cap; of the rest, one per subject.
    assert {"User lives in Oslo.", "User lives in Bergen."} <= statements
    assert len(statements & {"User lives in Rome.", "User lives in Paris."}) == 1
    assert [reason for _, reason in chosen.blocked] == ["subject_cap"]
    assert [s.validity for s in chosen.items if s.record.conflicts_with] == [
        "unresolved_conflict"
    ] * 2


def test_reciprocal_rank_fusion_rewards_agreement_between_arms() -> None:
    a, b, c = belief(1), belief(2), belief(3)
    fused = fuse([(a, 1, 900), (b, 1, 800)], [(b, 0.9), (c, 0.8)], k=60, cap=64)
    assert [o.record.position for o in fused] == [2, 1, 3]
    assert fused[0].relevance == 1 / 62 + 1 / 61
    lexical_only = fuse([(a, 1, 900), (b, 1, 800)], None, k=60, cap=64)
    assert [o.relevance for o in lexical_only] == [900.0, 800.0]


@given(
    st.lists(
        st.tuples(
            st.integers(0, 5000),
            st.floats(0.05, 1.0),
            st.integers(1, 12),
            st.sampled_from(["fact", "preference", "relationship"]),
            st.integers(0, 400),
        ),
        min_size=1,
        max_size=30,
    ),
    st.permutations(range(30)),
    st.integers(1, 12),
)
def test_ranking_is_deterministic_and_independent_of_arrival_order(
    rows: list[tuple[int, float, int, str, int]], order: list[int], limit: int
) -> None:
    records = [
        Offered(
            belief(
                n + 1,
                confidence=conf,
                evidence_count=ev,
                belief_type=kind,
                last_evidence_at=(NOW - timedelta(days=age)).isoformat().replace("+00:00", "Z"),
            ),
            lexical=lex,
            relevance=float(lex),
        )
        for n, (lex, conf, ev, kind, age) in enumerate(rows)
    ]
    shuffled = [records[i] for i in order if i < len(records)]
    first = rank(records, now=NOW, project="general", profile=PROFILE)
    second = rank(shuffled, now=NOW, project="general", profile=PROFILE)
    assert [s.record.belief_id for s in first] == [s.record.belief_id for s in second]
    scores = [s.score for s in first]
    assert scores == sorted(scores, reverse=True) and all(s >= 0 for s in scores)
    chosen = select(first, limit=limit, profile=PROFILE)
    assert len(chosen.items) <= limit
    assert select(second, limit=limit, profile=PROFILE) == chosen


@given(
    st.lists(
        st.tuples(st.integers(1, 3), st.integers(1, 12), st.floats(-1.0, 1.0)),
        min_size=0,
        max_size=20,
    )
)
def test_the_quality_reorder_keeps_the_pool_and_moves_nothing_more_than_two_places(
    rows: list[tuple[int, int, float]],
) -> None:
    from memory_es.retrieval.quality import bounded_reorder

    pool = rank(
        [
            Offered(belief(n + 1, authority=a, evidence_count=e, utility=u), relevance=1.0)
            for n, (a, e, u) in enumerate(rows)
        ],
        now=NOW,
        project="general",
        profile=PROFILE,
    )
    adjusted, trace = bounded_reorder(pool)
    assert sorted(s.record.belief_id for s in adjusted) == sorted(s.record.belief_id for s in pool)
    assert trace.membership_changed is False
    assert trace.baseline == tuple(s.record.belief_id for s in pool)
    assert all(abs(d) <= 2 for _, d in trace.displacement)


def test_the_quality_reorder_is_off_by_default_and_promotes_provenance_when_on() -> None:
    assert PROFILE.quality_reorder_enabled is False
    import memory_es
    from memory_es.projections.memory import MemoryRecallIndex
    from memory_es.projections.traces import MemoryTraceStore
    from memory_es.retrieval.recall import RecallQuery, Retriever
    from memory_es.retrieval.tokenizer import document_terms

    index = MemoryRecallIndex()
    with index.writer() as writer:
        for n, authority, confidence in ((1, 3, 0.5), (2, 1, 0.9), (3, 1, 0.9)):
            record = belief(n, f"Deploy note {n}.", authority=authority, confidence=confidence)
            record = record.evolve(
                source_event_ids=(f"t{n}",), doc_len=sum(document_terms(record.statement).values())
            )
            writer.insert_belief(record, document_terms(record.statement))
    query = RecallQuery(principal="default/alice", text="deploy note", project="general")
    on = load_profile({"retrieval": {"quality_reorder_enabled": True}})
    plain = Retriever(
        index,
        MemoryTraceStore(),
        profile=load_profile(),
        clock=memory_es.FixedClock(NOW),
        ids=memory_es.SequentialIds(),
    )
    assert plain.recall(query).ranking_trace is None
    tuned = Retriever(
        index,
        MemoryTraceStore(),
        profile=on,
        clock=memory_es.FixedClock(NOW),
        ids=memory_es.SequentialIds(),
    )
    result = tuned.recall(query)
    trace = result.ranking_trace
    assert trace is not None and not trace.membership_changed
    assert trace.baseline[-1] == result.items[0].record.belief_id  # the USER statement
    assert dict(trace.displacement)[trace.baseline[-1]] == 2


def test_the_per_source_cap_keeps_one_inferred_belief_per_turn_in_a_query_read() -> None:
    # Three inferred readings of one turn share its context words; a query that matches
    # the turn returns the best of them, and the budget goes to other turns.
    one_turn = [
        belief(n, f"Kayak note {n}.", authority=1, status="provisional", confidence=c)
        for n, c in ((1, 0.6), (2, 0.5), (3, 0.4))
    ]
    other = belief(4, "Kayak trip.", authority=1, source_event_ids=("t2",))
    stated = [belief(n, f"Kayak fact {n}.") for n in (5, 6)]  # USER: never capped
    pool = [*one_turn, other, *stated]
    ranked = rank(offered(*pool), now=NOW, project="general", profile=PROFILE)
    chosen = select(ranked, limit=10, profile=PROFILE)
    ids = {s.record.belief_id for s in chosen.items}
    assert ids == {b.belief_id for b in (one_turn[0], other, *stated)}
    assert sorted(s.record.belief_id for s, reason in chosen.blocked if reason == "source_cap") == [
        one_turn[1].belief_id,
        one_turn[2].belief_id,
    ]
    # a priming read (no query text) holds no cap, and 0 turns it off
    assert len(select(ranked, limit=10, profile=PROFILE, hold_durable=True).items) == 6
    off = load_profile({"retrieval": {"per_source_cap": 0}}).retrieval
    assert len(select(ranked, limit=10, profile=off).items) == 6


def _one_turn(*statements: str) -> list[BeliefRecord]:
    """Inferred readings of one turn (the first listed is the newest: it ranks first)."""
    count = len(statements)
    return [
        belief(count - i, s, authority=1, status="provisional", source_event_ids=("t9",))
        for i, s in enumerate(statements)
    ]


def test_the_per_source_cap_keeps_the_reading_whose_own_words_meet_the_query() -> None:
    # The readings of one turn share its context words, so they score nearly alike; the
    # turn's slot goes to the one whose own statement holds the query's terms, not to
    # the newest (or shortest) line that carries nothing.
    turn = _one_turn(
        "User said: agreed, Dana.",
        "User and others went camping at Lake Oriole in summer 2025.",
        "User said: they hiked and swam.",
    )
    other = belief(9, "User likes lakes.", authority=1, source_event_ids=("t2",))
    pool = [*offered(*turn), *offered(other, relevance=0.5)]  # another turn, less relevant
    ranked = rank(pool, now=NOW, project="general", profile=PROFILE)
    assert ranked[0].record.statement == "User said: agreed, Dana."  # newest on the tie
    chosen = select(ranked, limit=5, profile=PROFILE, query_terms=("camp", "lake", "oriol"))
    assert [s.record.statement for s in chosen.items] == [
        "User and others went camping at Lake Oriole in summer 2025.",  # in the turn's slot
        "User likes lakes.",
    ]
    assert {s.record.statement for s, why in chosen.blocked if why == "source_cap"} == {
        "User said: agreed, Dana.",
        "User said: they hiked and swam.",
    }
    # without the query's terms the ranked order stands, as before
    plain = select(ranked, limit=5, profile=PROFILE)
    assert plain.items[0].record.statement == "User said: agreed, Dana."


def test_a_question_asking_when_keeps_the_reading_that_names_the_time() -> None:
    turn = _one_turn(
        "User said: the kite festival was loud and fun.",
        "User flew a kite at the festival on 3 May 2026.",
        "User said: the kites at the festival were huge, kites everywhere.",
    )
    terms = ("festiv", "kite")
    ranked = rank(offered(*turn), now=NOW, project="general", profile=PROFILE, temporal=True)
    chosen = select(ranked, limit=5, profile=PROFILE, query_terms=terms)
    assert chosen.items[0].record.statement == "User flew a kite at the festival on 3 May 2026."
    # not asking when: the query's terms, then the shorter line, choose
    ranked = rank(offered(*turn), now=NOW, project="general", profile=PROFILE)
    chosen = select(ranked, limit=5, profile=PROFILE, query_terms=terms)
    assert chosen.items[0].record.statement == "User said: the kite festival was loud and fun."


def test_a_question_asking_how_many_keeps_the_reading_that_names_the_number() -> None:
    # One turn tells the topic in one sentence and the amount in the next: a question
    # asking how long or how many is answered by the line that names the number.
    turn = _one_turn(
        "User has been knitting scarves on the ferry.",
        "User said: the ferry ride to the island takes forty minutes.",
    )
    terms = ("ferri", "ride")
    ranked = rank(offered(*turn), now=NOW, project="general", profile=PROFILE)
    asked = select(ranked, limit=5, profile=PROFILE, query_terms=terms, quantity=True)
    assert asked.items[0].record.statement.endswith("takes forty minutes.")
    # not asking an amount: the query's terms, then the shorter line, choose as before
    plain = select(ranked, limit=5, profile=PROFILE, query_terms=("ferri",))
    assert plain.items[0].record.statement == "User has been knitting scarves on the ferry."


def test_the_best_ranked_turn_shows_a_second_reading_that_says_the_question_s_words() -> None:
    # One turn tells the workshop in one sentence and what was made there in the next:
    # the turn that ranks first may show one reading more than the cap, when that
    # reading also says a word of the question; any other turn keeps one.
    lead = _one_turn(
        "User took their kids to a pottery workshop.",
        "User and others made their own pots at the workshop.",
        "User said: it was fun.",
    )
    second = [
        belief(n, s, authority=1, status="provisional", source_event_ids=("t2",))
        for n, s in ((1, "User said: the pottery workshop was busy."), (0, "User loves clay."))
    ]
    pool = [*offered(*lead), *offered(*second, relevance=0.5)]
    ranked = rank(pool, now=NOW, project="general", profile=PROFILE)
    chosen = select(ranked, limit=5, profile=PROFILE, query_terms=("pottery", "workshop"))
    assert [s.record.statement for s in chosen.items] == [
        "User took their kids to a pottery workshop.",
        "User and others made their own pots at the workshop.",  # the lead turn's second
        "User said: the pottery workshop was busy.",  # the next turn: one reading
    ]


def test_a_query_s_answer_holds_no_inferred_line_far_weaker_than_its_best() -> None:
    # Relevance is relative to the pool's best: an inferred reading under MIN_MATCH of it
    # shares a word or two with the question at most, and would only fill the budget; a
    # statement the user made keeps its place however weakly it matches.
    inferred = {"authority": 1, "status": "provisional"}
    strong = belief(1, "Kayak trip.", **inferred)
    fair = belief(2, "Kayak fact.", source_event_ids=("t2",), **inferred)
    weak = belief(3, "A fact.", source_event_ids=("t3",), **inferred)
    stated = belief(4, "A kayak.")
    below = MIN_MATCH * 1000 - 1
    pool = [
        Offered(strong, matched=2, lexical=1000, relevance=1000.0),
        Offered(fair, matched=1, lexical=200, relevance=MIN_MATCH * 1000),
        Offered(weak, matched=1, lexical=100, relevance=below),
        Offered(stated, matched=1, lexical=100, relevance=below),
    ]
    ranked = rank(pool, now=NOW, project="general", profile=PROFILE)
    chosen = select(ranked, limit=10, profile=PROFILE, query_terms=("kayak",))
    assert {s.record.belief_id for s in chosen.items} == {
        strong.belief_id,
        fair.belief_id,
        stated.belief_id,
    }
    assert [(s.record.belief_id, why) for s, why in chosen.blocked] == [
        (weak.belief_id, "weak_match")
    ]
    # a priming read (no query text) ranks without a match and keeps every line
    assert len(select(ranked, limit=10, profile=PROFILE, hold_durable=True).items) == 4
