"""``maintenance run``: operator work that runs only when asked, never as a side effect.

One report over four sweeps, in this order: the idle-session sweep (formation), the
decay sweep (memory_es/lifecycle/decay.py; ``formation.scheduled_enabled``), L1
reversible deactivation (memory_es/lifecycle/l1.py; reported as a dry run unless
``lifecycle.l1.enabled``) and the recall traces' operator-tier expiry (gate.memory.trace_retention).
``dry_run`` writes nothing; a second run at the same instant changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from memory_es.lifecycle.commands import SweepDecay, SweepL1
from memory_es.lifecycle.decay import DecayReport
from memory_es.lifecycle.l1 import L1Report
from memory_es.ports import instant_second
from memory_es.services.formation_commands import SweepIdle
from memory_es.services.formation_results import IdleSweep

if TYPE_CHECKING:
    from memory_es.app import Memory
    from memory_es.review.commands import AlignmentReport


@dataclass(frozen=True)
class MaintenanceReport:
    dry_run: bool
    idle: IdleSweep
    decay: DecayReport
    l1: L1Report
    traces_expired: int = 0  # recall traces whose operator tier was (or would be) nulled
    # Near-duplicate alignment per principal (memory_es/review/sweep.py); None when off.
    alignment: list[AlignmentReport] | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "dry_run": self.dry_run,
            "idle_sessions": {
                "boundary": self.idle.boundary,
                "closed": [
                    {
                        "session_id": c.session_id,
                        "principal": c.principal,
                        "project": c.project,
                        "last_activity_at": c.last_activity_at,
                        "counts": c.result.counts.as_dict() if c.result else None,
                    }
                    for c in self.idle.closed
                ],
            },
            "decay": self.decay.as_dict(),
            "l1": self.l1.as_dict(),
            "traces": {"operator_fields_expired": self.traces_expired},
        } | ({} if self.alignment is None else {"alignment": [a.as_dict() for a in self.alignment]})


def run_maintenance(memory: Memory, *, dry_run: bool = False) -> MaintenanceReport:
    idle = memory.services.handle(SweepIdle(dry_run=dry_run))
    decay = memory.services.handle(SweepDecay(dry_run=dry_run))
    l1 = memory.services.handle(SweepL1(dry_run=dry_run))
    if dry_run:
        now = instant_second(memory.clock.now())
        expired = memory.traces.due_for_expiry(now)
    else:
        expired = memory.expire_operator_fields()
    from memory_es.review.sweep import sweep_alignment

    alignment = sweep_alignment(memory, dry_run=dry_run)
    return MaintenanceReport(
        dry_run=dry_run, idle=idle, decay=decay, l1=l1, traces_expired=expired, alignment=alignment
    )
