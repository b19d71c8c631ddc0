from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from memory_es.benchmarks.reliability.store_probes import (
    FIRST_OPEN_TRIALS,
    FIRST_OPENS,
    first_open,
    race,
)
from tests.conformance import StoreConformance
from tests.context_conformance import ContextConformance
from tests.lifecycle_conformance import LifecycleConformance
from tests.persistent import PersistentStoreConformance
from tests.rederive_conformance import RederiveConformance
from tests.reliability_conformance import ConcurrentProcessConformance, ReliabilityConformance
from tests.resolver_reads_conformance import (
    ResolverReadsConformance,
    SharedStoreResolverReadsConformance,
)
from tests.review_conformance import ReviewConformance
from tests.stores import postgres_schema_url
from tests.timetravel_conformance import PersistentTimeTravelConformance, TimeTravelConformance


class TestPostgresStore(
    StoreConformance,
    PersistentStoreConformance,
    ContextConformance,
    LifecycleConformance,
    ReviewConformance,
    TimeTravelConformance,
    PersistentTimeTravelConformance,
    RederiveConformance,
    ResolverReadsConformance,
    SharedStoreResolverReadsConformance,
    ReliabilityConformance,
    ConcurrentProcessConformance,
):
    @contextmanager
    def store_url(self, tmp_path: Path) -> Iterator[str]:
        with postgres_schema_url() as url:
            yield url


def test_concurrent_first_opens_of_a_fresh_schema_all_succeed() -> None:
    """Four processes open one schema nobody created yet, at once; three trials. The
    schema, the read model's and the log's tables are created under one advisory lock."""
    for _ in range(FIRST_OPEN_TRIALS):
        with postgres_schema_url() as url:
            assert race(first_open, [(url,)] * FIRST_OPENS) == [0] * FIRST_OPENS
