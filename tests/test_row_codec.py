"""The read model's row codec and the SQLite trace write: what a row holds is what a
record says, whichever way the record is built."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from memory_es.domain.values import Status
from memory_es.projections.records import BELIEF_COLUMNS, BeliefRecord
from memory_es.projections.sql import decode_record, encode_record
from memory_es.projections.sqlite import SqliteRecallIndex
from memory_es.projections.traces import TraceRecord, trace_store_for


def record(**changes: object) -> BeliefRecord:
    base = BeliefRecord(
        belief_id="00000001-0000-4000-8000-000000000000",
        short_id="00000001",
        principal="default/alice",
        statement="User lives in Seattle.",
        belief_type="fact",
        subjects=("seattle", "home"),
        polarity=False,
        authority=2,
        confidence=0.75,
        status=Status.ACTIVE,
        project="general",
        portable=True,
        source_event_ids=("e1", "e2"),
        source_session_id="s",
        valid_from="2026-06-01T00:00:00Z",
        valid_to=None,
        successor_id=None,
        conflicts_with=("00000002-0000-4000-8000-000000000000",),
        position=7,
        evidence_count=3,
        last_evidence_at="2026-06-02T00:00:00Z",
        formed_at="2026-06-01T00:00:00Z",
        policy="formation@1",
        doc_len=4,
        utility=-0.25,
    )
    return base.evolve(**changes)


@pytest.mark.parametrize(
    "changes",
    [{}, {"subjects": (), "conflicts_with": (), "valid_to": "2026-07-01T00:00:00Z"}],
)
def test_a_decoded_row_is_the_record_that_was_encoded(changes: dict[str, object]) -> None:
    original = record(**changes)
    decoded = decode_record(encode_record(original))
    assert decoded == original and hash(decoded) == hash(original)
    assert decoded.as_dict() == original.as_dict()
    assert [type(v) for v in decoded.as_dict().values()] == [
        type(v) for v in original.as_dict().values()
    ]
    with pytest.raises(dataclasses.FrozenInstanceError):
        decoded.statement = "changed"  # type: ignore[misc]
    assert decoded.evolve(position=8) == original.evolve(position=8)


def test_columns_past_the_record_are_not_part_of_it() -> None:
    row = (*encode_record(record()), 42)  # e.g. the belief number a candidate fetch adds
    decoded = decode_record(row)
    assert decoded == record() and list(vars(decoded)) == list(BELIEF_COLUMNS)


def test_a_row_without_the_defaulted_trailing_column_decodes_to_its_default() -> None:
    row = encode_record(record())[: BELIEF_COLUMNS.index("utility")]
    assert decode_record(row) == record(utility=0.0)


def test_a_sqlite_trace_is_committed_when_flushed(tmp_path: Path) -> None:
    path = str(tmp_path / "traces.db")
    writer, reader = SqliteRecallIndex(path), SqliteRecallIndex(path)
    writer.migrate()
    trace = TraceRecord(
        trace_id="t1",
        principal="default/alice",
        kind="recall",
        session_id=None,
        created_at="2026-06-01T00:00:00Z",
        operator_expires_at="2026-07-01T00:00:00Z",
        operator_expired=False,
        policy="retrieval@1",
        as_of=None,
        item_limit=10,
        returned=("b1",),
        cited=(),
        blocked=(),
        dropped_count=0,
        conflicts=0,
        lexical_ms=1.0,
        vector_ms=None,
        rank_ms=1.0,
        total_ms=2.0,
        lexical_candidates=1,
        vector_candidates=None,
        dropped=(),
    )
    store = trace_store_for(writer)
    store.record(trace)  # queued off recall's hot path (projections/traces.py)
    store.flush()  # what Memory.close and the batch size do
    assert not writer._conn.in_transaction
    assert trace_store_for(reader).get("t1") == trace  # another connection sees it
    writer.close()
    reader.close()
