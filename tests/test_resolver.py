"""The resolver's order: same source, duplicate, conflict, contradiction."""

from __future__ import annotations

from memory_es.domain.resolver import Evidence, Existing, Outcome, resolve
from memory_es.domain.values import Authority


def evidence(
    statement: str = "user lives in seattle",
    *,
    authority: Authority = Authority.USER,
    instant: str = "2026-03-02T09:00:00Z",
    session: str = "s1",
    seq: int = 1,
    sources: tuple[str, ...] = ("t1",),
) -> Evidence:
    return Evidence(
        belief_type="user_model_attr",
        subject_key="home location",
        normalized=statement,
        polarity=True,
        authority=authority,
        instant=instant,
        session_id=session,
        seq=seq,
        source_event_ids=frozenset(sources),
        project="general",
        portable=True,
    )


def existing(ev: Evidence, *, live: bool = True) -> Existing:
    return Existing(belief_id="b1", evidence=ev, live=live)


def test_nothing_known_forms_new() -> None:
    assert resolve(evidence(), []).outcome is Outcome.NEW


def test_the_same_turns_never_form_twice_even_after_supersession() -> None:
    old = existing(evidence(), live=False)
    assert resolve(evidence(), [old]).outcome is Outcome.SAME_SOURCE


def test_a_restatement_is_a_duplicate() -> None:
    again = evidence(sources=("t9",), session="s2", instant="2026-04-01T00:00:00Z")
    assert resolve(again, [existing(evidence())]).outcome is Outcome.DUPLICATE


def test_a_later_user_statement_contradicts_and_supersedes() -> None:
    later = evidence(
        "user lives in portland", session="s2", instant="2026-04-01T00:00:00Z", sources=("t2",)
    )
    decision = resolve(later, [existing(evidence())])
    assert decision.outcome is Outcome.CONTRADICTION and decision.existing_id == "b1"


def test_older_evidence_conflicts_instead_of_reverting() -> None:
    older = evidence(
        "user lives in portland", session="s0", instant="2026-01-01T00:00:00Z", sources=("t0",)
    )
    assert resolve(older, [existing(evidence())]).outcome is Outcome.CONFLICT


def test_lower_authority_conflicts_however_late() -> None:
    inferred = evidence(
        "user lives in portland",
        authority=Authority.INFERRED,
        session="s2",
        instant="2027-01-01T00:00:00Z",
        sources=("t2",),
    )
    assert resolve(inferred, [existing(evidence())]).outcome is Outcome.CONFLICT


def test_within_one_session_source_order_decides() -> None:
    later_turn = evidence("user lives in portland", seq=2, sources=("t2",))
    assert resolve(later_turn, [existing(evidence())]).outcome is Outcome.CONTRADICTION
