"""Consolidation: the candidate ceiling, established facts first, the audit counts."""

from __future__ import annotations

from memory_es.domain.belief_reads import BeliefReads
from memory_es.domain.principal import PrincipalMemory
from memory_es.domain.values import Authority, BeliefType
from memory_es.formation.consolidation import consolidate
from memory_es.formation.established import (
    EstablishedFact,
    established_proposals,
    subject_of,
)
from memory_es.formation.extractor import ClauseExtractor, SourceTurn
from memory_es.policy import formation_policy
from memory_es.ports import SequentialIds
from tests.aggregate_reads import reads_of

AT = "2026-03-02T09:00:00Z"


def turn(n: int, text: str, *, role: str = "user", trusted: bool = True) -> SourceTurn:
    return SourceTurn(f"t{n}", n, role, text, trusted, AT)


def test_established_facts_are_prepended_and_displaced_proposals_count_as_rejected() -> None:
    turns = [turn(1, "I live in Oslo. I have a Vespa. I prefer tea over coffee.")]
    proposals = ClauseExtractor().extract(turns)
    assert len(proposals) == 3
    facts, refused = established_proposals(
        [EstablishedFact("The Vespa is kept at the Oslo garage.", ("t1",))], turns
    )
    assert refused == 0
    principal = PrincipalMemory(tenant="default", principal="ana")
    reads = reads_of(principal)
    result = consolidate(
        principal,
        reads,
        session_id="s1",
        project="general",
        turns=turns,
        redactions=0,
        refused=0,
        proposals=proposals,
        authority=Authority.USER,
        now=AT,
        ids=SequentialIds(),
        trigger="session_close",
        extractor="clauses@2",
        ceiling=2,
        established=facts,
    )
    c = result.counts
    assert (c.proposed, c.committed, c.dropped_for_ceiling, c.rejected) == (4, 2, 2, 2)
    assert c.established == 1
    authorities = sorted(b.evidence.authority for b in reads.live())
    assert authorities == [int(Authority.AFFIRMED), int(Authority.USER)]
    record = principal.collect_events()[-1]
    assert isinstance(record, PrincipalMemory.ConsolidationRecorded)
    assert record.policy == formation_policy() and record.counts == c.as_dict()


def test_the_seed_subject_rule() -> None:
    assert subject_of("The launch moved to the Acme Q3 window.") == "Acme Q3"
    assert subject_of("Morgan Lee owns the billing service.") == "Morgan Lee"
    assert subject_of("the budget is approved for March.") == "March"
    assert subject_of("The budget is approved.") == "The budget is"
    assert subject_of("Staging runs on Kubernetes now.") == "Kubernetes"


def test_established_provenance_must_be_trusted_user_turns_of_the_session() -> None:
    turns = [turn(1, "hello"), turn(2, "ok", role="assistant"), turn(3, "x", trusted=False)]
    facts = [
        EstablishedFact("A fact.", ("t1",)),
        EstablishedFact("A fact from nowhere.", ()),
        EstablishedFact("An assistant fact.", ("t2",)),
        EstablishedFact("An untrusted fact.", ("t1", "t3")),
        EstablishedFact("A foreign fact.", ("t1", "elsewhere")),
    ]
    admitted, refused = established_proposals(facts, turns)
    assert [p.statement for p in admitted] == ["A fact."]
    assert admitted[0].belief_type is BeliefType.FACT
    assert admitted[0].authority is Authority.AFFIRMED
    assert refused == 4


def _consolidate_residence(
    principal: PrincipalMemory,
    reads: BeliefReads,
    session: str,
    n: int,
    at: str,
    city: str,
    **kwargs: bool,
) -> list[str]:
    turns = [SourceTurn(f"t{n}", 1, "user", f"I live in {city}.", True, at)]
    result = consolidate(
        principal,
        reads,
        session_id=session,
        project="general",
        turns=turns,
        redactions=0,
        refused=0,
        proposals=ClauseExtractor().extract(turns),
        authority=Authority.USER,
        now="2026-06-01T09:00:00Z",
        ids=SequentialIds(start=n),
        trigger="rederive",
        extractor="clauses@4",
        **kwargs,
    )
    return result.formed


def test_chronological_older_evidence_forms_superseded_by_the_later_belief() -> None:
    """Re-derivation's rule: older evidence that meets a later live belief forms as a
    store forming the sessions in order would have it — superseded by the later one —
    where a replay (not chronological) leaves both live, conflicting."""
    for chronological, expected in ((True, "superseded"), (False, "active")):
        principal = PrincipalMemory(tenant="default", principal="ana")
        reads = reads_of(principal)
        (later,) = _consolidate_residence(
            principal, reads, "s2", 100, "2026-04-01T09:00:00Z", "Milan"
        )
        (older,) = _consolidate_residence(
            principal,
            reads,
            "s1",
            200,
            "2026-03-01T09:00:00Z",
            "Rome",
            chronological=chronological,
        )
        assert reads.status_of(later) == "active"
        assert reads.status_of(older) == expected
        events = principal.collect_events()
        superseded = [e for e in events if isinstance(e, PrincipalMemory.BeliefSuperseded)]
        linked = [e for e in events if isinstance(e, PrincipalMemory.ConflictLinked)]
        if chronological:
            assert [(e.belief_id, e.successor_id) for e in superseded] == [(older, later)]
            assert superseded[0].valid_to == "2026-04-01T09:00:00Z" and linked == []
        else:
            assert superseded == [] and [e.belief_id for e in linked] == [later]
