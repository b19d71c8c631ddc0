"""The resolver's order: rejection, same source, duplicate, conflict, contradiction,
revival."""

from __future__ import annotations

import dataclasses

from hypothesis import given, settings
from hypothesis import strategies as st

from memory_es.domain.resolver import Decision, Evidence, Existing, Outcome, beats, resolve
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


def retired(ev: Evidence, belief_id: str = "b1") -> Existing:
    """A belief the decay sweep retired: not live, not rejected."""
    return Existing(belief_id=belief_id, evidence=ev, live=False, retired=True)


def inferred_again() -> Evidence:
    """The same statement read again, months later, from another session's turn."""
    return evidence(
        authority=Authority.INFERRED, session="s2", sources=("t9",), instant="2026-09-01T00:00:00Z"
    )


def test_new_evidence_revives_a_statement_decay_retired() -> None:
    again = inferred_again()
    old = retired(evidence(authority=Authority.INFERRED))
    assert resolve(again, [old]) == Decision(Outcome.REVIVED, "b1")


def test_replayed_evidence_of_a_retired_statement_is_same_source_not_revival() -> None:
    old = evidence(authority=Authority.INFERRED)
    assert resolve(old, [retired(old)]).outcome is Outcome.SAME_SOURCE


def test_revival_needs_the_authority_the_retired_statement_had() -> None:
    stated = evidence(session="s2", sources=("t9",), instant="2026-09-01T00:00:00Z")
    assert resolve(stated, [retired(evidence(authority=Authority.INFERRED))]).outcome is (
        Outcome.NEW
    )


def test_a_retired_statement_contested_by_a_live_belief_is_not_revived() -> None:
    again = inferred_again()
    moved = Existing(
        belief_id="b2",
        evidence=evidence(
            "user lives in portland",
            authority=Authority.INFERRED,
            session="s1b",
            instant="2026-06-01T00:00:00Z",
            sources=("t5",),
        ),
        live=True,
    )
    decision = resolve(again, [retired(evidence(authority=Authority.INFERRED)), moved])
    assert decision.outcome is Outcome.CONTRADICTION and decision.supersedes == ("b2",)


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


# -- several live beliefs on one subject, rejections, polarity ---------------------------


def test_a_candidate_supersedes_every_belief_it_beats_and_conflicts_with_the_rest() -> None:
    user_old = Existing("u1", evidence(sources=("t1",)), live=True)
    inferred = Existing(
        "i1",
        evidence(
            "user lives in denver",
            authority=Authority.INFERRED,
            session="s2",
            instant="2026-05-01T00:00:00Z",
            sources=("t2",),
        ),
        live=True,
    )
    user_newer = Existing(
        "u2",
        evidence(
            "user lives in austin", session="s3", instant="2026-07-01T00:00:00Z", sources=("t3",)
        ),
        live=True,
    )
    incoming = evidence(
        "user lives in boston", session="s4", instant="2026-06-01T00:00:00Z", sources=("t4",)
    )
    decision = resolve(incoming, [user_old, inferred, user_newer])
    assert decision.outcome is Outcome.CONFLICT
    assert decision.supersedes == ("u1", "i1")
    assert decision.conflicts == ("u2",)


def test_a_rejected_statement_is_refused_before_anything_else() -> None:
    rejected = Existing("r1", evidence(sources=("t1",)), live=False, rejected=True)
    again = evidence(session="s9", instant="2027-01-01T00:00:00Z", sources=("t9",))
    decision = resolve(again, [rejected])
    assert decision.outcome is Outcome.REJECTED and decision.existing_id == "r1"
    # The same turns replayed are refused as a rejection too, not as the same source.
    assert resolve(evidence(), [rejected]).outcome is Outcome.REJECTED


def test_polarity_alone_never_conflicts_a_later_retraction_supersedes() -> None:
    retraction = dataclasses.replace(
        evidence(
            "user no longer lives in seattle",
            session="s2",
            instant="2026-04-01T00:00:00Z",
            sources=("t2",),
        ),
        polarity=False,
    )
    assert resolve(retraction, [existing(evidence())]).outcome is Outcome.CONTRADICTION


def test_beliefs_in_another_project_that_are_not_portable_never_meet() -> None:
    local = Existing(
        "d1", dataclasses.replace(evidence(), project="veetbot", portable=False), live=True
    )
    elsewhere = dataclasses.replace(
        evidence(
            "user lives in portland", session="s2", instant="2026-04-01T00:00:00Z", sources=("t2",)
        ),
        project="orbit",
    )
    assert resolve(elsewhere, [local]).outcome is Outcome.NEW


# -- gate.memory.authority_recency: the resolver orders authority then recency (a property) --------

AUTHORITIES = st.sampled_from(list(Authority))
INSTANTS = st.sampled_from(
    ["2026-01-01T00:00:00Z", "2026-03-02T09:00:00Z", "2026-03-02T09:00:01Z", "2027-01-01T00:00:00Z"]
)


@st.composite
def prior_beliefs(draw: st.DrawFn) -> Existing:
    same_session = draw(st.booleans())
    return Existing(
        belief_id=f"b{draw(st.integers(0, 10**6))}",
        evidence=dataclasses.replace(
            evidence(
                f"user lives in city {draw(st.integers(0, 50))}",
                authority=draw(AUTHORITIES),
                instant=draw(INSTANTS),
                session="s-in" if same_session else f"s{draw(st.integers(0, 3))}",
                seq=draw(st.integers(1, 4)),
                sources=(f"e{draw(st.integers(0, 10**6))}",),
            ),
            polarity=draw(st.booleans()),
        ),
        live=True,
    )


@settings(max_examples=300, deadline=None)  # a noisy shared machine; no stopwatch here
@given(
    auth_in=AUTHORITIES,
    instant=INSTANTS,
    seq=st.integers(1, 4),
    polarity=st.booleans(),
    priors=st.lists(prior_beliefs(), min_size=1, max_size=4, unique_by=lambda b: b.belief_id),
)
def test_authority_recency_resolver_orders_authority_then_recency(
    auth_in: Authority, instant: str, seq: int, polarity: bool, priors: list[Existing]
) -> None:
    incoming = dataclasses.replace(
        evidence(
            "user lives in the incoming city",
            authority=auth_in,
            instant=instant,
            session="s-in",
            seq=seq,
            sources=("incoming",),
        ),
        polarity=polarity,
    )
    decision = resolve(incoming, priors)
    for prior in priors:
        ev = prior.evidence
        if auth_in > ev.authority:
            assert prior.belief_id in decision.supersedes  # higher authority wins
        elif auth_in < ev.authority:
            assert prior.belief_id in decision.conflicts  # and never loses to lower
        elif ev.session_id == "s-in":
            later = seq > ev.seq  # inside one session, source order decides
            assert prior.belief_id in (decision.supersedes if later else decision.conflicts)
        else:
            later = instant > ev.instant  # equal authority: a later instant supersedes
            assert prior.belief_id in (decision.supersedes if later else decision.conflicts)
    assert set(decision.supersedes) | set(decision.conflicts) == {b.belief_id for b in priors}
    assert decision.outcome is (Outcome.CONFLICT if decision.conflicts else Outcome.CONTRADICTION)
    # Polarity alone never conflicts: flipping it (either side) changes nothing.
    flipped = dataclasses.replace(incoming, polarity=not polarity)
    assert resolve(flipped, priors) == decision
    flipped_priors = [
        dataclasses.replace(
            p, evidence=dataclasses.replace(p.evidence, polarity=not p.evidence.polarity)
        )
        for p in priors
    ]
    assert resolve(incoming, flipped_priors) == decision
    assert all(beats(incoming, p.evidence) == (p.belief_id in decision.supersedes) for p in priors)
