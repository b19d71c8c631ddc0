"""``maintenance run``: operator work that runs only when asked, never as a side effect.

Today it is the idle-session sweep (formation) and the recall traces' operator-tier
expiry (retrieval, seed gate 11); the lifecycle issues add decay and L1 deactivation to
the same report.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from memory_es.ports import instant_second
from memory_es.services.commands import SweepIdle
from memory_es.services.results import IdleSweep

if TYPE_CHECKING:
    from memory_es.app import Memory


@dataclass(frozen=True)
class MaintenanceReport:
    dry_run: bool
    idle: IdleSweep
    traces_expired: int = 0  # recall traces whose operator tier was (or would be) nulled

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
            "traces": {"operator_fields_expired": self.traces_expired},
        }


def run_maintenance(memory: Memory, *, dry_run: bool = False) -> MaintenanceReport:
    idle = memory.services.handle(SweepIdle(dry_run=dry_run))
    if dry_run:
        now = instant_second(memory.clock.now())
        expired = memory.traces.due_for_expiry(now)
    else:
        expired = memory.expire_operator_fields()
    return MaintenanceReport(dry_run=dry_run, idle=idle, traces_expired=expired)
