"""L2 review on the in-memory store, and its pure rules (RFC 002)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from memory_es.domain.values import Status, short_id
from memory_es.projections.records import BeliefRecord, new_belief
from memory_es.review import alignment
from memory_es.review.ledger import CONSOLIDATION, SUPERSESSION
from memory_es.review.proposals import plan_cluster

NAMES = ["Pepper", "Ana", "Leeds", "Dolomites", "Monday", "March", "Oslo", "Bristol"]
NUMBERS = ["3", "2021", "14", "7.5", "09:30"]


def belief(n: int, statement: str, *, sources: tuple[str, ...], **extra: object) -> BeliefRecord:
    belief_id = f"{n:08x}-0000-4000-8000-000000000000"
    fields: dict[str, object] = {
        "belief_id": belief_id,
        "short_id": short_id(belief_id),
        "principal": "default/ana",
        "statement": statement,
        "belief_type": "fact",
        "subjects": ("hiking",),
        "polarity": True,
        "authority": 1,
        "confidence": 0.6,
        "status": Status.PROVISIONAL,
        "project": "general",
        "portable": False,
        "source_event_ids": sources,
        "source_session_id": f"session-{n}",
        "valid_from": f"2026-03-{n + 1:02d}T09:00:00Z",
        "valid_to": None,
        "successor_id": None,
        "conflicts_with": (),
        "position": 10 + n,
        "evidence_count": len(sources),
        "last_evidence_at": f"2026-03-{n + 1:02d}T09:00:00Z",
        "formed_at": f"2026-03-{n + 1:02d}T09:00:00Z",
        "policy": "formation@test",
        "doc_len": 8,
    }
    fields.update(extra)
    return new_belief(**fields)  # type: ignore[arg-type]


specific = st.sampled_from(NAMES + NUMBERS)
member_specifics = st.lists(st.lists(specific, max_size=4), min_size=2, max_size=5)


@settings(max_examples=200, deadline=None)
@given(member_specifics, st.booleans())
def test_consolidation_preserves_every_name_number_and_date(
    specifics: list[list[str]], shared_source: bool
) -> None:
    members = [
        belief(
            n,
            "User went hiking " + " ".join(f"with {s}" for s in carried) + ".",
            sources=("turn-0",) if shared_source else (f"turn-{n}",),
        )
        for n, carried in enumerate(specifics)
    ]
    plan = plan_cluster(members, {})
    if plan is None or plan.kind != CONSOLIDATION:
        # No member carries another: nothing is consolidated (no body is ever rewritten).
        assert not any(
            alignment.carries_all(keeper, [other])
            for keeper in members
            for other in members
            if other is not keeper
        )
        return
    consolidated = [m for m in members if m.belief_id in plan.members]
    deactivated = {e["belief_id"] for e in plan.effects if e["event"] == "BeliefDeactivated"}
    [kept] = [m for m in consolidated if m.belief_id not in deactivated]
    for member in consolidated:  # every name, number and date of every member stays active
        assert alignment.specifics(kept.statement) >= alignment.specifics(member.statement)
    gained = {
        i for e in plan.effects if e["event"] == "BeliefReinforced" for i in e["source_event_ids"]
    }
    assert set(kept.source_event_ids) | gained == {
        i for m in consolidated for i in m.source_event_ids
    }
    assert deactivated == {m.belief_id for m in consolidated} - {kept.belief_id}


def test_specifics_are_names_numbers_and_dates() -> None:
    assert alignment.specifics("User moved to Leeds on 3 March 2021 with Ana.") == {
        "leeds",
        "3",
        "march",
        "2021",
        "ana",
    }
    assert alignment.specifics("User's dog is Pepper.") == {"pepper"}


def test_supersession_is_proposed_only_for_comparable_distinct_times() -> None:
    old = belief(1, "User's train leaves at 09:30.", sources=("t1",))
    new = belief(2, "User's train leaves at 10:15.", sources=("t2",))
    plan = plan_cluster([old, new], {})
    assert plan is not None and plan.kind == SUPERSESSION
    assert plan.effects == [
        {
            "event": "BeliefSuperseded",
            "belief_id": old.belief_id,
            "successor_id": new.belief_id,
            "valid_to": new.valid_from,
        }
    ]
    same_time = new.evolve(last_evidence_at=old.last_evidence_at)
    assert plan_cluster([old, same_time], {}) is None  # unknown order: both stay


def test_similarity_ignores_formation_framing() -> None:
    assert alignment.similarity("User said: they like jazz.", "User likes jazz.") == 1.0
    assert alignment.similarity("User likes jazz.", "User lives in Oslo.") == 0.0


def test_mcp_review_tools_work_on_the_servers_principal_only() -> None:
    import pytest

    import memory_es
    from memory_es.errors import UsageError
    from memory_es.mcp.tools import MemoryTools
    from memory_es.profiles import load_profile

    aligned = load_profile({"lifecycle": {"alignment": {"enabled": True}}})
    with memory_es.open("memory://", ids=memory_es.SequentialIds(), profile=aligned) as memory:
        tools = MemoryTools(memory)
        for text in (
            "I love hiking in the Dolomites with my dog Pepper.",
            "Hiking the Dolomites with Pepper, my dog, is my favourite thing.",
        ):
            session = tools.open_session("ana")
            tools.record_turn("ana", session, text)
            tools.close_session("ana", session)
        [listed] = tools.review_list("ana")
        assert {"id", "kind", "state", "members", "reason"} <= set(listed)
        assert tools.review_list("bob") == []
        with pytest.raises(UsageError):
            tools.review_approve("bob", listed["id"])  # another principal's: not found
        assert tools.review_show("ana", listed["id"])["state"] == "pending"
        assert tools.review_approve("ana", listed["id"])["state"] == "approved"


def test_the_quality_reorder_keeps_ties_in_baseline_order_and_reads_declarations() -> None:
    from datetime import UTC, datetime

    from memory_es.evidence.declarations import (
        SESSION_DECLARATION,
        UNDECLARED,
        EvidenceDeclaration,
        SourceAuthority,
        Verification,
    )
    from memory_es.profiles import load_profile
    from memory_es.retrieval.quality import bounded_reorder
    from memory_es.retrieval.ranking import Offered, rank

    profile = load_profile().retrieval
    now = datetime(2026, 4, 1, tzinfo=UTC)
    same = [belief(n, f"Note {n}.", sources=(f"t{n}",)) for n in range(6)]
    pool = rank(
        [Offered(b, relevance=1.0) for b in same], now=now, project="general", profile=profile
    )
    adjusted, trace = bounded_reorder(pool, lambda record: SESSION_DECLARATION)
    assert adjusted == pool and trace.adjusted == trace.baseline  # equal quality: ties keep order
    assert trace.membership_changed is False
    attested = EvidenceDeclaration("ci", SourceAuthority.SYSTEM_ATTESTED, Verification.VERIFIED, 1)

    def declared(record: BeliefRecord) -> EvidenceDeclaration:
        return attested if record.belief_id == last else SESSION_DECLARATION

    pool = rank(
        [Offered(b.evolve(authority=3), relevance=1.0) for b in same],
        now=now,
        project="general",
        profile=profile,
    )
    last = pool[-1].record.belief_id
    moved, trace = bounded_reorder(pool, declared)
    assert [s.record.belief_id for s in moved].index(last) == len(pool) - 3  # up two, no more
    assert dict(trace.displacement)[last] == 2

    def undeclared(record: BeliefRecord) -> EvidenceDeclaration:
        return UNDECLARED if record.belief_id == last else attested

    held, off = bounded_reorder(pool, undeclared)
    assert held == pool and off.rule.startswith("off: 1 of 6 members")


def test_the_freshness_hint_is_neutral_by_default_and_only_for_current_state_under_intent() -> None:
    from datetime import UTC, datetime, timedelta

    import memory_es
    from memory_es.ports import FixedClock
    from memory_es.profiles import load_profile
    from memory_es.retrieval.quality import freshness, freshness_eligible

    assert load_profile().retrieval.quality_freshness_alpha == 1.0
    assert freshness(400.0, alpha=1.0, half_life_days=30.0) == 1.0  # neutral
    assert freshness(None, alpha=0.5, half_life_days=30.0) == 1.0  # unknown time: neutral
    assert freshness(30.0, alpha=0.5, half_life_days=30.0) == 0.75
    state = belief(1, "User lives in Leeds.", sources=("t1",), belief_type="user_model_attr")
    assert freshness_eligible(state)
    assert not freshness_eligible(state.evolve(authority=3))  # never demotes the user's word
    assert not freshness_eligible(belief(2, "User likes jazz.", sources=("t2",)))

    on = load_profile(
        {"retrieval": {"quality_reorder_enabled": True, "quality_freshness_alpha": 0.5}}
    )
    clock = FixedClock(datetime(2026, 3, 2, 9, 0, tzinfo=UTC))
    with memory_es.open("memory://", clock=clock, ids=memory_es.SequentialIds(), profile=on) as m:
        session = m.open_session("ana")
        m.say(session, "I like jazz.")
        m.close_session(session)
        clock.set(clock.now() + timedelta(days=1))
        retriever = m.retriever
        query = memory_es.retrieval.recall.RecallQuery(
            principal="default/ana", text="what music do I like", project="general"
        )
        assert retriever.freshness_hint(query, False, clock.now()) is None  # no intent: neutral
        now_query = memory_es.retrieval.recall.RecallQuery(
            principal="default/ana", text="what music do I like now", project="general"
        )
        fresh = retriever.freshness_hint(now_query, False, clock.now())
        assert fresh is not None and fresh(state) < 1.0
        assert fresh(m.list_beliefs("ana")[0]) == 1.0  # a preference is not current-state
