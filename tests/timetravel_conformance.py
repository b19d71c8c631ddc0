"""Rebuilds that survive interruption, reading the past, moving a store (issue 16; issue
14's rebuild locking): cases every store kind runs the same way."""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from multiprocessing.synchronize import Event

import pytest

import memory_es
from memory_es.errors import RebuildInProgress
from memory_es.ports import FixedClock
from tests.conformance import START, play


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
