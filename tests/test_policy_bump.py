"""A read model built under retrieval@1 is detected stale and rebuilt (retrieval@4)."""

from __future__ import annotations

import pytest

import memory_es
from memory_es.errors import StaleReadModel
from memory_es.policy import PROJECTION_SCHEMA_VERSION, retrieval_policy
from memory_es.ports import FixedClock
from tests.conformance import START, play


def test_a_retrieval_1_read_model_is_refused_then_rebuilt(persistent_store_url: str) -> None:
    url = persistent_store_url
    assert retrieval_policy() == "retrieval@4"
    clock = FixedClock(START)
    with memory_es.open(url, clock=clock, ids=memory_es.SequentialIds()) as memory:
        play(memory, clock)
        expected = memory.index.dump()
        lines = memory.recall("alice", "where do I live").lines()
        execute = getattr(memory.index, "_execute")  # noqa: B009 - SQL stores only
        with memory.index.writer():
            # As the foundation left it: no BM25 statistics, built under retrieval@1.
            execute("DELETE FROM principal_stats")
            execute(
                "UPDATE projection_tracking SET version = ? WHERE name = ?",
                (f"recall_index@{PROJECTION_SCHEMA_VERSION};retrieval@1", "recall_index"),
            )
    with pytest.raises(StaleReadModel, match=r"retrieval@1.*retrieval@4"):
        memory_es.open(url)
    with memory_es.open(url, on_stale="rebuild") as memory:
        expected_version = f"recall_index@{PROJECTION_SCHEMA_VERSION};retrieval@4"
        assert memory.projection_status().version == expected_version
        assert memory.index.dump() == expected
        assert memory.recall("alice", "where do I live").lines() == lines
