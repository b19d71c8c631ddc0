from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.conformance import StoreConformance
from tests.context_conformance import ContextConformance
from tests.lifecycle_conformance import LifecycleConformance
from tests.rederive_conformance import RederiveConformance
from tests.reliability_conformance import ReliabilityConformance


class TestMemoryStore(
    StoreConformance,
    ContextConformance,
    LifecycleConformance,
    RederiveConformance,
    ReliabilityConformance,
):
    @contextmanager
    def store_url(self, tmp_path: Path) -> Iterator[str]:
        yield "memory://"
