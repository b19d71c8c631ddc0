"""Consolidation: proposals through the resolver into events on the principal aggregate.

A domain service: the caller injects the instant and the id generator, and saves the
session and principal aggregates together afterwards.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from memory_es.domain.principal import PrincipalMemory
from memory_es.domain.resolver import Evidence, Outcome, resolve
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

DEFAULT_CANDIDATE_CEILING = 64


@dataclass
class ConsolidationCounts:
    proposed: int = 0
    committed: int = 0
    reinforced: int = 0
    superseded: int = 0
    conflicted: int = 0
    same_source: int = 0
    rejected: int = 0
    dropped_for_ceiling: int = 0
    redacted: int = 0
    refused: int = 0

    def as_dict(self) -> dict[str, int]:
        return dict(self.__dict__)


@dataclass
class ConsolidationResult:
    session_id: str
    counts: ConsolidationCounts = field(default_factory=ConsolidationCounts)
    formed: list[str] = field(default_factory=list)
    superseded: list[str] = field(default_factory=list)


def subject_key(subjects: Sequence[str]) -> str:
    return normalize_statement(subjects[0]) if subjects else ""


def consolidate(
    principal: PrincipalMemory,
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
) -> ConsolidationResult:
    result = ConsolidationResult(session_id=session_id)
    counts = result.counts
    counts.redacted = redactions
    counts.refused = refused
    counts.proposed = len(proposals)
    admitted = list(proposals[:ceiling])
    counts.dropped_for_ceiling = len(proposals) - len(admitted)
    counts.rejected += counts.dropped_for_ceiling
    policy = formation_policy()
    for proposal in admitted:
        incoming = _evidence(proposal, authority=authority, project=project, session_id=session_id)
        decision = resolve(incoming, principal.existing())
        if decision.outcome is Outcome.SAME_SOURCE:
            counts.same_source += 1
            continue
        if decision.outcome is Outcome.DUPLICATE:
            assert decision.existing_id is not None
            principal.reinforce_belief(
                belief_id=decision.existing_id,
                source_event_ids=[proposal.source.turn_id],
                source_session_id=session_id,
                at=proposal.source.at,
                policy=policy,
            )
            counts.reinforced += 1
            continue
        belief_id = ids.new_id()
        supersedes = decision.existing_id if decision.outcome is Outcome.CONTRADICTION else None
        conflicts_with = decision.existing_id if decision.outcome is Outcome.CONFLICT else None
        principal.form_belief(
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
            project=project,
            portable=incoming.portable,
            source_event_ids=[proposal.source.turn_id],
            source_session_id=session_id,
            source_seq=proposal.source.seq,
            valid_from=proposal.source.at,
            formed_at=now,
            policy=policy,
            supersedes=supersedes,
            conflicts_with=conflicts_with,
        )
        counts.committed += 1
        result.formed.append(belief_id)
        if supersedes is not None:
            principal.supersede_belief(
                belief_id=supersedes,
                successor_id=belief_id,
                valid_to=proposal.source.at,
                policy=policy,
            )
            counts.superseded += 1
            result.superseded.append(supersedes)
        if conflicts_with is not None:
            principal.link_conflict(
                belief_id=conflicts_with, partner_id=belief_id, at=now, policy=policy
            )
            principal.request_confirmation(belief_id=belief_id, partner_id=conflicts_with, at=now)
            counts.conflicted += 1
    principal.record_consolidation(
        session_id=session_id,
        trigger=trigger,
        policy=policy,
        extractor=extractor,
        counts=counts.as_dict(),
        at=now,
    )
    return result


def _evidence(
    proposal: Proposal, *, authority: Authority, project: str, session_id: str
) -> Evidence:
    return Evidence(
        belief_type=proposal.belief_type.value,
        subject_key=subject_key(proposal.subjects),
        normalized=normalize_statement(proposal.statement),
        polarity=proposal.polarity,
        authority=authority,
        instant=proposal.source.at,
        session_id=session_id,
        seq=proposal.source.seq,
        source_event_ids=frozenset({proposal.source.turn_id}),
        project=project,
        portable=project == GENERAL_SCOPE or proposal.belief_type in PORTABLE_TYPES,
    )
