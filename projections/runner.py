"""Follow the log: page through notifications past the tracked position.

``eventsourcing`` 9.5's SQLite recorder has no subscriptions, so every store is followed
the same way — by paging ``select_notifications`` — one transaction per page, the
tracked position written with the rows. Only the topics the projector handles are read
(the recorder filters them in SQL); a page covers the log up to its last event, the last
page up to the head read when following started.

An event the read model cannot apply never stops it: when a page fails for a reason of
its events' own (``store_unreachable`` says no), the page is applied again one event per
transaction, and each event that still fails is quarantined — recorded in
``quarantined_events`` with its error, in the same transaction that tracks past it —
and skipped. ``projections status`` and ``stats`` report them; a store failure
(unreachable, locked) is never a reason to skip anything and goes up as it is.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Collection, Iterator, Mapping
from contextlib import contextmanager
from typing import Any
from uuid import UUID

from eventsourcing.persistence import ApplicationRecorder, Mapper
from eventsourcing.utils import get_topic, resolve_topic

from memory_es.es_internals import Page, PageReader, lean_page_reader
from memory_es.projections.base import RecallIndex
from memory_es.projections.projector import (
    PROJECTED_TOPICS,
    forms_belief,
    indexed_text,
    project_event,
    project_page,
)
from memory_es.projections.records import QuarantinedEvent
from memory_es.projections.tokenizing import TokenizingWorker
from memory_es.store_errors import event_store_errors, first_line, store_unreachable

DEFAULT_PAGE_SIZE = 5000

# The only events read from the log (PROJECTED_TOPICS): the projector's own handler table,
# so an event kind with no handler is never fetched nor decoded, and one given a handler
# is read from then.
__all__ = ["PROJECTED_TOPICS", "ProjectionRunner"]


class _TopicClasses(dict[str, type[Any]]):
    """A topic's event class, resolved (its module imported) when a page first holds
    one: a command that reads only session events never imports the principal's."""

    def __missing__(self, topic: str) -> type[Any]:
        cls: type[Any] = resolve_topic(topic)
        self[topic] = cls
        return cls


Progress = Callable[[int, int], None]  # (position reached, head of the log)


class ProjectionRunner:
    def __init__(
        self,
        recorder: ApplicationRecorder,
        mapper: Mapper[Any],
        index: RecallIndex,
        *,
        page_size: int = DEFAULT_PAGE_SIZE,
        originators: Collection[UUID] | None = None,
    ) -> None:
        """``originators``: follow only those aggregates' events (a past read of one
        principal, ``fold``)."""
        self._recorder = recorder
        self._mapper = mapper
        self._index = index
        self._page_size = page_size
        # The lean read (one query, events built as the mapper builds them) where the
        # recorder allows it; memory_es/es_internals.py holds it with the other shortcuts.
        lean = lean_page_reader(
            recorder, mapper, _TopicClasses(), originators, topics=PROJECTED_TOPICS
        )
        self._read = lean or self._library_page
        # The lean read filters by originator in SQL; the library's read cannot.
        self._keep = None if originators is None or lean else {str(o) for o in originators}

    def wrap_page_reader(self, wrap: Callable[[PageReader], PageReader]) -> None:
        """Read the log's pages through ``wrap(reader)`` from now on (a benchmark times
        the reads apart from the projector this way)."""
        self._read = wrap(self._read)

    def log_head(self) -> int:
        with event_store_errors():
            return self._recorder.max_notification_id() or 0

    def catch_up(self, *, progress: Progress | None = None) -> int:
        """Apply every event past the tracked position; returns how many were read."""
        return self._follow(rebuild=False, progress=progress)

    def rebuild(
        self, *, progress: Progress | None = None, resume: bool = True, workers: int = 1
    ) -> int:
        """Replay the log into the rebuild tables beside the serving ones, then swap them
        in; returns the positions covered by this call. Exclusive (the index's rebuild
        lock); an interrupted rebuild of the same version goes on from its last committed
        page (``resume`` False starts over from 0). ``workers`` 2: a second process
        tokenizes the beliefs ahead of the projector (projections/tokenizing.py); the
        read model is the same either way."""
        if workers not in (1, 2):
            raise ValueError(f"a rebuild runs with 1 or 2 workers, not {workers}")
        with self._index.rebuild_lock():
            if not resume:
                self._index.discard_rebuild()
            start = self._index.start_rebuild()
            head = self.log_head()
            worker = self._tokenizing_worker(start, head) if workers > 1 else None
            try:
                with _collector_paused():
                    read = self._follow(rebuild=True, progress=progress, head=head, worker=worker)
            finally:
                if worker is not None:
                    worker.close()
            self._index.finish_rebuild()
        # Events written while the swap happened are picked up here.
        return read + self.catch_up()

    @staticmethod
    def _tokenizing_worker(after: int, head: int) -> TokenizingWorker | None:
        if after >= head:
            return None
        # Imported before the fork: the worker imports nothing (see tokenizing.py).
        from memory_es.retrieval.tokenizer import document_terms

        return TokenizingWorker.start(document_terms)

    def fold(
        self, into: RecallIndex, *, until: int, originators: Collection[UUID] | None = None
    ) -> int:
        """Project the log up to position ``until`` (inclusive) into ``into``, a fresh
        index — only the events of ``originators`` (aggregate ids) when given: the
        read model as it stood when the log stood at ``until``. Returns positions read."""
        runner = ProjectionRunner(
            self._recorder, self._mapper, into, page_size=self._page_size, originators=originators
        )
        return runner._follow(rebuild=False, progress=None, head=until)

    def _follow(
        self,
        *,
        rebuild: bool,
        progress: Progress | None,
        head: int | None = None,
        worker: TokenizingWorker | None = None,
    ) -> int:
        """Positions covered up to ``head`` (default: the head read at the start; later
        events: next call); ``worker``: a rebuild's tokenizing process."""
        covered = 0
        head = self.log_head() if head is None else head
        ahead = None if worker is None else _ReadAhead(self._read, worker, self._page_size)
        read = self._read if ahead is None else ahead.read
        while True:
            events: Page | None = None
            start = reached = 0
            try:
                with self._index.writer(rebuild=rebuild) as writer:
                    start = writer.tracked_position()
                    if start >= head:
                        return covered
                    with event_store_errors():
                        events = read(start, head, self._page_size)
                    # A short page is the rest of the log up to the head: all of it is covered.
                    reached = events[-1][0] if len(events) == self._page_size else head
                    terms = None
                    if ahead is not None:
                        with event_store_errors():
                            terms = ahead.terms(start, events, reached, head)
                    if self._keep is not None:
                        events = [e for e in events if str(e[1].originator_id) in self._keep]
                    writer.prefetch(_beliefs_read(events))
                    project_page(events, writer, terms)
                    writer.set_tracking(reached)
            except Exception as error:
                if events is None or store_unreachable(error):
                    raise
                self._apply_one_by_one(events, reached, rebuild=rebuild)
            covered += reached - start
            if progress:
                progress(reached, head)
            if reached >= head:
                return covered

    def _apply_one_by_one(self, events: Page, reached: int, *, rebuild: bool) -> None:
        """A page that failed, again, one event per transaction: what still fails is
        quarantined and skipped; then the page's range is tracked as covered."""
        for position, event in events:
            try:
                with self._index.writer(rebuild=rebuild) as writer:
                    project_event(event, position, writer)
                    writer.set_tracking(position)
            except Exception as error:
                if store_unreachable(error):
                    raise
                cause = error.__cause__ or error
                with self._index.writer(rebuild=rebuild) as writer:
                    writer.quarantine(
                        QuarantinedEvent(
                            position=position,
                            originator_id=str(event.originator_id),
                            topic=get_topic(type(event)),
                            error=f"{type(cause).__name__}: {first_line(cause)}"[:500],
                        )
                    )
                    writer.set_tracking(position)
        with self._index.writer(rebuild=rebuild) as writer:
            writer.set_tracking(reached)

    def _library_page(self, after: int, stop: int, limit: int) -> Page:
        page = self._recorder.select_notifications(
            start=after, limit=limit, stop=stop, topics=PROJECTED_TOPICS, inclusive_of_start=False
        )
        return [(n.id, self._mapper.to_domain_event(n)) for n in page]


class _ReadAhead:
    """A rebuild's pages with a tokenizing worker: each page read one ahead, and its
    BeliefFormed texts sent to the worker as soon as it is read, so the worker tokenizes
    page k+1 while this process projects and writes page k."""

    def __init__(self, read: PageReader, worker: TokenizingWorker, page_size: int) -> None:
        self._read = read
        self._worker = worker
        self._page_size = page_size
        self._ahead: tuple[int, Page] | None = None  # (after, page) read ahead

    def read(self, after: int, stop: int, limit: int) -> Page:
        if self._ahead is not None and self._ahead[0] == after:
            page = self._ahead[1]
        else:
            page = self._read_and_send(after, stop, limit)
        self._ahead = None
        return page

    def _read_and_send(self, after: int, stop: int, limit: int) -> Page:
        page = self._read(after, stop, limit)
        texts = [indexed_text(e) for _, e in page if forms_belief(type(e))]
        self._worker.submit(after, texts)
        return page

    def terms(
        self, after: int, page: Page, reached: int, stop: int
    ) -> dict[int, Mapping[str, int]]:
        """The page's BeliefFormed terms by position (any the worker did not return are
        left to the projector, which tokenizes them itself); the next page is read and
        sent first, so the worker has it while this one is projected."""
        if reached < stop:
            self._ahead = (reached, self._read_and_send(reached, stop, self._page_size))
        answers = self._worker.collect(after)
        if answers is None:
            return {}
        positions = [p for p, e in page if forms_belief(type(e))]
        return dict(zip(positions, answers, strict=True))


@contextmanager
def _collector_paused() -> Iterator[None]:
    """The cyclic garbage collector off for a rebuild's pages. A page allocates tens of
    thousands of objects that live until its flush (events, records, term counts), so
    the collector's passes ran over and over, a fifth of a large rebuild's time, and found
    nothing: the projector builds no cycles and reference counting frees every page. The
    collector's own state is restored, whatever it was."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _beliefs_read(events: Page) -> set[str]:
    """Beliefs the page's events change rather than form: read them in one query."""
    return {
        belief_id
        for _, event in events
        if (belief_id := getattr(event, "belief_id", None)) is not None
        and not forms_belief(type(event))
    }
