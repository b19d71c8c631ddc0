"""The read model's row codec: what a row holds is what a record says."""

from __future__ import annotations

import dataclasses

import pytest

from projections.records import BELIEF_COLUMNS, BeliefRecord
from projections.sql import decode_record, encode_record


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
        status="active",
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


def test_a_row_without_the_defaulted_trailing_column_decodes_to_its_default() -> None:
    row = encode_record(record())[: BELIEF_COLUMNS.index("utility")]
    assert decode_record(row) == record(utility=0.0)
