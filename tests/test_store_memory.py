from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.conformance import StoreConformance
from tests.context_conformance import ContextConformance
from tests.lifecycle_conformance import LifecycleConformance
from tests.rederive_conformance import RederiveConformance
from tests.reliability_conformance import ReliabilityConformance
from tests.resolver_reads_conformance import ResolverReadsConformance
from tests.review_conformance import ReviewConformance
from tests.timetravel_conformance import TimeTravelConformance


class TestMemoryStore(
    StoreConformance,
    ContextConformance,
    LifecycleConformance,
    ReviewConformance,
    RederiveConformance,
    ResolverReadsConformance,
    ReliabilityConformance,
    TimeTravelConformance,
):
    @contextmanager
    def store_url(self, tmp_path: Path) -> Iterator[str]:
        yield "memory://"
