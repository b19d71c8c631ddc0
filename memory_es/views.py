"""What the read side reports about itself: the read model's status."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ProjectionStatus"]


@dataclass(frozen=True)
class ProjectionStatus:
    name: str
    tracked_position: int
    log_head: int
    version: str | None
    expected_version: str
    # An unfinished rebuild beside the serving read model: its committed position, the
    # version it builds, and whether a rebuild holds the lock now (else it was cut off).
    rebuild_position: int | None = None
    rebuild_version: str | None = None
    rebuild_running: bool = False
    # Events the read model could not apply, recorded and skipped (projections/runner.py).
    quarantined: int = 0

    @property
    def lag(self) -> int:
        return max(0, self.log_head - self.tracked_position)

    @property
    def stale(self) -> bool:
        return self.version is not None and self.version != self.expected_version
