"""Rebuilds that survive interruption, reading the past, moving a store (issue
14's rebuild locking): cases every store kind runs the same way."""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from multiprocessing.synchronize import Event
from pathlib import Path

import pytest

import memory_es
from memory_es.domain.values import DEFAULT_TENANT
from memory_es.errors import InvalidInput, RebuildInProgress, UsageError
from memory_es.history import source_turns
from memory_es.ports import FixedClock
from memory_es.projections.records import principal_key
from memory_es.projections.sql import REBUILD_TAILS, SqlRecallIndex
from memory_es.retrieval.render import render_line
from tests.conformance import START, play
from tests.stores import store_url


class Interrupted(Exception):
    """Injected into a rebuild after some pages, as a crash would cut it off."""


def interrupt_after(pages: int) -> Callable[[int, int], None]:
    seen: list[int] = []

    def progress(position: int, head: int) -> None:
        seen.append(position)
        if len(seen) == pages:
            raise Interrupted(position)

    return progress


class TimeTravelConformance:
    # -- rebuilds: blue/green, resumable, exclusive -------------------------------------------

    def test_an_interrupted_rebuild_resumes_from_its_last_page_and_ends_identical(
        self, memory: memory_es.Memory, clock: FixedClock
    ) -> None:
        play(memory, clock)
        expected = memory.index.dump()
        answer = memory.recall("alice", "where do I live").lines()
        head = memory.projection_status().log_head
        memory.runner._page_size = 3
        with pytest.raises(Interrupted) as cut:
            memory.rebuild_projections(progress=interrupt_after(2))
        committed = cut.value.args[0]
        assert 0 < committed < head
        # The serving read model kept answering, untouched, beside the unfinished one.
        assert memory.index.dump() == expected
        assert memory.recall("alice", "where do I live").lines() == answer
        status = memory.projection_status(probe_rebuild=True)
        assert status.rebuild_position == committed and not status.rebuild_running
        assert status.tracked_position == head and not status.stale
        # Run again: it goes on from the last committed page, not from 0.
        seen: list[int] = []
        replayed = memory.rebuild_projections(progress=lambda p, h: seen.append(p))
        assert replayed == head - committed
        assert seen[0] > committed and seen[-1] == head
        assert memory.index.dump() == expected
        assert memory.projection_status().rebuild_position is None

    def test_a_rebuild_cut_off_at_every_page_still_ends_identical(
        self, memory: memory_es.Memory, clock: FixedClock
    ) -> None:
        play(memory, clock)
        expected = memory.index.dump()
        memory.runner._page_size = 4
        cuts = 0
        while True:
            try:
                memory.rebuild_projections(progress=interrupt_after(1))
            except Interrupted:
                cuts += 1
                continue
            break
        assert cuts >= 3
        assert memory.index.dump() == expected

    def test_from_scratch_drops_an_interrupted_rebuild(
        self, memory: memory_es.Memory, clock: FixedClock
    ) -> None:
        play(memory, clock)
        expected = memory.index.dump()
        memory.runner._page_size = 3
        with pytest.raises(Interrupted):
            memory.rebuild_projections(progress=interrupt_after(1))
        replayed = memory.rebuild_projections(resume=False)
        assert replayed == memory.projection_status().log_head
        assert memory.index.dump() == expected

    def test_leftovers_of_a_rebuild_by_earlier_code_are_dropped_and_rebuilt(
        self, memory: memory_es.Memory, clock: FixedClock
    ) -> None:
        play(memory, clock)
        expected = memory.index.dump()
        memory.runner._page_size = 3
        with pytest.raises(Interrupted):
            memory.rebuild_projections(progress=interrupt_after(2))
        if isinstance(memory.index, SqlRecallIndex):
            # Earlier code kept the rebuild's unfilled blocks in memory: none on disk.
            with memory.index.transaction():
                memory.index.execute(f"DROP TABLE {REBUILD_TAILS}")
            assert memory.projection_status().rebuild_position
            replayed = memory.rebuild_projections()
            assert replayed == memory.projection_status().log_head  # from 0
        else:
            memory.rebuild_projections()
        assert memory.index.dump() == expected

    def test_a_second_rebuild_while_one_runs_is_refused(
        self, memory: memory_es.Memory, clock: FixedClock
    ) -> None:
        play(memory, clock)
        expected = memory.index.dump()
        memory.runner._page_size = 3
        refused: list[str] = []

        def second(position: int, head: int) -> None:
            if not refused:
                assert memory.projection_status(probe_rebuild=True).rebuild_running
                with pytest.raises(RebuildInProgress) as error:
                    memory.rebuild_projections()
                refused.append(str(error.value))

        memory.rebuild_projections(progress=second)
        assert refused and "another `projections rebuild` is running" in refused[0]
        assert memory.index.dump() == expected
        assert not memory.projection_status(probe_rebuild=True).rebuild_running

    # -- reading the past by transaction time ---------------------------------------------

    def test_recall_as_of_a_position_answers_what_memory_held_then(
        self, memory: memory_es.Memory, clock: FixedClock
    ) -> None:
        first = memory.open_session("alice")
        memory.say(first, "I live in Seattle. I prefer green tea.")
        memory.close_session(first)
        before_move = memory.projection_status().log_head
        clock.advance(86400)
        second = memory.open_session("alice")
        memory.say(second, "I live in Portland now.")
        memory.close_session(second)
        tea = next(b for b in memory.list_beliefs("alice") if "tea" in b.statement)
        before_rejection = memory.projection_status().log_head
        memory.reject(tea.belief_id)

        def lines(query: str, position: int | None = None) -> list[str]:
            return memory.recall("alice", query, as_of_position=position).lines()

        assert [line[13:] for line in lines("where do I live")] == ["User lives in Portland."]
        assert [line[13:] for line in lines("where do I live", before_move)] == [
            "User lives in Seattle."
        ]
        assert lines("what do I drink", before_rejection) == [
            render_line(tea.belief_id, tea.statement)
        ]
        assert lines("what do I drink") == []
        assert lines("where do I live", 0) == []
        # Valid time and transaction time together: the past read model, read as of then.
        past = memory.recall(
            "alice", "where do I live", as_of_position=before_rejection, as_of=START
        )
        assert past.lines() == lines("where do I live", before_move)
        # A past read is not traced (usage feedback credits what was served now).
        assert past.trace_id is None

    def test_as_of_position_equals_a_rebuild_truncated_at_that_position(
        self, memory: memory_es.Memory, clock: FixedClock, tmp_path: Path
    ) -> None:
        play(memory, clock)
        bob = memory.list_beliefs("bob")[0]
        memory.reject(bob.belief_id)
        clock.advance(60)
        memory.remember("alice", "I prefer window seats.")
        head = memory.projection_status().log_head
        queries = ("where do I live", "what do I prefer", "tea", "work wife")
        keys = tmp_path / "keys.jsonl"  # the sealed text's keys travel explicitly
        memory.export_keys(keys)
        for position in sorted({*range(0, head + 1, 4), head}):
            path = tmp_path / f"until-{position}.jsonl"
            memory.export_log(path, until=position)
            with memory_es.open("memory://", clock=clock) as truncated:
                truncated.import_keys(keys)
                truncated.import_log(path)
                for principal in ("alice", "bob"):
                    key = principal_key(DEFAULT_TENANT, principal)
                    past = memory.read_model_at(position, principal)
                    assert past.beliefs(key) == truncated.index.beliefs(key), position
                    for query in queries:
                        got = memory.recall(principal, query, as_of_position=position)
                        want = truncated.recall(principal, query)
                        assert [(s.record, s.score) for s in got.items] == [
                            (s.record, s.score) for s in want.items
                        ], (position, principal, query)

    def test_as_of_position_refuses_a_position_outside_the_log(
        self, memory: memory_es.Memory, clock: FixedClock
    ) -> None:
        play(memory, clock)
        head = memory.projection_status().log_head
        with pytest.raises(InvalidInput, match=f"past the log head \\({head}\\)"):
            memory.recall("alice", "live", as_of_position=head + 1)
        with pytest.raises(InvalidInput, match="integer from 0"):
            memory.recall("alice", "live", as_of_position=-1)

    # -- a belief's history --------------------------------------------------------------

    def test_a_beliefs_history_has_its_positions_and_source_turns(
        self, memory: memory_es.Memory, clock: FixedClock
    ) -> None:
        play(memory, clock)
        seattle = next(b for b in memory.list_beliefs("alice") if "Seattle" in b.statement)
        events = memory.belief_history(seattle.belief_id)
        assert [e.event for e in events] == ["BeliefFormed", "BeliefSuperseded"]
        head = memory.projection_status().log_head
        assert 0 < events[0].position < events[1].position <= head
        turns = source_turns(memory, events)
        [turn] = turns[events[0].position]
        assert turn.turn.text == "Hi! Quick context before we start. I live in Seattle."
        assert turn.session_id == seattle.source_session_id and turn.turn.role == "user"
        assert turn.turn.turn_id in seattle.source_event_ids
        assert events[1].position not in turns  # a supersession names no turn

    # -- moving a store --------------------------------------------------------------------

    @pytest.mark.parametrize("target", ["memory", "sqlite", "postgres"])
    def test_a_log_exported_here_imports_there_and_recalls_identically(
        self, memory: memory_es.Memory, clock: FixedClock, tmp_path: Path, target: str
    ) -> None:
        play(memory, clock)
        memory.reject(memory.list_beliefs("bob")[0].belief_id)
        expected = memory.index.dump()
        path = tmp_path / "log.jsonl"
        seen: list[tuple[int, int]] = []
        exported = memory.export_log(path, progress=lambda n, total: seen.append((n, total)))
        head = memory.projection_status().log_head
        assert exported.events == head and exported.last_position == head
        assert seen[-1] == (head, head)
        (tmp_path / "target").mkdir()
        with (
            store_url(target, tmp_path / "target") as url,
            memory_es.open(url, clock=clock) as there,
        ):
            memory.export_keys(tmp_path / "keys.jsonl")  # keys move only when asked
            there.import_keys(tmp_path / "keys.jsonl")
            imported = there.import_log(path)
            assert imported.events == head
            assert there.projection_status().tracked_position == head
            assert there.index.dump() == expected
            for principal, query in (("alice", "where do I live"), ("bob", "tea")):
                assert there.recall(principal, query).lines() == (
                    memory.recall(principal, query).lines()
                )
            # The bytes carried are the bytes stored: exported again, the same file.
            again = tmp_path / "again.jsonl"
            there.export_log(again)
            assert again.read_bytes() == path.read_bytes()
            with pytest.raises(UsageError, match="already holds events"):
                there.import_log(path)
            assert there.projection_status().log_head == head

    def test_a_bad_log_file_is_refused_before_anything_is_written(
        self, memory: memory_es.Memory, clock: FixedClock, tmp_path: Path
    ) -> None:
        play(memory, clock)
        path = tmp_path / "log.jsonl"
        memory.export_log(path)
        lines = path.read_bytes().splitlines()
        broken = tmp_path / "broken.jsonl"
        broken.write_bytes(b"\n".join([*lines[:-1], b'{"position": 1}']) + b"\n")
        with memory_es.open("memory://", clock=clock) as there:
            with pytest.raises(InvalidInput, match=f"broken.jsonl:{len(lines)}: an event line"):
                there.import_log(broken)
            assert there.projection_status().log_head == 0
            broken.write_bytes(b'{"format": "other"}\n')
            with pytest.raises(InvalidInput, match="not a memory-es log export"):
                there.import_log(broken)


def _slow_rebuild(url: str, started: Event, go_on: Event) -> None:
    """A rebuild in its own process that, after its first committed page, waits."""
    with memory_es.open(url) as memory:
        memory.runner._page_size = 2

        def progress(position: int, head: int) -> None:
            started.set()
            go_on.wait(timeout=60)

        memory.rebuild_projections(progress=progress)


class PersistentTimeTravelConformance:
    """Rebuilds raced and killed by real processes (stores that outlive a process)."""

    def _played(self, url: str) -> dict[str, object]:
        clock = FixedClock(START)
        with memory_es.open(url, clock=clock, ids=memory_es.SequentialIds()) as memory:
            play(memory, clock)
            return memory.index.dump()

    def test_a_concurrent_rebuild_in_another_process_gets_one_line_and_exit_2(
        self, url: str
    ) -> None:
        expected = self._played(url)
        context = multiprocessing.get_context("spawn")
        started, go_on = context.Event(), context.Event()
        first = context.Process(target=_slow_rebuild, args=(url, started, go_on))
        first.start()
        try:
            assert started.wait(timeout=60)
            second = subprocess.run(
                [sys.executable, "-m", "memory_es", "--store", url, "projections", "rebuild"],
                capture_output=True,
                text=True,
                timeout=120,
            )
            status = subprocess.run(
                [sys.executable, "-m", "memory_es", "--store", url, "projections", "status"],
                capture_output=True,
                text=True,
                timeout=120,
            )
        finally:
            go_on.set()
            first.join(timeout=120)
        assert second.returncode == 2
        assert second.stderr.count("\n") == 1 and "Traceback" not in second.stderr
        assert "another `projections rebuild` is running" in second.stderr
        assert status.returncode == 0 and "rebuild: running, at position" in status.stdout
        assert first.exitcode == 0
        with memory_es.open(url) as memory:
            assert memory.index.dump() == expected
            assert memory.projection_status(probe_rebuild=True).rebuild_position is None

    def test_a_rebuild_killed_mid_way_is_reported_and_resumed(self, url: str) -> None:
        expected = self._played(url)
        context = multiprocessing.get_context("spawn")
        started, go_on = context.Event(), context.Event()
        victim = context.Process(target=_slow_rebuild, args=(url, started, go_on))
        victim.start()
        assert started.wait(timeout=60)
        os.kill(victim.pid or 0, signal.SIGKILL)
        victim.join(timeout=60)
        assert victim.exitcode == -signal.SIGKILL
        status = subprocess.run(
            [sys.executable, "-m", "memory_es", "--store", url, "projections", "status"],
            capture_output=True,
            text=True,
            timeout=120,
        )
        with memory_es.open(url) as memory:
            leftover = memory.projection_status(probe_rebuild=True)
            committed = leftover.rebuild_position or 0
            assert 0 < committed < leftover.log_head and not leftover.rebuild_running
            assert f"rebuild: interrupted at position {committed} of" in status.stdout
            assert memory.index.dump() == expected  # the serving model was never touched
            replayed = memory.rebuild_projections()
            assert replayed == leftover.log_head - committed
            assert memory.index.dump() == expected
