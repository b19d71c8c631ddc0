from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

import memory_es
from memory_es.ports import FixedClock
from tests.stores import store_url

pytest.register_assert_rewrite(
    "tests.conformance",
    "tests.conformance_retrieval",
    "tests.context_conformance",
    "tests.formation_conformance",
    "tests.persistent",
    "tests.timetravel_conformance",
)

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
STORE_KINDS = ("memory", "sqlite", "postgres")


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock(START)


@pytest.fixture(params=STORE_KINDS)
def any_store_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """Every store kind; the PostgreSQL one skips (or fails in CI) without a server."""
    with store_url(request.param, tmp_path) as url:
        yield url


@pytest.fixture(params=("sqlite", "postgres"))
def persistent_store_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    with store_url(request.param, tmp_path) as url:
        yield url


@pytest.fixture
def memory(clock: FixedClock) -> Iterator[memory_es.Memory]:
    with memory_es.open("memory://", clock=clock, ids=memory_es.SequentialIds()) as m:
        yield m
