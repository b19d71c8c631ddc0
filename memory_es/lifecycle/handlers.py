"""The lifecycle's command handlers: each takes its command and a unit of work, reads
what it needs, decides with the pure rules beside it, and commits the principal's new
events once. Rows of the service layer's one handler table (memory_es/services/handlers.py).
"""

from __future__ import annotations

from memory_es.domain.principal import PrincipalMemory
from memory_es.domain.session import Session
from memory_es.domain.values import LIVE_STATUSES, split_principal_identity
from memory_es.errors import InvalidInput, UsageError
from memory_es.lifecycle import commands
from memory_es.lifecycle import conflicts as conflict_rules
from memory_es.lifecycle import decay as decay_rules
from memory_es.lifecycle import l1 as l1_rules
from memory_es.lifecycle.usage import SNAPSHOT_TRACE_KIND, UsageReceipt, plan_usage, shown_trace
from memory_es.policy import formation_policy, retrieval_policy
from memory_es.ports import iso
from memory_es.projections.records import BeliefRecord, principal_key
from memory_es.projections.traces import TraceRecord, TraceStore
from memory_es.services.unit_of_work import UnitOfWork


def _now(uow: UnitOfWork) -> str:
    return iso(uow.clock.now().replace(microsecond=0))


def _principal(uow: UnitOfWork, principal: str) -> PrincipalMemory:
    tenant, name = split_principal_identity(principal)
    return uow.principals.get_or_create(tenant, name)


def _commit_if_changed(uow: UnitOfWork, aggregate: PrincipalMemory, version: int | None) -> None:
    if aggregate.version != version:
        uow.principals.add(aggregate)
        uow.commit()


def _find(uow: UnitOfWork, ref: str, owner: str | None) -> BeliefRecord:
    from memory_es.services.handlers import find_belief  # the one short-id resolver

    return find_belief(uow.index, ref, owner)


def _current(uow: UnitOfWork, belief_id: str) -> BeliefRecord:
    current = uow.index.get(belief_id)
    assert current is not None
    return current


# -- decay and L1 ---------------------------------------------------------------------------


def apply_decay(cmd: commands.ApplyDecay, uow: UnitOfWork) -> tuple[list[str], list[str]]:
    aggregate = _principal(uow, cmd.principal)
    version = aggregate.version
    done = decay_rules.apply(aggregate, uow.beliefs(aggregate), list(cmd.decays), at=cmd.at)
    _commit_if_changed(uow, aggregate, version)
    return done


def deactivate(cmd: commands.Deactivate, uow: UnitOfWork) -> list[str]:
    aggregate = _principal(uow, cmd.principal)
    version = aggregate.version
    reads = uow.beliefs(aggregate)
    done = l1_rules.deactivate(aggregate, reads, list(cmd.belief_ids), reason=cmd.reason, at=cmd.at)
    _commit_if_changed(uow, aggregate, version)
    return done


def end_session(cmd: commands.EndSession, uow: UnitOfWork) -> list[str]:
    session = uow.sessions.get(cmd.session_id)
    if not session.is_closed:
        raise UsageError(f"session {cmd.session_id} is open: close it (formation runs) first")
    principal = principal_key(session.tenant, session.principal)
    uow.catch_up()
    rows = l1_rules.session_end_candidates(uow.index, principal, str(session.id))
    aggregate = uow.principals.get_or_create(session.tenant, session.principal)
    version = aggregate.version
    done = l1_rules.deactivate(
        aggregate,
        uow.beliefs(aggregate),
        [r.belief_id for r in rows],
        reason=l1_rules.SESSION_END,
        at=_now(uow),
    )
    _commit_if_changed(uow, aggregate, version)
    return done


def reactivate(cmd: commands.Reactivate, uow: UnitOfWork) -> BeliefRecord:
    record = _find(uow, cmd.belief_ref, cmd.owner)
    aggregate = _principal(uow, record.principal)
    prior = uow.beliefs(aggregate).prior_status(record.belief_id)
    if prior is None:
        raise UsageError(f"belief {record.short_id} is {record.status}, not deactivated")
    aggregate.reactivate_belief(
        belief_id=record.belief_id, status=prior.value, at=_now(uow), policy=formation_policy()
    )
    uow.principals.add(aggregate)
    uow.commit()
    return _current(uow, record.belief_id)


def set_pinned(cmd: commands.SetPinned, uow: UnitOfWork) -> BeliefRecord:
    """Pinning a pinned belief (or unpinning an unpinned one) records nothing."""
    record = _find(uow, cmd.belief_ref, cmd.owner)
    aggregate = _principal(uow, record.principal)
    if uow.beliefs(aggregate).is_pinned(record.belief_id) != cmd.pinned:
        if cmd.pinned:
            aggregate.pin_belief(belief_id=record.belief_id, at=_now(uow))
        else:
            aggregate.unpin_belief(belief_id=record.belief_id, at=_now(uow))
        uow.principals.add(aggregate)
        uow.commit()
    return _current(uow, record.belief_id)


# -- conflict confirmation ----------------------------------------------------------------


def confirm(cmd: commands.Confirm, uow: UnitOfWork) -> BeliefRecord:
    record = _find(uow, cmd.belief_ref, cmd.owner)
    partners = [p.belief_id for p in conflict_rules.open_partners(uow.index, record)]
    if not partners:
        raise UsageError(f"belief {record.short_id} has no conflict awaiting confirmation")
    aggregate = _principal(uow, record.principal)
    reads = uow.beliefs(aggregate)
    if reads.status_of(record.belief_id) not in LIVE_STATUSES:
        raise UsageError(f"belief {record.short_id} is no longer live")
    conflict_rules.confirm(aggregate, reads, record.belief_id, partners, at=_now(uow))
    uow.principals.add(aggregate)
    uow.commit()
    return _current(uow, record.belief_id)


# -- usage feedback -------------------------------------------------------------------------


def record_usage(cmd: commands.RecordUsage, uow: UnitOfWork) -> UsageReceipt:
    run_id = (cmd.run_id or "").strip()
    if not run_id:
        raise InvalidInput("usage needs the run id it is recorded under")
    session = uow.sessions.get(cmd.session_id)
    principal = principal_key(session.tenant, session.principal)
    traces = uow.retriever.traces
    shown = shown_traces(traces, session, principal)
    plan = plan_usage(shown, cmd.final_message)
    read = tuple(t.trace_id for t in shown)
    aggregate = uow.principals.get_or_create(session.tenant, session.principal)
    if aggregate.usage_recorded(run_id):
        return UsageReceipt(run_id, str(session.id), False, (), (), (), read)
    # The marks first (idempotent): a run whose event is saved has its traces marked.
    for trace_id, cited in sorted(plan.marks.items()):
        traces.mark_cited(trace_id, principal, cited)
    usage = uow.profile.retrieval.usage
    known = uow.beliefs(aggregate).status_of
    aggregate.record_usage(
        run_id=run_id,
        session_id=str(session.id),
        cited=[b for b in plan.cited if known(b) is not None],
        uncited=[b for b in plan.uncited if known(b) is not None],
        ambiguous=list(plan.ambiguous),
        cited_delta=usage.cited_utility_delta,
        uncited_delta=usage.uncited_utility_delta,
        at=_now(uow),
    )
    uow.principals.add(aggregate)
    uow.commit()
    return UsageReceipt(
        run_id, str(session.id), True, plan.cited, plan.uncited, plan.ambiguous, read
    )


def shown_traces(traces: TraceStore, session: Session, principal: str) -> list[TraceRecord]:
    """The session's snapshot trace (entered into the trace store the first time it is
    read, so it can be marked) and the in-turn traces recorded for the session."""
    out: list[TraceRecord] = []
    snapshot = getattr(session, "session_snapshot", None)
    if snapshot is not None and snapshot.get("belief_ids"):
        trace = traces.get(str(snapshot["trace_id"]))
        if trace is None:
            trace = shown_trace(
                trace_id=str(snapshot["trace_id"]),
                principal=principal,
                kind=SNAPSHOT_TRACE_KIND,
                session_id=str(session.id),
                created_at=str(snapshot["taken_at"]),
                expires_at=str(snapshot["trace_expires_at"]),
                policy=str(snapshot.get("policy", retrieval_policy())),
                item_limit=len(snapshot["belief_ids"]),
                returned=[str(b) for b in snapshot["belief_ids"]],
            )
            traces.record(trace)
        out.append(trace)
    out.extend(
        t
        for t in traces.for_principal(principal)
        if t.session_id == str(session.id) and t.kind != SNAPSHOT_TRACE_KIND
    )
    return out
