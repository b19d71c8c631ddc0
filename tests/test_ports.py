from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memory_es.domain.values import short_id
from memory_es.ports import FixedClock, SequentialIds, iso, parse_iso


def test_sequential_ids_are_deterministic() -> None:
    assert [SequentialIds().new_id() for _ in range(3)] == [SequentialIds().new_id()] * 3
    a, b = SequentialIds(), SequentialIds()
    assert [a.new_id() for _ in range(50)] == [b.new_id() for _ in range(50)]


def test_sequential_ids_give_distinct_short_ids() -> None:
    ids = SequentialIds()
    shorts = {short_id(ids.new_id()) for _ in range(100_000)}
    assert len(shorts) == 100_000


@given(st.integers(min_value=1, max_value=2**32 - 1), st.integers(min_value=1, max_value=2**32 - 1))
def test_distinct_counters_never_share_a_short_id(m: int, n: int) -> None:
    if m != n:
        assert short_id(SequentialIds(m).new_id()) != short_id(SequentialIds(n).new_id())


def test_a_fixed_clock_moves_only_forward_when_told() -> None:
    start = datetime(2026, 3, 2, 9, tzinfo=UTC)
    clock = FixedClock(start)
    assert clock.now() == start == clock.now()
    clock.advance(90)
    assert clock.now() == start + timedelta(seconds=90)
    with pytest.raises(ValueError):
        clock.advance(-1)
    with pytest.raises(ValueError):
        FixedClock(datetime(2026, 3, 2))


def test_instants_have_one_text_form() -> None:
    at = datetime(2026, 3, 2, 9, tzinfo=UTC)
    assert iso(at) == "2026-03-02T09:00:00Z"
    assert parse_iso(iso(at)) == at
    with pytest.raises(ValueError):
        parse_iso("2026-03-02T09:00:00")
