"""The lifecycle's sweeps over a store, commands made of commands (rows of the one
handler table): each reads its window from the read model once, then hands one command
per principal to the bus (each its own unit of work, with the one retry loop). Also the
context pack's in-turn trace.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import timedelta
from uuid import UUID, uuid5

from memory_es.context.pack import ContextPack
from memory_es.lifecycle import commands
from memory_es.lifecycle import decay as decay_rules
from memory_es.lifecycle import l1 as l1_rules
from memory_es.lifecycle.usage import CONTEXT_TRACE_KIND, shown_trace
from memory_es.policy import retrieval_policy
from memory_es.ports import iso
from memory_es.services import CommandBus

# Context traces' ids are uuid5 in this namespace (see record_context_trace).
CONTEXT_TRACE_NAMESPACE = UUID("9a4e2c71-0d3b-5f88-b6a1-4c2e7d9f0b35")


def sweep_decay(cmd: commands.SweepDecay, services: CommandBus) -> decay_rules.DecayReport:
    dry_run = cmd.dry_run
    a = services.adapters
    now = a.clock.now().replace(microsecond=0)
    enabled = a.profile.formation.scheduled_enabled
    report = decay_rules.DecayReport(at=iso(now), enabled=enabled, dry_run=dry_run)
    if not enabled:
        return report
    a.runner.catch_up()
    window = decay_rules.eligible(a.index, a.profile, now)
    report.eligible = len(window)
    if dry_run:
        report.decayed = [d.belief_id for d in window if not d.retire]
        report.retired = [d.belief_id for d in window if d.retire]
        return report
    by_principal: dict[str, list[decay_rules.Decay]] = defaultdict(list)
    for d in window:
        by_principal[d.principal].append(d)
    for principal, decays in sorted(by_principal.items()):
        decayed, retired = services.handle(commands.ApplyDecay(principal, tuple(decays), report.at))
        report.decayed += decayed
        report.retired += retired
    return report


def sweep_l1(cmd: commands.SweepL1, services: CommandBus) -> l1_rules.L1Report:
    dry_run = cmd.dry_run
    a = services.adapters
    enabled = a.profile.lifecycle.l1.enabled
    report = l1_rules.L1Report(enabled=enabled, dry_run=dry_run or not enabled)
    now = a.clock.now().replace(microsecond=0)
    a.runner.catch_up()
    candidates = l1_rules.l1_candidates(a.index, a.profile, now)
    report.candidates = [r.belief_id for r in candidates]
    if report.dry_run:
        return report
    by_principal: dict[str, list[str]] = defaultdict(list)
    for r in candidates:
        by_principal[r.principal].append(r.belief_id)
    for principal, ids in sorted(by_principal.items()):
        done = services.handle(
            commands.Deactivate(principal, tuple(ids), l1_rules.AUTO_DECAY, iso(now))
        )
        report.deactivated.extend(done)
    return report


def record_context_trace(services: CommandBus, pack: ContextPack) -> str | None:
    """The in-turn trace of a context pack: what its recall and delta blocks showed,
    which ``record_usage`` credits."""
    a = services.adapters
    if not a.profile.trace.enabled:
        return None
    now = a.clock.now()
    returned = [i.belief_id for i in (*pack.recall, *pack.delta)]
    # Derived, not drawn (as the snapshot trace id is): a context call consumes no id, so
    # sequential ids (tests, the deterministic benchmark) do not shift. The same pack at
    # the same instant is the same trace.
    key = f"{pack.session_id}/{iso(now)}/{pack.prefix_digest}/{returned}"
    trace_id = str(uuid5(CONTEXT_TRACE_NAMESPACE, key))
    traces = a.retriever.traces
    if traces.get(trace_id) is None:
        traces.record(
            shown_trace(
                trace_id=trace_id,
                principal=pack.principal,
                kind=CONTEXT_TRACE_KIND,
                session_id=pack.session_id,
                created_at=iso(now),
                expires_at=iso(now + timedelta(days=a.profile.trace.operator_retention_days)),
                policy=retrieval_policy(),
                item_limit=len(pack.recall) + len(pack.delta) + len(pack.dropped_for_budget),
                returned=returned,
                dropped=pack.dropped_for_budget,
            )
        )
    return trace_id
