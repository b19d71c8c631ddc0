"""The lifecycle's commands on a store: each reads what it needs, decides with the pure
functions beside it, and saves the principal aggregate's new events in one command
(under the store's write lock and its optimistic-concurrency retry).

``memory_es.app.Memory`` exposes each as a thin method.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from datetime import timedelta
from typing import TYPE_CHECKING
from uuid import UUID, uuid5

from memory_es.domain.values import LIVE_STATUSES
from memory_es.errors import InvalidInput, UsageError
from memory_es.formation.service import find_belief
from memory_es.lifecycle import conflicts as conflict_rules
from memory_es.lifecycle import decay as decay_rules
from memory_es.lifecycle import l1 as l1_rules
from memory_es.lifecycle.usage import (
    CONTEXT_TRACE_KIND,
    SNAPSHOT_TRACE_KIND,
    UsageReceipt,
    plan_usage,
    shown_trace,
)
from memory_es.policy import formation_policy, retrieval_policy
from memory_es.ports import iso
from projections.records import BeliefRecord, principal_key
from projections.traces import TraceRecord

# Context traces' ids are uuid5 in this namespace (see record_context_trace).
CONTEXT_TRACE_NAMESPACE = UUID("9a4e2c71-0d3b-5f88-b6a1-4c2e7d9f0b35")

if TYPE_CHECKING:
    from datetime import datetime

    from memory_es.app import Memory
    from memory_es.context.pack import ContextPack
    from memory_es.domain.principal import PrincipalMemory
    from memory_es.domain.session import Session


def _now(memory: Memory) -> datetime:
    return memory.clock.now().replace(microsecond=0)


def _on_principal(
    memory: Memory, principal: str, change: Callable[[PrincipalMemory], object]
) -> None:
    """Run ``change`` on the principal's aggregate ("tenant/name") and save what it did."""
    tenant, _, name = principal.partition("/")

    def command() -> None:
        aggregate = memory._get_or_create_principal(tenant, name)
        before = aggregate.version
        change(aggregate)
        if aggregate.version != before:
            memory._save(aggregate)

    memory._command(command)


# -- the decay sweep -----------------------------------------------------------------------


def sweep_decay(memory: Memory, *, dry_run: bool = False) -> decay_rules.DecayReport:
    now = _now(memory)
    enabled = memory.profile.formation.scheduled_enabled
    report = decay_rules.DecayReport(at=iso(now), enabled=enabled, dry_run=dry_run)
    if not enabled:
        return report
    memory.runner.catch_up()
    window = decay_rules.eligible(memory.index, memory.profile, now)
    report.eligible = len(window)
    if dry_run:
        report.decayed = [d.belief_id for d in window if not d.retire]
        report.retired = [d.belief_id for d in window if d.retire]
        return report
    by_principal: dict[str, list[decay_rules.Decay]] = defaultdict(list)
    for d in window:
        by_principal[d.principal].append(d)
    for principal, decays in sorted(by_principal.items()):

        def change(aggregate: PrincipalMemory, decays: list[decay_rules.Decay] = decays) -> None:
            decayed, retired = decay_rules.apply(aggregate, decays, at=report.at)
            report.decayed += decayed
            report.retired += retired

        _on_principal(memory, principal, change)
    return report


# -- L1 and session end -------------------------------------------------------------------


def sweep_l1(memory: Memory, *, dry_run: bool = False) -> l1_rules.L1Report:
    enabled = memory.profile.lifecycle.l1.enabled
    report = l1_rules.L1Report(enabled=enabled, dry_run=dry_run or not enabled)
    now = _now(memory)
    memory.runner.catch_up()
    candidates = l1_rules.l1_candidates(memory.index, memory.profile, now)
    report.candidates = [r.belief_id for r in candidates]
    if report.dry_run:
        return report
    by_principal: dict[str, list[str]] = defaultdict(list)
    for r in candidates:
        by_principal[r.principal].append(r.belief_id)
    for principal, ids in sorted(by_principal.items()):

        def change(aggregate: PrincipalMemory, ids: list[str] = ids) -> None:
            report.deactivated += l1_rules.deactivate(
                aggregate, ids, reason=l1_rules.AUTO_DECAY, at=iso(now)
            )

        _on_principal(memory, principal, change)
    return report


def end_session(memory: Memory, session_id: str) -> list[str]:
    """``session_end``: a closed session's session-tier beliefs leave the active surface."""
    session = memory._get_session(session_id)
    if not session.is_closed:
        raise UsageError(f"session {session_id} is open: close it (formation runs) first")
    principal = principal_key(session.tenant, session.principal)
    memory.runner.catch_up()
    ids = [
        r.belief_id
        for r in l1_rules.session_end_candidates(memory.index, principal, str(session.id))
    ]
    done: list[str] = []

    def change(aggregate: PrincipalMemory) -> None:
        done.extend(
            l1_rules.deactivate(aggregate, ids, reason=l1_rules.SESSION_END, at=iso(_now(memory)))
        )

    if ids:
        _on_principal(memory, principal, change)
    return done


def reactivate(memory: Memory, ref: str) -> BeliefRecord:
    record = find_belief(memory, ref)

    def change(aggregate: PrincipalMemory) -> None:
        prior = aggregate.prior_status(record.belief_id)
        if prior is None:
            raise UsageError(f"belief {record.short_id} is {record.status}, not deactivated")
        aggregate.reactivate_belief(
            belief_id=record.belief_id,
            status=prior.value,
            at=iso(_now(memory)),
            policy=formation_policy(),
        )

    _on_principal(memory, record.principal, change)
    return _current(memory, record.belief_id)


def set_pinned(memory: Memory, ref: str, *, pinned: bool) -> BeliefRecord:
    """Pin or unpin; pinning a pinned belief (or unpinning an unpinned one) records nothing."""
    record = find_belief(memory, ref)

    def change(aggregate: PrincipalMemory) -> None:
        if aggregate.is_pinned(record.belief_id) == pinned:
            return
        at = iso(_now(memory))
        if pinned:
            aggregate.pin_belief(belief_id=record.belief_id, at=at)
        else:
            aggregate.unpin_belief(belief_id=record.belief_id, at=at)

    _on_principal(memory, record.principal, change)
    return _current(memory, record.belief_id)


# -- conflict confirmation ----------------------------------------------------------------


def confirm(memory: Memory, ref: str) -> BeliefRecord:
    record = find_belief(memory, ref)
    partners = [p.belief_id for p in conflict_rules.open_partners(memory.index, record)]
    if not partners:
        raise UsageError(f"belief {record.short_id} has no conflict awaiting confirmation")

    def change(aggregate: PrincipalMemory) -> None:
        if aggregate.status_of(record.belief_id) not in LIVE_STATUSES:
            raise UsageError(f"belief {record.short_id} is no longer live")
        conflict_rules.confirm(aggregate, record.belief_id, partners, at=iso(_now(memory)))

    _on_principal(memory, record.principal, change)
    return _current(memory, record.belief_id)


# -- usage feedback -------------------------------------------------------------------------


def record_usage(memory: Memory, session_id: str, run_id: str, final_message: str) -> UsageReceipt:
    run_id = (run_id or "").strip()
    if not run_id:
        raise InvalidInput("usage needs the run id it is recorded under")
    session = memory._get_session(session_id)
    principal = principal_key(session.tenant, session.principal)
    traces = _shown_traces(memory, session, principal)
    plan = plan_usage(traces, final_message)
    receipt = UsageReceipt(
        run_id=run_id,
        session_id=str(session.id),
        recorded=True,
        cited=plan.cited,
        uncited=plan.uncited,
        ambiguous=plan.ambiguous,
        traces=tuple(t.trace_id for t in traces),
    )
    # The marks first (idempotent): a run whose event is saved has its traces marked.
    for trace_id, cited in sorted(plan.marks.items()):
        memory.traces.mark_cited(trace_id, principal, cited)
    recorded: list[bool] = []
    usage = memory.profile.retrieval.usage

    def change(aggregate: PrincipalMemory) -> None:
        if aggregate.usage_recorded(run_id):
            return
        known = [b for b in plan.cited if aggregate.status_of(b) is not None]
        aggregate.record_usage(
            run_id=run_id,
            session_id=str(session.id),
            cited=known,
            uncited=[b for b in plan.uncited if aggregate.status_of(b) is not None],
            ambiguous=list(plan.ambiguous),
            cited_delta=usage.cited_utility_delta,
            uncited_delta=usage.uncited_utility_delta,
            at=iso(_now(memory)),
        )
        recorded.append(True)

    _on_principal(memory, principal, change)
    if not recorded:
        return UsageReceipt(run_id, str(session.id), False, (), (), (), receipt.traces)
    return receipt


def _shown_traces(memory: Memory, session: Session, principal: str) -> list[TraceRecord]:
    """The session's snapshot trace (entered into the trace store the first time it is
    read, so it can be marked) and the in-turn traces recorded for the session."""
    out: list[TraceRecord] = []
    snapshot = getattr(session, "session_snapshot", None)
    if snapshot is not None and snapshot.get("belief_ids"):
        trace = memory.traces.get(str(snapshot["trace_id"]))
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
            memory.traces.record(trace)
        out.append(trace)
    out.extend(
        t
        for t in memory.traces.for_principal(principal)
        if t.session_id == str(session.id) and t.kind != SNAPSHOT_TRACE_KIND
    )
    return out


def record_context_trace(memory: Memory, pack: ContextPack) -> str | None:
    """The in-turn trace of a context pack: what its recall and delta blocks showed."""
    if not memory.profile.trace.enabled:
        return None
    now = memory.clock.now()
    returned = [i.belief_id for i in (*pack.recall, *pack.delta)]
    # Derived, not drawn (as the snapshot trace id is): a context call consumes no id, so
    # sequential ids (tests, the deterministic benchmark) do not shift. The same pack at
    # the same instant is the same trace.
    trace_id = str(
        uuid5(
            CONTEXT_TRACE_NAMESPACE, f"{pack.session_id}/{iso(now)}/{pack.prefix_digest}/{returned}"
        )
    )
    if memory.traces.get(trace_id) is not None:
        return trace_id
    memory.traces.record(
        shown_trace(
            trace_id=trace_id,
            principal=pack.principal,
            kind=CONTEXT_TRACE_KIND,
            session_id=pack.session_id,
            created_at=iso(now),
            expires_at=iso(now + timedelta(days=memory.profile.trace.operator_retention_days)),
            policy=retrieval_policy(),
            item_limit=len(pack.recall) + len(pack.delta) + len(pack.dropped_for_budget),
            returned=returned,
            dropped=pack.dropped_for_budget,
        )
    )
    return trace_id


def _current(memory: Memory, belief_id: str) -> BeliefRecord:
    current = memory.index.get(belief_id)
    assert current is not None
    return current


__all__ = [
    "confirm",
    "end_session",
    "reactivate",
    "record_context_trace",
    "record_usage",
    "set_pinned",
    "sweep_decay",
    "sweep_l1",
]
