from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

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
from tests.stores import sqlite_url
from tests.timetravel_conformance import PersistentTimeTravelConformance, TimeTravelConformance


class TestSqliteStore(
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
        yield sqlite_url(tmp_path)
