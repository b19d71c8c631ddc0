"""The batching SQL writer: staged pages, and writer methods that write directly."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

import memory_es
from memory_es.projections.records import BeliefRecord


def _record(belief_id: str, principal: str = "default/ana") -> BeliefRecord:
    return BeliefRecord(
        belief_id=belief_id,
        short_id=belief_id[:8],
        principal=principal,
        statement="User lives in Oslo.",
        belief_type="user_model_attr",
        subjects=("home location",),
        polarity=True,
        authority=3,
        confidence=0.9,
        status="active",
        project="general",
        portable=True,
        source_event_ids=("t1",),
        source_session_id="s1",
        valid_from="2026-03-02T09:00:00Z",
        valid_to=None,
        successor_id=None,
        conflicts_with=(),
        position=5,
        evidence_count=1,
        last_evidence_at="2026-03-02T09:00:00Z",
        formed_at="2026-03-02T09:00:00Z",
        policy="formation@1",
        doc_len=4,
    )


def test_a_direct_write_sees_staged_rows_and_is_never_overwritten(
    persistent_store_url: str,
) -> None:
    with memory_es.open(persistent_store_url) as memory:
        index: Any = memory.index
        with index.writer() as writer:
            writer.insert_belief(_record("b1" * 18), Counter({"oslo": 1, "live": 1}))
            writer.update_belief("b1" * 18, evidence_count=2)
            # As a writer method that does not stage would do it:
            writer._run(
                "UPDATE {p}beliefs SET status = ? WHERE belief_id = ?", ("rejected", "b1" * 18)
            )
            writer.update_belief("b1" * 18, evidence_count=3)
            writer.raise_head("default/ana", 5)
            writer.set_tracking(writer.tracked_position())
        stored = index.get("b1" * 18)
        assert stored is not None
        assert (stored.status, stored.evidence_count) == ("rejected", 3)
        assert index.head_position("default/ana") == 5
        assert [t[1] for t in index.dump()["terms"]] == ["live", "oslo"]


def test_a_failed_page_writes_nothing(persistent_store_url: str) -> None:
    with memory_es.open(persistent_store_url) as memory:
        index: Any = memory.index
        with pytest.raises(RuntimeError), index.writer() as writer:
            writer.insert_belief(_record("c2" * 18), Counter({"oslo": 1}))
            writer.set_tracking(99)  # a direct write: the staged row is flushed first
            raise RuntimeError("the page failed")
        assert index.get("c2" * 18) is None
        assert index.tracked_position() == 0
