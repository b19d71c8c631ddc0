"""L2 review's command handlers: alignment (relations and proposals), approval (the only
path that applies a proposal's effects, as the principal's events, with the operation
record), decline and refusal. Each commits once: the ledger and, on approval, the
principal's memory in one transaction."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from memory_es.domain.principal import FormedBelief, PrincipalMemory
from memory_es.domain.values import (
    LIVE_STATUSES,
    Authority,
    Status,
    normalize_statement,
    split_principal_identity,
)
from memory_es.errors import UsageError
from memory_es.policy import formation_policy
from memory_es.ports import iso
from memory_es.projections.records import BeliefRecord, principal_key
from memory_es.review import alignment
from memory_es.review import commands as review
from memory_es.review.ledger import (
    CONSOLIDATION,
    DECLINED,
    PENDING,
    PROMOTION,
    SUPERSESSION,
    ReviewLedger,
    ledger_id,
    relation_key,
)
from memory_es.review.proposals import POLICY, Proposal, moved, plan_cluster, rewording
from memory_es.services.unit_of_work import UnitOfWork

OPENED_TOPIC = "memory_es.review.ledger:ReviewLedger.ProposalOpened"
_SCAN_PAGE = 500


def _now(uow: UnitOfWork) -> str:
    return iso(uow.clock.now().replace(microsecond=0))


def ledger_of(uow: UnitOfWork, principal: str) -> ReviewLedger:
    tenant, name = split_principal_identity(principal)
    found = uow.load(ledger_id(tenant, name))
    if isinstance(found, ReviewLedger):
        return found
    return ReviewLedger(tenant=tenant, principal=name)


def find_ledger(uow: UnitOfWork, proposal_id: str, owner: str | None) -> ReviewLedger:
    """The ledger holding ``proposal_id``: the owner's, else found by its opening event
    in the log (proposals are few: alignment opens at most one per cluster)."""
    wanted = proposal_id.strip().lower()
    if owner is not None:
        ledger = ledger_of(uow, owner)
        if wanted in ledger.proposals:
            return ledger
        raise UsageError(f"no proposal {proposal_id} for principal {owner}")
    app = uow.adapters.app
    start = 1
    while True:
        page = app.recorder.select_notifications(start, _SCAN_PAGE, topics=[OPENED_TOPIC])
        for notification in page:
            opened: Any = app.mapper.to_domain_event(notification)
            if opened.proposal_id == wanted:
                found = uow.load(opened.originator_id)
                assert isinstance(found, ReviewLedger)
                return found
        if len(page) < _SCAN_PAGE:
            raise UsageError(f"no proposal {proposal_id}")
        start = page[-1].id + 1


# -- alignment ----------------------------------------------------------------------------


def align(cmd: review.Align, uow: UnitOfWork) -> review.AlignmentReport:
    knobs = uow.profile.lifecycle.alignment
    uow.catch_up()
    ledger = ledger_of(uow, cmd.principal)
    index = uow.index
    if cmd.belief_ids is None:
        rows = [
            r
            for r in index.beliefs(cmd.principal)
            if r.position > ledger.aligned_through and r.status in LIVE_STATUSES
        ]
    else:
        found = (index.get(b) for b in cmd.belief_ids)
        rows = [r for r in found if r is not None and r.status in LIVE_STATUSES]
    at = _now(uow)
    recorded = 0
    for row in rows:
        terms = sorted(alignment.content_terms(row.statement))
        candidates = index.candidates(
            cmd.principal, terms, project=row.project, cap=knobs.max_candidates + 1
        )
        others = [c.record for c in candidates if c.record.principal == cmd.principal]
        for relation in alignment.relations_for(row, others, min_similarity=knobs.min_similarity):
            if relation_key(relation.belief_id, relation.related_id) not in ledger.relations:
                ledger.record_relation(
                    belief_id=relation.belief_id,
                    related_id=relation.related_id,
                    similarity=relation.similarity,
                    policy=alignment.POLICY,
                    at=at,
                )
                recorded += 1
    opened, revised = _propose(uow, ledger, at)
    if cmd.belief_ids is None:
        through = max((r.position for r in rows), default=ledger.aligned_through)
        if through > ledger.aligned_through:
            ledger.record_alignment(through_position=through, checked=len(rows), at=at)
    if ledger.pending_events:
        uow.add(ledger)
        uow.commit()
    return review.AlignmentReport(cmd.principal, len(rows), recorded, opened, revised)


def _propose(uow: UnitOfWork, ledger: ReviewLedger, at: str) -> tuple[list[str], list[str]]:
    """One proposal per cluster of live related beliefs: a pending proposal sharing a
    member is revised to the whole cluster; a cluster a reviewer declined as it stands
    is not proposed again."""
    live: dict[str, BeliefRecord] = {}
    pairs: list[tuple[str, str]] = []
    for a, b in ledger.related_pairs():
        for belief_id in (a, b):
            if belief_id not in live:
                record = uow.index.get(belief_id)
                if record is not None and record.status in LIVE_STATUSES:
                    live[belief_id] = record
        if a in live and b in live:
            pairs.append((a, b))
    similarities = {(a, b): ledger.relations[relation_key(a, b)] for a, b in pairs}
    # Declined stays declined; an approved cluster live again (its compensation ran) is
    # proposed again, and approval then judges whether it brings new evidence.
    decided = {tuple(p["members"]) for p in ledger.proposals.values() if p["state"] == DECLINED}
    opened: list[str] = []
    revised: list[str] = []
    for cluster in alignment.clusters(pairs):
        plan = plan_cluster([live[b] for b in cluster], similarities)
        if plan is None or plan.members in decided:
            continue
        pending = [p for p in ledger.pending() if set(p["members"]) & set(cluster)]
        if pending:
            current = pending[0]
            for joined in pending[1:]:  # two clusters became one: one proposal stays
                ledger.refuse(
                    proposal_id=joined["id"],
                    reason=f"its cluster joined proposal {current['id']}",
                    at=at,
                )
            if tuple(current["members"]) != plan.members or current["pre_state"] != plan.pre_state:
                ledger.revise_proposal(
                    proposal_id=current["id"],
                    members=list(plan.members),
                    pre_state=plan.pre_state,
                    evidence=plan.evidence,
                    relation_evidence=plan.relation_evidence,
                    effects=plan.effects,
                    reason=plan.reason,
                    at=at,
                )
                revised.append(current["id"])
            continue
        proposal_id = uow.ids.new_id()
        ledger.open_proposal(
            proposal_id=proposal_id,
            kind=plan.kind,
            members=list(plan.members),
            pre_state=plan.pre_state,
            evidence=plan.evidence,
            relation_evidence=plan.relation_evidence,
            effects=plan.effects,
            derived_views=plan.derived_views,
            reason=plan.reason,
            policy=POLICY,
            at=at,
        )
        opened.append(proposal_id)
    return opened, revised


# -- decisions ----------------------------------------------------------------------------


def _pending(ledger: ReviewLedger, proposal_id: str) -> Proposal:
    proposal = Proposal.from_state(ledger.proposals[proposal_id.strip().lower()])
    if proposal.state != PENDING:
        raise UsageError(f"proposal {proposal.id} is {proposal.state}, not pending")
    return proposal


def approve(cmd: review.Approve, uow: UnitOfWork) -> Proposal:
    """Apply the effects as events and record the operation, unless the pre-state moved
    (refused, one line naming what moved) or it would reword consolidated evidence."""
    uow.catch_up()
    ledger = find_ledger(uow, cmd.proposal_id, cmd.owner)
    proposal = _pending(ledger, cmd.proposal_id)
    at = _now(uow)
    current = {b: uow.index.get(b) for b in proposal.members}
    refusal = moved(proposal, current) or rewording(proposal, ledger.approved_operations())
    if refusal is not None:
        ledger.refuse(proposal_id=proposal.id, reason=refusal, at=at)
        uow.add(ledger)
        uow.commit()
        return Proposal.from_state(ledger.proposals[proposal.id])
    principal = uow.principals.get_or_create(ledger.tenant, ledger.principal)
    records = {b: r for b, r in current.items() if r is not None}
    applied = _apply(principal, proposal.effects, at, records, uow.ids.new_id)
    operation = {
        "operation_id": uow.ids.new_id(),
        "proposal_id": proposal.id,
        "kind": proposal.kind,
        "policy": proposal.policy,
        "affected": list(proposal.members),
        "pre_state": proposal.pre_state,
        "evidence_union": sorted({i for ids in proposal.evidence.values() for i in ids}),
        "created": applied,
        "compensation": compensation(proposal.kind, applied),
        "irreversible": irreversible(proposal.kind),
        "at": at,
    }
    ledger.approve(proposal_id=proposal.id, operation=operation, at=at)
    uow.principals.add(principal)
    uow.add(ledger)
    uow.commit()
    return Proposal.from_state(ledger.proposals[proposal.id])


def _apply(
    principal: PrincipalMemory,
    effects: Iterable[dict[str, Any]],
    at: str,
    records: dict[str, BeliefRecord],
    new_id: Callable[[], str],
) -> list[dict[str, Any]]:
    policy = formation_policy()
    applied: list[dict[str, Any]] = []
    for effect in effects:
        kind, belief_id = effect["event"], effect["belief_id"]
        if kind == "BeliefFormed":
            effect = {**effect, "belief_id": new_id()}
            principal.form_belief(_promoted(records[effect["from"]], effect, at, policy))
        elif kind == "BeliefReinforced":
            principal.reinforce_belief(
                belief_id=belief_id,
                source_event_ids=list(effect["source_event_ids"]),
                source_session_id=effect["source_session_id"],
                at=effect["at"],
                policy=policy,
            )
        elif kind == "BeliefDeactivated":
            principal.deactivate_belief(
                belief_id=belief_id, reason=effect["reason"], at=at, policy=policy
            )
        elif kind == "BeliefSuperseded":
            principal.supersede_belief(
                belief_id=belief_id,
                successor_id=effect["successor_id"],
                valid_to=effect["valid_to"],
                policy=policy,
            )
        else:
            raise AssertionError(f"a proposal effect no approval applies: {kind}")
        applied.append(dict(effect))
    return applied


def _promoted(note: BeliefRecord, effect: dict[str, Any], at: str, policy: str) -> FormedBelief:
    """The durable belief a promotion forms: the survivor's statement at AFFIRMED (a
    reviewer vouched for it), on the union of the members' evidence, valid from the
    survivor's own evidence time (never the approval instant)."""
    from memory_es.formation.consolidation import INITIAL_CONFIDENCE, subject_key

    return FormedBelief(
        belief_id=effect["belief_id"],
        statement=note.statement,
        normalized=normalize_statement(note.statement),
        belief_type=effect["belief_type"],
        subjects=list(note.subjects),
        subject_key=subject_key(note.subjects),
        polarity=note.polarity,
        authority=int(Authority.AFFIRMED),
        confidence=INITIAL_CONFIDENCE[Authority.AFFIRMED],
        status=Status.ACTIVE.value,
        project=note.project,
        portable=note.portable,
        source_event_ids=list(effect["source_event_ids"]),
        source_session_id=note.source_session_id,
        source_seq=0,
        valid_from=note.valid_from,
        formed_at=at,
        policy=policy,
        supersedes=None,
        conflicts_with=None,
    )


def compensation(kind: str, applied: list[dict[str, Any]]) -> list[str]:
    """What undoes the operation's reversible part, as the commands that do it."""
    if kind == CONSOLIDATION:
        return [
            f"memory-es memory reactivate {e['belief_id']}"
            for e in applied
            if e["event"] == "BeliefDeactivated"
        ]
    if kind == PROMOTION:
        formed = [e for e in applied if e["event"] == "BeliefFormed"]
        deactivated = [e for e in applied if e["event"] == "BeliefDeactivated"]
        return [f"memory-es memory reject {e['belief_id']}" for e in formed] + [
            f"memory-es memory reactivate {e['belief_id']}" for e in deactivated
        ]
    if kind == SUPERSESSION:
        return [
            "none automatic: the predecessor stays readable (recall --as-of, memory history);"
            " `memory remember --from-user` states it again"
        ]
    return []


def irreversible(kind: str) -> list[str]:
    """The effects no compensation rolls back (listed, as the RFC asks)."""
    common = [
        "the effect events and the store positions they took (the log is append-only)",
        "correction lines and recall deltas sessions were already shown",
        "utility and citations credited to members before approval stay with them",
    ]
    if kind == CONSOLIDATION:
        return [
            "the survivor's added evidence links (no event retracts evidence;"
            " `memory forget --turn` erases a turn)",
            *common,
        ]
    if kind == PROMOTION:
        return ["the promoted belief's formation (a rejection retires it, durably)", *common]
    if kind == SUPERSESSION:
        return ["the predecessor's closed validity (no event un-supersedes a belief)", *common]
    return common


def decline(cmd: review.Decline, uow: UnitOfWork) -> Proposal:
    ledger = find_ledger(uow, cmd.proposal_id, cmd.owner)
    proposal = _pending(ledger, cmd.proposal_id)
    reason = (cmd.reason or "").strip() or "declined by the reviewer"
    ledger.decline(proposal_id=proposal.id, reason=reason, at=_now(uow))
    uow.add(ledger)
    uow.commit()
    return Proposal.from_state(ledger.proposals[proposal.id])


def proposals_of(uow: UnitOfWork, principal: str) -> list[Proposal]:
    return [Proposal.from_state(p) for p in ledger_of(uow, principal).proposals.values()]


Handler = Callable[[Any, UnitOfWork], Any]

HANDLERS: dict[type[Any], Handler] = {
    review.Align: align,
    review.Approve: approve,
    review.Decline: decline,
}

__all__ = ["HANDLERS", "find_ledger", "ledger_of", "principal_key", "proposals_of"]
