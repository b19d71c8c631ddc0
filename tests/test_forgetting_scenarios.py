"""The forgetting scenario set (benchmarks/corpus/forgetting.v1.json): every probe passes,
and the scoring catches a memory that does not forget."""

from __future__ import annotations

from typing import Any

import pytest

from memory_es.app import Memory
from memory_es.benchmarks.memory_benchmark import forgetting


def test_every_forgetting_probe_passes() -> None:
    report = forgetting.run()
    assert report["scenarios"] == 3 and report["leaked"] == 0
    assert report["passed"] == report["probes"] == 6
    assert set(report["by_category"]) == {"deletion", "cascade"}


def test_a_memory_that_does_not_forget_fails_the_set(monkeypatch: pytest.MonkeyPatch) -> None:
    def dry_run_only(self: Memory, **kwargs: Any) -> Any:
        return forget(self, **{**kwargs, "confirm": False})

    forget = Memory.forget
    monkeypatch.setattr(Memory, "forget", dry_run_only)
    report = forgetting.run()
    assert report["leaked"] == 3  # each forbidden statement still renders
    assert report["passed"] == 3  # only the probes about what should stay
