"""The orjson transcoder keeps eventsourcing's JSONTranscoder format, both ways."""

from __future__ import annotations

from datetime import UTC, datetime
from functools import cache
from typing import Any

import pytest
from eventsourcing.application import Application
from eventsourcing.persistence import JSONTranscoder, TranscodingNotRegisteredError
from hypothesis import given, settings
from hypothesis import strategies as st

import memory_es
from memory_es.bootstrap import MemoryApplication
from memory_es.domain.values import Status
from memory_es.transcoder import OrjsonTranscoder

POPO = {"PERSISTENCE_MODULE": "eventsourcing.popo"}


@cache
def _pair() -> tuple[JSONTranscoder, JSONTranscoder]:
    ours = MemoryApplication(env=POPO).mapper.transcoder
    theirs = Application(env=POPO).mapper.transcoder
    assert isinstance(ours, OrjsonTranscoder) and type(theirs) is JSONTranscoder
    return ours, theirs


custom = st.one_of(
    st.uuids(),
    st.decimals(allow_nan=False, allow_infinity=False),
    st.datetimes(timezones=st.just(UTC)),
)
scalar = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(),
    custom,
)
values = st.recursive(
    scalar,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=60)
@given(st.dictionaries(st.text(max_size=10), values, max_size=8))
def test_event_state_round_trips_and_reads_across_transcoders(state: dict[str, Any]) -> None:
    ours, theirs = _pair()
    assert ours.decode(ours.encode(state)) == state
    assert ours.decode(theirs.encode(state)) == state
    assert theirs.decode(ours.encode(state)) == state


def test_stored_bytes_match_the_json_module_for_our_events() -> None:
    ours, theirs = _pair()
    with memory_es.open("memory://", ids=memory_es.SequentialIds()) as memory:
        session = memory.open_session("ana")
        memory.say(session, "I live in Oslo. My dog is Rex. Prices: 3.5 €, 10 ¥.")
        memory.close_session(session)
        stored = memory.app.recorder.select_notifications(start=None, limit=100)
    assert len(stored) > 5
    for notification in stored:
        state = ours.decode(notification.state)
        assert theirs.encode(state) == notification.state


def test_an_unregistered_type_is_refused_like_the_json_transcoder() -> None:
    ours, theirs = _pair()
    for transcoder in (ours, theirs):
        with pytest.raises(TranscodingNotRegisteredError):
            transcoder.encode({"x": object()})


def test_enum_values_are_written_as_their_plain_value() -> None:
    from memory_es.domain.values import Authority, Status

    ours, theirs = _pair()
    state = {"status": Status.ACTIVE, "authority": Authority.USER, "at": datetime.now(UTC)}
    assert ours.encode(state) == theirs.encode(state)
    assert ours.decode(ours.encode(state))["status"] == "active"


def test_one_tagged_value_is_found_at_the_top_or_deeper() -> None:
    """The decoder's fast path (one "_type_" key in the bytes) agrees with the full walk."""
    ours, theirs = _pair()
    at = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    for state in (
        {"text": "x", "timestamp": at},
        {"text": "x", "nested": {"a": [1, {"when": at}]}},
        {"text": "_type_", "timestamp": at},  # the marker as a plain value too
        {"_type_": "not a tag", "_data_": 1, "extra": at},
        {"text": '{"_type_": "uuid", "_data_": "y"}', "timestamp": at},
    ):
        assert ours.decode(ours.encode(state)) == state
        assert ours.decode(theirs.encode(state)) == state


# Long lists take the whole-list path (an aggregate snapshot's columns): plain scalars,
# lists of them, and lists where one custom value or enum hides among plain ones (no
# floats: the json module and orjson spell some differently, e.g. 1e+16 and 1e16).
long_columns = st.one_of(
    st.lists(
        st.one_of(st.none(), st.booleans(), st.integers(-(2**63), 2**63 - 1), st.text()), min_size=9
    ),
    st.lists(st.lists(st.text(), max_size=3), min_size=9),
    st.lists(st.one_of(st.text(), custom), min_size=9),
    st.lists(st.lists(st.one_of(st.text(), custom), max_size=3), min_size=9),
    st.lists(st.sampled_from(list(Status)), min_size=9),
)


@settings(max_examples=60)
@given(st.dictionaries(st.text(max_size=10), long_columns, max_size=4))
def test_long_lists_are_written_and_read_as_the_json_module_does(state: dict[str, Any]) -> None:
    ours, theirs = _pair()
    assert ours.encode(state) == theirs.encode(state)
    assert ours.decode(theirs.encode(state)) == theirs.decode(theirs.encode(state))
