"""One probe's count in the reliability suite (docs/reliability.md)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ProbeResult:
    area: str
    probe: str
    tried: int
    failed: int
    note: str = ""
