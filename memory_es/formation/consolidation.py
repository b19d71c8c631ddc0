"""Consolidation: proposals through the resolver into events on the principal aggregate.

A domain service: the caller injects the instant and the id generator, and saves the
session and principal aggregates together afterwards. Established facts (AFFIRMED) are
prepended before the candidate ceiling, so they may displace extractor proposals; every
displaced proposal is counted as rejected as well as dropped for the ceiling.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from memory_es.domain.belief_reads import BeliefReads
from memory_es.domain.principal import FormedBelief, PrincipalMemory
from memory_es.domain.resolver import Decision, Evidence, Existing, Outcome, beats, resolve
from memory_es.domain.values import (
    GENERAL_SCOPE,
    PORTABLE_TYPES,
    Authority,
    Status,
    normalize_statement,
)
from memory_es.formation.extractor import Proposal, SourceTurn
from memory_es.policy import formation_policy
from memory_es.ports import IdGenerator

# Confidence a belief starts with, by the authority that vouches for it.
INITIAL_CONFIDENCE: dict[Authority, float] = {
    Authority.USER: 0.9,
    Authority.AFFIRMED: 0.8,
    Authority.INFERRED: 0.6,
}

# An inference gains confidence by corroboration up to the inferred maximum, just below
# memory trust (AFFIRMED's 0.8 start); at the maximum it is promoted from PROVISIONAL to
# ACTIVE. The decay sweep acts on inferences that are provisional or below the maximum
# (memory_es/lifecycle/decay.py), so the maximum is reached at CORROBORATED_EVIDENCE
# pieces: a statement made again in another turn is no longer a guess and does not
# decay; a reading that rests on one turn alone is what the sweep forgets.
INFERRED_MAX_CONFIDENCE = 0.8
CORROBORATED_EVIDENCE = 2
CORROBORATION_STEP = round(
    (INFERRED_MAX_CONFIDENCE - INITIAL_CONFIDENCE[Authority.INFERRED])
    / (CORROBORATED_EVIDENCE - 1),
    6,
)


def corroborated_confidence(evidence: int) -> float:
    """An inference's confidence on ``evidence`` pieces of evidence (1 when formed)."""
    start = INITIAL_CONFIDENCE[Authority.INFERRED]
    return round(min(INFERRED_MAX_CONFIDENCE, start + CORROBORATION_STEP * (evidence - 1)), 6)


DEFAULT_CANDIDATE_CEILING = 64


@dataclass
class ConsolidationCounts:
    proposed: int = 0
    committed: int = 0
    reinforced: int = 0
    superseded: int = 0
    conflicted: int = 0
    revived: int = 0
    same_source: int = 0
    rejected: int = 0
    dropped_for_ceiling: int = 0
    redacted: int = 0
    refused: int = 0
    established: int = 0
    established_refused: int = 0

    def as_dict(self) -> dict[str, int]:
        return dict(self.__dict__)


@dataclass
class ConsolidationResult:
    session_id: str
    counts: ConsolidationCounts = field(default_factory=ConsolidationCounts)
    formed: list[str] = field(default_factory=list)
    superseded: list[str] = field(default_factory=list)
    conflicted: list[str] = field(default_factory=list)
    statements: dict[str, str] = field(default_factory=dict)  # formed id -> statement
    policy: str = field(default_factory=formation_policy)
    trigger: str = ""
    extractor: str = ""

    def as_dict(self) -> dict[str, object]:
        return {
            "session_id": self.session_id,
            "trigger": self.trigger,
            "policy": self.policy,
            "extractor": self.extractor,
            "counts": self.counts.as_dict(),
            "formed": list(self.formed),
            "superseded": list(self.superseded),
            "conflicted": list(self.conflicted),
        }


def subject_key(subjects: Sequence[str]) -> str:
    return normalize_statement(subjects[0]) if subjects else ""


def consolidate(
    principal: PrincipalMemory,
    reads: BeliefReads,
    *,
    session_id: str,
    project: str,
    turns: Sequence[SourceTurn],
    redactions: int,
    refused: int,
    proposals: Sequence[Proposal],
    authority: Authority,
    now: str,
    ids: IdGenerator,
    trigger: str,
    extractor: str,
    ceiling: int = DEFAULT_CANDIDATE_CEILING,
    established: Sequence[Proposal] = (),
    established_refused: int = 0,
    chronological: bool = False,
) -> ConsolidationResult:
    """``authority`` is the default for proposals that carry none (USER for what the
    user said); an established fact carries its own (AFFIRMED). ``reads``: the
    principal's beliefs at the version of ``principal`` the events are saved on, with
    the events this run adds (memory_es/domain/belief_reads.py).

    ``chronological`` (re-derivation, memory_es/formation/rederive.py): a candidate that
    meets a live belief which would have beaten it had the candidate formed first (its
    evidence is later, or of higher authority) forms superseded by that belief, as it
    would have in a store that formed the sessions in order under this policy. Without
    it (close, replay) such older evidence conflicts with the belief instead."""
    policy = formation_policy()
    result = ConsolidationResult(
        session_id=session_id, policy=policy, trigger=trigger, extractor=extractor
    )
    counts = result.counts
    counts.redacted = redactions
    counts.refused = refused
    counts.established = len(established)
    counts.established_refused = established_refused
    # A correction said without its subject is resolved before it gets here
    # (formation/corrections.py); one that was not says nothing on its own.
    candidates = [*established, *(p for p in proposals if p.corrects is None)]
    counts.proposed = len(candidates)
    admitted = candidates[: max(0, ceiling)]
    counts.dropped_for_ceiling = len(candidates) - len(admitted)
    counts.rejected += counts.dropped_for_ceiling
    for proposal in admitted:
        vouched = proposal.authority or authority
        incoming = _evidence(proposal, authority=vouched, project=project, session_id=session_id)
        existing = reads.candidates(incoming)
        decision = resolve(incoming, existing)
        if decision.outcome is Outcome.REJECTED:
            counts.rejected += 1
            continue
        if decision.outcome is Outcome.SAME_SOURCE:
            counts.same_source += 1
            continue
        if decision.outcome is Outcome.DUPLICATE:
            assert decision.existing_id is not None
            principal.reinforce_belief(
                belief_id=decision.existing_id,
                source_event_ids=sorted(incoming.source_event_ids),
                source_session_id=session_id,
                at=incoming.instant,
                policy=policy,
            )
            _corroborate(principal, reads, decision.existing_id, at=incoming.instant, policy=policy)
            counts.reinforced += 1
            continue
        if decision.outcome is Outcome.REVIVED:
            assert decision.existing_id is not None
            _revive(principal, reads, decision.existing_id, incoming, session_id, policy)
            counts.revived += 1
            continue
        successor = _later_belief(incoming, decision, existing) if chronological else None
        if successor is not None:
            decision = Decision(Outcome.CONTRADICTION, decision.existing_id, decision.supersedes)
        _commit(principal, reads, proposal, incoming, decision, vouched, result, now, ids, policy)
        if successor is not None:
            principal.supersede_belief(
                belief_id=result.formed[-1],
                successor_id=successor.belief_id,
                valid_to=successor.evidence.instant,
                policy=policy,
            )
            counts.superseded += 1
            result.superseded.append(result.formed[-1])
    principal.record_consolidation(
        session_id=session_id,
        trigger=trigger,
        policy=policy,
        extractor=extractor,
        counts=counts.as_dict(),
        at=now,
    )
    return result


def _later_belief(
    incoming: Evidence, decision: Decision, candidates: Sequence[Existing]
) -> Existing | None:
    """The first conflict partner that would have superseded ``incoming`` had it formed
    first; None when the decision has no such partner."""
    by_id = {c.belief_id: c for c in candidates}
    for partner in decision.conflicts:
        existing = by_id[partner]
        if beats(existing.evidence, incoming):
            return existing
    return None


def _corroborate(
    principal: PrincipalMemory, reads: BeliefReads, belief_id: str, *, at: str, policy: str
) -> None:
    """An inference's new evidence raises its confidence (and may promote it): new
    evidence also revives what decay took, since the count, not the history, decides."""
    if reads.authority_of(belief_id) is not Authority.INFERRED:
        return
    confidence = corroborated_confidence(reads.evidence_of(belief_id))
    status = reads.status_of(belief_id)
    if confidence >= INFERRED_MAX_CONFIDENCE:
        status = Status.ACTIVE
    assert status is not None
    principal.corroborate_belief(
        belief_id=belief_id, confidence=confidence, status=status.value, at=at, policy=policy
    )


def _revive(
    principal: PrincipalMemory,
    reads: BeliefReads,
    belief_id: str,
    incoming: Evidence,
    session_id: str,
    policy: str,
) -> None:
    """A retired inference stated again: its new evidence (as a duplicate's), then the
    same belief live again at the confidence its evidence count earns."""
    principal.reinforce_belief(
        belief_id=belief_id,
        source_event_ids=sorted(incoming.source_event_ids),
        source_session_id=session_id,
        at=incoming.instant,
        policy=policy,
    )
    confidence = corroborated_confidence(reads.evidence_of(belief_id))
    status = Status.ACTIVE if confidence >= INFERRED_MAX_CONFIDENCE else Status.PROVISIONAL
    principal.revive_belief(
        belief_id=belief_id,
        confidence=confidence,
        status=status.value,
        at=incoming.instant,
        policy=policy,
    )


def _commit(
    principal: PrincipalMemory,
    reads: BeliefReads,
    proposal: Proposal,
    incoming: Evidence,
    decision: Decision,
    authority: Authority,
    result: ConsolidationResult,
    now: str,
    ids: IdGenerator,
    policy: str,
) -> None:
    counts = result.counts
    belief_id = ids.new_id()
    newest = max(proposal.sources, key=lambda s: (s.at, s.seq))
    principal.form_belief(
        FormedBelief(
            belief_id=belief_id,
            statement=proposal.statement,
            normalized=incoming.normalized,
            belief_type=proposal.belief_type.value,
            subjects=list(proposal.subjects),
            subject_key=incoming.subject_key,
            polarity=proposal.polarity,
            authority=int(authority),
            confidence=INITIAL_CONFIDENCE[authority],
            status=(Status.PROVISIONAL if authority is Authority.INFERRED else Status.ACTIVE).value,
            project=incoming.project,
            portable=incoming.portable,
            source_event_ids=sorted(incoming.source_event_ids),
            source_session_id=incoming.session_id,
            source_seq=incoming.seq,
            valid_from=newest.at,
            formed_at=now,
            policy=policy,
            supersedes=decision.supersedes[0] if decision.supersedes else None,
            conflicts_with=decision.conflicts[0] if decision.conflicts else None,
            context=proposal.context,
        )
    )
    counts.committed += 1
    result.formed.append(belief_id)
    result.statements[belief_id] = proposal.statement
    for old in decision.supersedes:
        # What the old belief's own turns said of the old value goes with it: a residue
        # line carrying "Bristol" does not stay current beside "User lives in Leeds.".
        carried = reads.readings_carrying(old, incoming.normalized)
        for gone in (old, *(c for c in carried if c not in decision.supersedes)):
            principal.supersede_belief(
                belief_id=gone, successor_id=belief_id, valid_to=incoming.instant, policy=policy
            )
            counts.superseded += 1
            result.superseded.append(gone)
    for number, partner in enumerate(decision.conflicts):
        # The existing belief is disputed: linked back, with a fresh store position.
        principal.link_conflict(belief_id=partner, partner_id=belief_id, at=now, policy=policy)
        if number:
            # The formation event names the first partner; later ones link here.
            principal.link_conflict(belief_id=belief_id, partner_id=partner, at=now, policy=policy)
        principal.request_confirmation(belief_id=belief_id, partner_id=partner, at=now)
    if decision.conflicts:
        counts.conflicted += 1
        result.conflicted.append(belief_id)


def _evidence(
    proposal: Proposal, *, authority: Authority, project: str, session_id: str
) -> Evidence:
    newest = max(proposal.sources, key=lambda s: (s.at, s.seq))
    return Evidence(
        belief_type=proposal.belief_type.value,
        subject_key=normalize_statement(proposal.key)
        if proposal.key
        else subject_key(proposal.subjects),
        normalized=normalize_statement(proposal.statement),
        polarity=proposal.polarity,
        authority=authority,
        instant=newest.at,
        session_id=session_id,
        seq=max(s.seq for s in proposal.sources),
        source_event_ids=frozenset(s.turn_id for s in proposal.sources),
        project=project,
        portable=project == GENERAL_SCOPE or proposal.belief_type in PORTABLE_TYPES,
    )
