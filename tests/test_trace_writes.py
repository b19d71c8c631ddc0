"""Recall traces are written off recall's hot path, and a clean close loses none.

A SQL store queues a recall's trace and writes the queue in one batch (every
``TRACE_BATCH`` recalls, before any read of the traces, and on ``Memory.close``). The
store is read here by a second instance — another process's view — so a trace counts as
written only once it is in the database.
"""

from __future__ import annotations

import memory_es
from memory_es.projections.traces import TRACE_BATCH


def _alice_lives_in_seattle(url: str) -> None:
    with memory_es.open(url) as memory:
        session = memory.open_session("alice")
        memory.say(session, "I live in Seattle.")
        memory.close_session(session)


def _traces_in_the_database(url: str) -> list[str]:
    with memory_es.open(url) as other:
        return [t.trace_id for t in other.traces.for_principal("default/alice")]


def test_a_recall_writes_no_trace_row_and_a_clean_close_writes_every_one(
    persistent_store_url: str,
) -> None:
    url = persistent_store_url
    _alice_lives_in_seattle(url)
    memory = memory_es.open(url)
    try:
        ids = [memory.recall("alice", "where do I live").trace_id for _ in range(3)]
        assert all(ids) and len(set(ids)) == 3
        assert _traces_in_the_database(url) == []  # deferred: nothing on the hot path
    finally:
        memory.close()
    assert sorted(_traces_in_the_database(url)) == sorted(ids)  # the clean close flushed


def test_the_owner_reads_its_own_deferred_traces_at_once(persistent_store_url: str) -> None:
    url = persistent_store_url
    _alice_lives_in_seattle(url)
    with memory_es.open(url) as memory:
        trace_id = memory.recall("alice", "where do I live").trace_id
        assert trace_id is not None
        trace = memory.trace(trace_id)
        assert trace is not None and trace.returned  # the read wrote the queue first
        assert _traces_in_the_database(url) == [trace_id]


def test_a_full_batch_is_written_without_waiting_for_the_close(persistent_store_url: str) -> None:
    url = persistent_store_url
    _alice_lives_in_seattle(url)
    with memory_es.open(url) as memory:
        ids = [memory.recall("alice", "where do I live").trace_id for _ in range(TRACE_BATCH)]
        assert sorted(_traces_in_the_database(url)) == sorted(ids)
        memory.recall("alice", "where do I live")
        assert len(_traces_in_the_database(url)) == TRACE_BATCH  # the next batch waits
    assert len(_traces_in_the_database(url)) == TRACE_BATCH + 1
