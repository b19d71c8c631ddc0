"""Cases for the stores that outlive a process: SQLite files and PostgreSQL."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest

import memory_es
from memory_es.errors import StaleReadModel
from memory_es.ports import FixedClock
from tests.conformance import START, play

WRITES_PER_WRITER = 6


def _writer(url: str, writer: int, barrier: multiprocessing.synchronize.Barrier) -> None:
    with memory_es.open(url) as memory:
        barrier.wait(timeout=60)
        for n in range(WRITES_PER_WRITER):
            session = memory.open_session("shared")
            memory.say(session, f"I live in City{writer}x{n}.")
            memory.close_session(session)


class PersistentStoreConformance:
    def test_a_reopened_store_recalls_what_was_formed(self, url: str) -> None:
        clock = FixedClock(START)
        with memory_es.open(url, clock=clock, ids=memory_es.SequentialIds()) as memory:
            play(memory, clock)
            expected = memory.index.dump()
        with memory_es.open(url) as memory:
            assert memory.index.dump() == expected
            assert memory.recall("alice", "where do I live").lines() == [
                "[m:08d12dfd] User lives in Portland."
            ]

    def test_a_second_instance_reads_the_first_ones_writes(self, url: str) -> None:
        with memory_es.open(url) as writer, memory_es.open(url) as reader:
            session = writer.open_session("hana")
            writer.say(session, "I live in Kyoto.")
            writer.close_session(session)
            assert [s.record.statement for s in reader.recall("hana", "live").items] == [
                "User lives in Kyoto."
            ]
            # The reader's own writes catch up past the writer's events without loss.
            session = reader.open_session("hana")
            reader.say(session, "I live in Osaka now.")
            reader.close_session(session)
            assert [s.record.statement for s in writer.recall("hana", "live").items] == [
                "User lives in Osaka."
            ]

    def test_a_stale_read_model_is_refused_until_rebuilt(self, url: str) -> None:
        with memory_es.open(url) as memory:
            session = memory.open_session("ivan")
            memory.say(session, "I live in Riga.")
            memory.close_session(session)
            expected = memory.index.dump()
            with memory.index.writer() as writer:  # as if built by an older release
                writer.set_tracking(writer.tracked_position())
            _mark_stale(memory)
        with pytest.raises(StaleReadModel, match="projections rebuild"):
            memory_es.open(url)
        with memory_es.open(url, on_stale="rebuild") as memory:
            assert not memory.projection_status().stale
            assert memory.index.dump() == expected

    def test_concurrent_writers_to_one_principal_lose_nothing(self, url: str) -> None:
        memory_es.open(url).close()  # create the tables before the race
        context = multiprocessing.get_context("spawn")
        barrier = context.Barrier(2)
        writers = [context.Process(target=_writer, args=(url, w, barrier)) for w in (1, 2)]
        for p in writers:
            p.start()
        for p in writers:
            p.join(timeout=120)
            assert p.exitcode == 0
        with memory_es.open(url) as memory:
            beliefs = memory.list_beliefs("shared")
            statements = {b.statement for b in beliefs}
            expected = {
                f"User lives in City{w}x{n}." for w in (1, 2) for n in range(WRITES_PER_WRITER)
            }
            assert statements == expected
            # Each statement superseded one before it or, when the other writer's
            # evidence was not older, stands beside it as a linked conflict.
            assert any(b.status == "active" for b in beliefs)
            consolidations = [
                n
                for n in memory.app.recorder.select_notifications(start=None, limit=100_000)
                if n.topic.endswith("ConsolidationRecorded")
            ]
            assert len(consolidations) == 2 * WRITES_PER_WRITER
            status = memory.projection_status()
            assert status.tracked_position == status.log_head


def _mark_stale(memory: memory_es.Memory) -> None:
    index = memory.index
    execute = getattr(index, "_execute", None)
    assert execute is not None, "persistent stores keep the read model in SQL"
    with index.writer():
        execute(
            "UPDATE projection_tracking SET version = ? WHERE name = ?",
            ("recall_index@0;retrieval@0", "recall_index"),
        )


__all__ = ["Path", "PersistentStoreConformance"]
