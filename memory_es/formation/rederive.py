"""Re-derivation: a principal's sessions formed again from their turns under today's policy.

A domain service, pure like consolidation: the caller loads the principal aggregate and
each session's inputs (``SessionInput``: its turns, the current extractor's proposals,
its admitted established facts), injects the instant, the ids and the read model's
rows, and saves the aggregate — or discards it, for a dry run.

The rules (docs/operations.md, "Re-derivation after a policy bump"):

- Every live belief whose evidence lies wholly in the re-examined sessions and whose
  statement the current policy no longer derives from them is retired with reason
  ``rederived:formation@N`` — unless it is pinned, AFFIRMED (an established fact, the
  remember tool), or backed by a remember-tool turn (USER from ``remember
  --from-user``). A belief with evidence from elsewhere keeps it.
- Then each session is consolidated in order (trigger ``rederive``), chronologically:
  what the policy derives again with the same statement meets its belief by the same
  source rule and keeps its id, utility and citations (no new event); a new derivation
  forms and supersedes, or is superseded by, what a store that formed the sessions in
  order would have; durable rejections are consulted before anything forms
  (gate.memory.rederive_opt_in).
- The run ends with a ``SessionsRederived`` record: which sessions were re-derived under
  which policy, in the same transaction as everything it changed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from memory_es.domain.belief_reads import BeliefReads
from memory_es.domain.principal import PrincipalMemory
from memory_es.domain.values import LIVE_STATUSES, Authority, Role, normalize_statement
from memory_es.formation.consolidation import ConsolidationResult, consolidate
from memory_es.formation.extractor import Proposal, SourceTurn
from memory_es.policy import formation_key, formation_policy
from memory_es.ports import IdGenerator
from memory_es.projections.records import BeliefRecord

REDERIVE_TRIGGER = "rederive"


def retirement_reason() -> str:
    """The reason a belief the current policy no longer derives is retired with."""
    return f"rederived:{formation_policy()}"


@dataclass(frozen=True)
class SessionInput:
    """One closed session as formation reads it under the current policy."""

    session_id: str
    project: str
    turns: tuple[SourceTurn, ...]
    redactions: int
    refused: int
    proposals: tuple[Proposal, ...]
    established: tuple[Proposal, ...]
    established_refused: int

    def derived(self) -> set[str]:
        """The normalized statements this session derives (facts and proposals)."""
        return {normalize_statement(p.statement) for p in (*self.established, *self.proposals)}


def consolidate_input(
    principal: PrincipalMemory,
    reads: BeliefReads,
    session: SessionInput,
    *,
    now: str,
    ids: IdGenerator,
    trigger: str,
    extractor: str,
    chronological: bool = False,
) -> ConsolidationResult:
    """Consolidate one session's inputs (what the user said is USER by default)."""
    return consolidate(
        principal,
        reads,
        session_id=session.session_id,
        project=session.project,
        turns=session.turns,
        redactions=session.redactions,
        refused=session.refused,
        proposals=session.proposals,
        authority=Authority.USER,
        now=now,
        ids=ids,
        trigger=trigger,
        extractor=extractor,
        established=session.established,
        established_refused=session.established_refused,
        chronological=chronological,
    )


@dataclass(frozen=True)
class BeliefChange:
    belief_id: str
    statement: str

    def as_dict(self) -> dict[str, str]:
        return {"belief_id": self.belief_id, "statement": self.statement}


@dataclass
class Rederivation:
    """What one principal's re-derivation did (or, in a dry run, would do)."""

    principal: str  # "tenant/principal"
    policy: str  # formation_key: the version and the extractor's identity
    sessions_examined: list[str] = field(default_factory=list)
    sessions_skipped: int = 0
    formed: list[BeliefChange] = field(default_factory=list)
    retired: list[BeliefChange] = field(default_factory=list)
    superseded: list[BeliefChange] = field(default_factory=list)
    unchanged: int = 0


def rederive(
    principal: PrincipalMemory,
    reads: BeliefReads,
    sessions: Sequence[SessionInput],
    *,
    records: Mapping[str, BeliefRecord],
    now: str,
    ids: IdGenerator,
    extractor: str,
    skipped: int = 0,
) -> Rederivation:
    """Re-derive ``sessions`` (in order) onto ``principal``; ``records`` are the read
    model's rows of its beliefs (their statements and confidences)."""
    key = formation_key(extractor)
    out = Rederivation(
        principal=f"{principal.tenant}/{principal.principal}",
        policy=key,
        sessions_examined=[s.session_id for s in sessions],
        sessions_skipped=skipped,
    )
    if not sessions:
        return out
    examined_turns = {t.turn_id for s in sessions for t in s.turns}
    tool_turns = {t.turn_id for s in sessions for t in s.turns if t.role != Role.USER.value}
    derived = set().union(*(s.derived() for s in sessions))
    # The beliefs this run answers for: live, and evidenced only by the sessions it reads.
    before = [
        b
        for b in reads.live()
        if b.evidence.source_event_ids and b.evidence.source_event_ids <= examined_turns
    ]
    policy = formation_policy()
    for belief in before:
        bid, evidence = belief.belief_id, belief.evidence
        if (
            evidence.normalized in derived
            or reads.is_pinned(bid)
            or evidence.authority == Authority.AFFIRMED
            or not tool_turns.isdisjoint(evidence.source_event_ids)
        ):
            continue
        record = records.get(bid)
        principal.retire_belief(
            belief_id=bid,
            confidence=record.confidence if record is not None else 0.0,
            valid_to=now,
            reason=retirement_reason(),
            policy=policy,
        )
        out.retired.append(BeliefChange(bid, _statement(records, {}, bid)))
    statements: dict[str, str] = {}  # what this run formed, by id
    for session in sessions:
        result = consolidate_input(
            principal,
            reads,
            session,
            now=now,
            ids=ids,
            trigger=REDERIVE_TRIGGER,
            extractor=extractor,
            chronological=True,
        )
        statements.update(result.statements)
        out.formed.extend(BeliefChange(b, result.statements[b]) for b in result.formed)
        out.superseded.extend(
            BeliefChange(b, _statement(records, statements, b)) for b in result.superseded
        )
    retired = {c.belief_id for c in out.retired}
    out.unchanged = sum(
        1
        for b in before
        if b.belief_id not in retired and reads.status_of(b.belief_id) in LIVE_STATUSES
    )
    principal.record_rederivation(
        policy=key,
        session_ids=list(out.sessions_examined),
        formed=len(out.formed),
        retired=len(out.retired),
        superseded=len(out.superseded),
        unchanged=out.unchanged,
        at=now,
    )
    return out


def _statement(records: Mapping[str, BeliefRecord], formed: Mapping[str, str], bid: str) -> str:
    record = records.get(bid)
    if record is not None:
        return record.statement
    return formed.get(bid, "")
