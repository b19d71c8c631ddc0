"""Follow the log: page through notifications past the tracked position.

``eventsourcing`` 9.5's SQLite recorder has no subscriptions, so every store is followed
the same way — by paging ``select_notifications`` — one transaction per page, the
tracked position written with the rows. Only the topics the projector handles are read
(the recorder filters them in SQL); a page covers the log up to its last event, the last
page up to the head read when following started.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any
from uuid import UUID

from eventsourcing.persistence import ApplicationRecorder, Mapper
from eventsourcing.sqlite import SQLiteApplicationRecorder
from eventsourcing.utils import get_topic

from memory_es.domain.principal import PrincipalMemory
from projections.base import RecallIndex
from projections.projector import PROJECTED_EVENTS, project_event

DEFAULT_PAGE_SIZE = 5000

# The only events read from the log: the projector's own handler table, so an event kind
# with no handler is never fetched nor decoded, and one given a handler is read from then.
PROJECTED_TOPICS: tuple[str, ...] = tuple(sorted(get_topic(cls) for cls in PROJECTED_EVENTS))

Progress = Callable[[int, int], None]  # (position reached, head of the log)
Page = list[tuple[int, Any]]  # (log position, event) in log order
PageReader = Callable[[int, int, int], Page]  # (after, stop, limit): events in (after, stop]


class ProjectionRunner:
    def __init__(
        self,
        recorder: ApplicationRecorder,
        mapper: Mapper[Any],
        index: RecallIndex,
        *,
        page_size: int = DEFAULT_PAGE_SIZE,
    ) -> None:
        self._recorder = recorder
        self._mapper = mapper
        self._index = index
        self._page_size = page_size
        self._read = _lean_reader(recorder, mapper) or self._library_page

    def log_head(self) -> int:
        return self._recorder.max_notification_id() or 0

    def catch_up(self, *, progress: Progress | None = None) -> int:
        """Apply every event past the tracked position; returns how many were read."""
        return self._follow(rebuild=False, progress=progress)

    def rebuild(self, *, progress: Progress | None = None) -> int:
        """Replay from position 0 into fresh tables, then swap them in."""
        self._index.start_rebuild()
        read = self._follow(rebuild=True, progress=progress)
        self._index.finish_rebuild()
        # Events written while the swap happened are picked up here.
        return read + self.catch_up()

    def _follow(self, *, rebuild: bool, progress: Progress | None) -> int:
        """Positions covered up to the head read at the start (later events: next call)."""
        covered = 0
        head = self.log_head()
        while True:
            with self._index.writer(rebuild=rebuild) as writer:
                start = writer.tracked_position()
                if start >= head:
                    return covered
                events = self._read(start, head, self._page_size)
                # A short page is the rest of the log up to the head: all of it is covered.
                reached = events[-1][0] if len(events) == self._page_size else head
                writer.prefetch(_beliefs_read(events))
                for position, event in events:
                    project_event(event, position, writer)
                writer.set_tracking(reached)
            covered += reached - start
            if progress:
                progress(reached, head)
            if reached >= head:
                return covered

    def _library_page(self, after: int, stop: int, limit: int) -> Page:
        page = self._recorder.select_notifications(
            start=after, limit=limit, stop=stop, topics=PROJECTED_TOPICS, inclusive_of_start=False
        )
        return [(n.id, self._mapper.to_domain_event(n)) for n in page]


def _lean_reader(recorder: ApplicationRecorder, mapper: Mapper[Any]) -> PageReader | None:
    """The log read for the projector alone, when nothing but the transcoder shapes the
    stored state: one query for the rows, and each event built from its decoded state as
    the mapper builds it (no notification objects, no upcasting to run). The originator
    id is kept as its text on SQLite (the projector only uses ``str`` of it; building a
    UUID per event cost more than decoding it). None: the library's path."""
    if mapper.cipher is not None or mapper.compressor is not None:
        return None
    if any(getattr(cls, "class_version", 1) != 1 for cls in PROJECTED_EVENTS):
        return None
    classes = {get_topic(cls): cls for cls in PROJECTED_EVENTS}
    decode = mapper.transcoder.decode
    new = object.__new__
    set_dict = object.__setattr__

    def build(rows: list[Any], convert_id: Callable[[Any], Any]) -> Page:
        page: Page = []
        for position, stored_id, version, topic, state in rows:
            originator_id = convert_id(stored_id)
            fields = decode(state if type(state) is bytes else bytes(state))
            fields.pop("class_version", None)
            fields["originator_id"] = originator_id
            fields["originator_version"] = version
            event = new(classes[topic])
            set_dict(event, "__dict__", fields)
            page.append((position, event))
        return page

    topics = list(PROJECTED_TOPICS)
    if type(recorder) is SQLiteApplicationRecorder:
        sqlite_recorder = recorder
        marks = ", ".join("?" for _ in topics)
        sqlite_statement = (
            "SELECT rowid, originator_id, originator_version, topic, state"
            f" FROM {sqlite_recorder.events_table_name}"
            f" WHERE rowid > ? AND rowid <= ? AND topic IN ({marks}) ORDER BY rowid LIMIT ?"
        )

        def sqlite_page(after: int, stop: int, limit: int) -> Page:
            with sqlite_recorder.datastore.transaction(commit=False) as cursor:
                cursor.execute(sqlite_statement, [after, stop, *topics, limit])
                rows = [tuple(row) for row in cursor.fetchall()]
            return build(rows, _uuid_text)

        return sqlite_page
    # Imported only when loaded already (a PostgreSQL recorder needs it): psycopg stays
    # out of SQLite-only processes, whose start-up time it would double.
    if "eventsourcing.postgres" in sys.modules:
        return _postgres_reader(recorder, build)
    return None


def _postgres_reader(
    recorder: ApplicationRecorder, build: Callable[[list[Any], Callable[[Any], Any]], Page]
) -> PageReader | None:
    from eventsourcing.postgres import PostgresApplicationRecorder
    from psycopg.sql import SQL, Identifier

    topics = list(PROJECTED_TOPICS)
    if type(recorder) is PostgresApplicationRecorder:
        pg_recorder = recorder
        pg_statement = SQL(
            "SELECT notification_id, originator_id, originator_version, topic, state"
            " FROM {schema}.{table}"
            " WHERE notification_id > %s AND notification_id <= %s AND topic = ANY(%s)"
            " ORDER BY notification_id LIMIT %s"
        ).format(
            schema=Identifier(pg_recorder.datastore.schema),
            table=Identifier(pg_recorder.events_table_name),
        )

        def postgres_page(after: int, stop: int, limit: int) -> Page:
            with pg_recorder.datastore.get_connection() as conn, conn.cursor() as cursor:
                cursor.execute(pg_statement, [after, stop, topics, limit], prepare=True)
                rows = [tuple(row.values()) for row in cursor.fetchall()]
            return build(rows, _same)

        return postgres_page
    return None


def _uuid_text(stored: str) -> str:
    """``str(UUID(stored))`` for the 32 hex digits the SQLite recorder stores."""
    if len(stored) != 32:
        return str(UUID(stored))
    h = stored.lower()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def _same(value: Any) -> Any:
    return value


def _beliefs_read(events: Page) -> set[str]:
    """Beliefs the page's events change rather than form: read them in one query."""
    return {
        belief_id
        for _, event in events
        if (belief_id := getattr(event, "belief_id", None)) is not None
        and not isinstance(event, PrincipalMemory.BeliefFormed)
    }
