"""Every use of eventsourcing's non-public API, in one place, checked against its version.

memory_es takes eight shortcuts through eventsourcing 9.5's internals, each because the
public path measured slower for the same result. They live here and nowhere else (a
test greps the package for the names), and each has a test against the pinned version
(``tests/test_es_internals.py``):

- ``SnapshotsFromMemory._take_snapshots``: snapshot a saved aggregate from memory, at
  the version the save left it at, instead of the library's cold reload of the
  interval's version.
- ``SnapshotsFromMemory._record``: the library's record, after the mapper's ``prepare``
  (the sealing mapper creates a save's keys in one key-store write: memory_es/sealing.py).
- ``save_collected``: ``Application.save`` for events collected in order (the bulk
  path), through ``_record``, ``_take_snapshots`` and ``_notify``.
- ``evict_cache``: forget every cached aggregate by building a fresh ``_repository``.
- ``lean_page_reader``: the projector's log read, one query on the recorder's own table
  (``events_table_name``, ``datastore``), each event built from its decoded state as the
  library's mapper builds it.
- ``delete_snapshots``: remove an aggregate's snapshot rows (forgetting: a snapshot is a
  cache of state that may hold forgotten text), on the snapshot recorder's own table, or
  the in-memory recorder's list and index.
- ``KeyRowsWithEvents``: the application recorders (SQLite, PostgreSQL) with the key
  rows a save created (memory_es/keys.py) inserted by ``_insert_events`` on the events'
  own cursor, in the events' transaction; the library's ``insert_events`` around it.
- ``ImmediateSQLiteFactory``: the SQLite persistence module with write transactions
  opened by ``BEGIN IMMEDIATE`` (the library sends a deferred ``BEGIN``): a writer takes
  the database's write lock first, waiting up to the busy timeout, instead of failing
  with "database is locked" when it upgrades a read lock another process's commit made
  stale. Through ``SQLiteConnectionPool._create_connection`` and the datastore's pool.

Importing this module fails with a clear message if the installed eventsourcing is not
the 9.5 series these were written and tested against.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, cast
from uuid import UUID

from eventsourcing.application import Application, ProcessingEvent
from eventsourcing.persistence import ApplicationRecorder, Mapper, Recording
from eventsourcing.sqlite import (
    SQLiteApplicationRecorder,
    SQLiteConnection,
    SQLiteConnectionPool,
    SQLiteCursor,
    SQLiteFactory,
    SQLiteTransaction,
)
from eventsourcing.utils import get_topic

from memory_es.errors import MemoryEsError

PINNED_SERIES = (9, 5)

Page = list[tuple[int, Any]]  # (log position, event) in log order
PageReader = Callable[[int, int, int], Page]  # (after, stop, limit): events in (after, stop]


class UnsupportedEventsourcing(MemoryEsError, ImportError):
    """The installed eventsourcing is not the series memory_es's shortcuts were checked on."""


def check_version(installed: str) -> None:
    """Raise unless ``installed`` is a 9.5.x release (pyproject pins ``~=9.5.6``)."""
    parts = installed.split(".")
    try:
        series = (int(parts[0]), int(parts[1]))
    except (IndexError, ValueError):
        series = (-1, -1)
    if series != PINNED_SERIES:
        raise UnsupportedEventsourcing(
            f"memory_es needs eventsourcing 9.5.x (it uses internals checked against that"
            f" series, see memory_es/es_internals.py); eventsourcing {installed} is installed"
        )


def installed_version() -> str:
    """The installed eventsourcing's version, from its ``.dist-info`` directory beside the
    package when there is exactly one (cheap), else from ``importlib.metadata`` (which
    costs a short command's start-up a few tens of milliseconds of imports)."""
    import eventsourcing

    site = Path(eventsourcing.__file__).parent.parent
    found = [p.name for p in site.glob("eventsourcing-*.dist-info")]
    if len(found) == 1:
        return found[0].removeprefix("eventsourcing-").removesuffix(".dist-info")
    from importlib import metadata

    return metadata.version("eventsourcing")


check_version(installed_version())


class IntervalsByTopic(dict[type[Any], int]):
    """``snapshotting_intervals`` with each aggregate named by its topic: a class is
    entered the first time a save asks for it, so naming an aggregate does not import its
    module (``session say`` saves a session only, and the principal's module is the
    largest of a short command's imports). The library reads the mapping with ``.get``
    and, building the application, for its truth; so does ``_take_snapshots`` below."""

    def __init__(self, by_topic: Mapping[str, int]) -> None:
        super().__init__()
        self.by_topic = dict(by_topic)

    def __bool__(self) -> bool:
        return bool(self.by_topic)

    def get(self, cls: type[Any], default: Any = None) -> Any:
        interval = super().get(cls)
        if interval is None:
            interval = self.by_topic.get(get_topic(cls))
            if interval is None:
                return default
            self[cls] = interval
        return interval


class SnapshotsFromMemory(Application[UUID]):
    """An Application that snapshots from the saved aggregate when it can."""

    def _record(self, processing_event: ProcessingEvent[UUID]) -> list[Recording[UUID]]:
        """The library's record, after a mapper with a ``prepare`` step (the sealing
        mapper) has seen the save's events and aggregates: it creates the keys they are
        sealed under (written with the events, or in one key-store write before them);
        a save that fails has the mapper ``abandon`` the keys it never wrote."""
        prepare = getattr(self.mapper, "prepare", None)
        if prepare is None:
            return super()._record(processing_event)
        try:
            prepare(processing_event.events, processing_event.aggregates)
            return super()._record(processing_event)
        except BaseException:
            # A save that failed before its recorder wrote the keys it created (its
            # sealing raised): none of them may stay held, to seal anything later.
            abandon = getattr(self.mapper, "abandon", None)
            if abandon is not None:
                abandon()
            raise

    def _take_snapshots(self, processing_event: ProcessingEvent[UUID]) -> None:
        """Snapshot a saved aggregate from memory, at the version the save left it at,
        once per save, when one of its saved events reaches its interval (inside the
        batch or as its last). A snapshot is any saved version's state, and the saved
        aggregate is its last one already; the library would reconstruct the interval's
        version from the store instead (a cold load of the whole state, per interval
        crossed: a principal's every belief, a long session's every turn). An aggregate
        still holding uncollected events is left to the library."""
        if self.snapshots is None or not self.snapshotting_intervals:
            return
        taken: set[UUID] = set()
        for event in processing_event.events:
            aggregate = processing_event.aggregates.get(event.originator_id)
            if aggregate is None or event.originator_id in taken:
                continue
            interval = self.snapshotting_intervals.get(type(aggregate))
            if interval is None:
                continue
            snapshot_class = getattr(type(aggregate), "Snapshot", None)
            pending = getattr(aggregate, "pending_events", None)  # a list on an Aggregate
            # An aggregate loaded from a snapshot of an older class version says so
            # (``snapshot_outdated``): it is snapshotted from memory on its next save, so
            # later cold loads read the current shape instead of upcasting again.
            outdated = getattr(aggregate, "snapshot_outdated", False) and pending == []
            if event.originator_version % interval and not outdated:
                continue
            if snapshot_class is not None and pending == []:
                self.snapshots.put([snapshot_class.take(aggregate)])
                taken.add(event.originator_id)
            else:
                self.take_snapshot(event.originator_id, version=event.originator_version)


def save_collected(
    app: Application[UUID], events: Sequence[Any], aggregates: Sequence[Any]
) -> None:
    """``Application.save`` for events already collected in order, in one transaction.

    ``save(*events)`` would work too, but it tests every argument against the library's
    runtime-checkable protocols (tens of microseconds each); this fills the processing
    event directly and then does what ``save`` does: record, snapshot, notify. The saved
    aggregates go back into the aggregate cache (``save`` skips that when the cache
    fast-forwards), so the next batch does not reload them.
    """
    processing = ProcessingEvent[UUID]()
    processing.events.extend(events)
    for aggregate in aggregates:
        processing.aggregates[aggregate.id] = aggregate
    recordings = app._record(processing)
    app._take_snapshots(processing)
    app._notify(recordings)
    cache = app.repository.cache
    if cache is not None:
        for aggregate in aggregates:
            cache.put(aggregate.id, aggregate)


def evict_cache(app: Application[UUID]) -> None:
    """Forget every cached aggregate (the library has no public call for it)."""
    if app.repository.cache is not None:
        app._repository = app.construct_repository()


def delete_snapshots(app: Application[UUID], originator_ids: Collection[UUID]) -> None:
    """Delete every stored snapshot of the aggregates (the library has no call for it):
    a snapshot is not an event, and the next load replays the aggregate's events."""
    if app.snapshots is None or not originator_ids:
        return
    recorder: Any = app.snapshots.recorder
    ids = list(originator_ids)
    if isinstance(recorder, SQLiteApplicationRecorder) or hasattr(recorder, "datastore"):
        table = recorder.events_table_name
        datastore = recorder.datastore
        if type(datastore).__module__.startswith("eventsourcing.sqlite"):
            with datastore.transaction(commit=True) as cursor:
                cursor.executemany(
                    f"DELETE FROM {table} WHERE originator_id = ?", [(i.hex,) for i in ids]
                )
            return
        from psycopg.sql import SQL, Identifier

        statement = SQL("DELETE FROM {schema}.{table} WHERE originator_id = ANY(%s)").format(
            schema=Identifier(datastore.schema), table=Identifier(table)
        )
        with datastore.transaction(commit=True) as cursor:
            cursor.execute(statement, [ids])
        return
    # The in-memory recorder: its list of stored events and the index into it.
    with recorder._database_lock:
        gone = {str(i) for i in ids}
        kept = [e for e in recorder._stored_events if str(e.originator_id) not in gone]
        recorder._stored_events[:] = kept
        recorder._stored_events_index.clear()
        for position, stored in enumerate(kept):
            recorder._stored_events_index[str(stored.originator_id)][stored.originator_version] = (
                position
            )


def events_table_name(recorder: ApplicationRecorder) -> str | None:
    """The stored-events table of a SQL recorder (None for the in-memory one)."""
    name = getattr(recorder, "events_table_name", None)
    return name if isinstance(name, str) else None


def lean_page_reader(
    recorder: ApplicationRecorder,
    mapper: Mapper[Any],
    classes: Mapping[str, type[Any]],
    originators: Collection[UUID] | None = None,
    *,
    topics: Collection[str] | None = None,
) -> PageReader | None:
    """The log read for the projector alone, when nothing but the transcoder (and the
    sealing mapper's boxes: only the text the projector reads is opened) shapes the
    stored state: one query for the rows of ``classes``' topics, and each event built from
    its decoded state as the mapper builds it, upcasts included (no notification
    objects). The originator id is kept as its text on SQLite (the projector only uses
    ``str`` of it; building a UUID per event cost more than decoding it). With
    ``originators``, only those aggregates' rows (the stored events' key leads with the
    originator). ``topics``: the topics to read when ``classes`` resolves them on demand
    (default: its keys). None: the library's path (``select_notifications``) must be used."""
    if mapper.cipher is not None or mapper.compressor is not None:
        return None
    decode = mapper.transcoder.decode
    # The sealing mapper's (memory_es/sealing.py): a page's sealed states' text, opened
    # together (their keys read in one query).
    unseal_page: Callable[[list[tuple[str, str, int, dict[str, Any]]]], None] | None = getattr(
        mapper, "unseal_page", None
    )
    new = object.__new__
    set_dict = object.__setattr__

    def build(rows: list[Any], convert_id: Callable[[Any], Any]) -> Page:
        decoded = [
            (
                position,
                convert_id(stored_id),
                version,
                topic,
                decode(state if type(state) is bytes else bytes(state)),
            )
            for position, stored_id, version, topic, state in rows
        ]
        if unseal_page is not None:
            boxed = [
                (topic, str(originator_id), version, fields)
                for _, originator_id, version, topic, fields in decoded
                if "_sealed_" in fields
            ]
            if boxed:
                unseal_page(boxed)
        page: Page = []
        for position, originator_id, version, topic, fields in decoded:
            # Upcast as the library's mapper does (Mapper.to_domain_event).
            cls = classes[topic]
            from_version = fields.pop("class_version", 1)
            to_version = getattr(cls, "class_version", 1)
            while from_version < to_version:
                getattr(cls, f"upcast_v{from_version}_v{from_version + 1}")(fields)
                from_version += 1
            fields["originator_id"] = originator_id
            fields["originator_version"] = version
            event = new(cls)
            set_dict(event, "__dict__", fields)
            page.append((position, event))
        return page

    topics = sorted(classes if topics is None else topics)
    if type(recorder) in (SQLiteApplicationRecorder, KeyedSQLiteApplicationRecorder):
        sqlite_recorder = cast(SQLiteApplicationRecorder, recorder)
        marks = ", ".join("?" for _ in topics)
        only = [] if originators is None else sorted(o.hex for o in originators)  # 32 hex
        of = f"originator_id IN ({', '.join('?' for _ in only)}) AND " if only else ""
        sqlite_statement = (
            "SELECT rowid, originator_id, originator_version, topic, state"
            f" FROM {sqlite_recorder.events_table_name}"
            f" WHERE {of}rowid > ? AND rowid <= ?"
            f" AND topic IN ({marks}) ORDER BY rowid LIMIT ?"
        )

        def sqlite_page(after: int, stop: int, limit: int) -> Page:
            with sqlite_recorder.datastore.transaction(commit=False) as cursor:
                cursor.execute(sqlite_statement, [*only, after, stop, *topics, limit])
                rows = [tuple(row) for row in cursor.fetchall()]
            return build(rows, uuid_text)

        return sqlite_page
    # Imported only when loaded already (a PostgreSQL recorder needs it): psycopg stays
    # out of SQLite-only processes, whose start-up time it would double.
    if "eventsourcing.postgres" in sys.modules:
        return _postgres_reader(recorder, topics, build, originators)
    return None


def _postgres_reader(
    recorder: ApplicationRecorder,
    topics: list[str],
    build: Callable[[list[Any], Callable[[Any], Any]], Page],
    originators: Collection[UUID] | None = None,
) -> PageReader | None:
    from eventsourcing.postgres import PostgresApplicationRecorder
    from psycopg.sql import SQL, Identifier

    if type(recorder) is PostgresApplicationRecorder or (
        isinstance(recorder, PostgresApplicationRecorder)
        and isinstance(recorder, KeyRowsWithEvents)
    ):
        pg_recorder = recorder
        only = [] if originators is None else [sorted(originators)]
        pg_statement = SQL(
            "SELECT notification_id, originator_id, originator_version, topic, state"
            " FROM {schema}.{table}"
            " WHERE " + ("originator_id = ANY(%s) AND " if only else "") + "notification_id > %s"
            " AND notification_id <= %s AND topic = ANY(%s) ORDER BY notification_id LIMIT %s"
        ).format(
            schema=Identifier(pg_recorder.datastore.schema),
            table=Identifier(pg_recorder.events_table_name),
        )

        def postgres_page(after: int, stop: int, limit: int) -> Page:
            with pg_recorder.datastore.get_connection() as conn, conn.cursor() as cursor:
                params = [*only, after, stop, topics, limit]
                cursor.execute(pg_statement, params, prepare=True)
                rows = [tuple(row.values()) for row in cursor.fetchall()]
            return build(rows, _same)

        return postgres_page
    return None


_saving = threading.local()  # the key rows of the save this thread is inserting


class KeyRowsWithEvents:
    """A recorder mixin: the data keys a save created (``KeyRing.take_pending``) are
    inserted on the cursor of the transaction that appends the save's events, so the
    keys and the events they seal commit together (one commit per save, not two). A
    failed save forgets its keys; one that failed because another writer stored one of
    its key ids meanwhile raises ``KeyRowConflict`` (a lost race: the retry loop runs it
    again with the stored key)."""

    key_ring: Any = None  # the application's KeyRing (join_key_ring), None: no keys

    def insert_events(self, stored_events: Sequence[Any], **kwargs: Any) -> Any:
        from memory_es.keys import KeyRowConflict

        ring = self.key_ring
        rows = ring.take_pending() if ring is not None else []
        if not rows:
            return super().insert_events(stored_events, **kwargs)  # type: ignore[misc]
        _saving.key_rows = rows
        try:
            return super().insert_events(stored_events, **kwargs)  # type: ignore[misc]
        except Exception as error:
            if ring.settle_failed(rows):
                raise KeyRowConflict(
                    f"another writer stored a data key of this save: {error}"
                ) from error
            raise
        finally:
            _saving.key_rows = []

    def _insert_events(self, cursor: Any, stored_events: Sequence[Any], **kwargs: Any) -> Any:
        rows = getattr(_saving, "key_rows", None)
        if rows:
            self.key_ring.write_rows(cursor, rows)
        return super()._insert_events(cursor, stored_events, **kwargs)  # type: ignore[misc]


class KeyedSQLiteApplicationRecorder(KeyRowsWithEvents, SQLiteApplicationRecorder):  # type: ignore[misc]
    """The SQLite application recorder, writing a save's key rows with its events."""


def __getattr__(name: str) -> Any:
    """``KeyedPostgresApplicationRecorder``, built when first named (its topic, by the
    PostgreSQL factory): psycopg stays out of SQLite-only processes."""
    if name != "KeyedPostgresApplicationRecorder":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from eventsourcing.postgres import PostgresApplicationRecorder

    made = type(
        name,
        (KeyRowsWithEvents, PostgresApplicationRecorder),
        {
            "__module__": __name__,
            "__doc__": "The PostgreSQL application recorder, writing a save's key rows"
            " with its events (pipelined before them, in their transaction).",
        },
    )
    globals()[name] = made
    return made


def join_key_ring(recorder: ApplicationRecorder, ring: Any) -> None:
    """Hand the recorder the key ring whose new rows it writes with the events (when it
    is a ``KeyRowsWithEvents`` and the ring's table shares the store); otherwise the ring
    inserts its rows before each save, on its own."""
    # With the library's database functions on (POSTGRES_ENABLE_DB_FUNCTIONS) the insert
    # is one function call that never runs _insert_events: the ring inserts on its own.
    datastore = getattr(recorder, "datastore", None)
    if getattr(datastore, "enable_db_functions", False):
        return
    if isinstance(recorder, KeyRowsWithEvents) and ring.write_with_events():
        recorder.key_ring = ring


def keyed_recorder_env(env: Mapping[str, str] | None) -> dict[str, str]:
    """``env`` with the application recorder that writes key rows with the events, for
    the persistence modules memory_es knows (``APPLICATION_RECORDER_TOPIC``)."""
    out = dict(env or {})
    module = out.get("PERSISTENCE_MODULE", "")
    if module == "eventsourcing.postgres":
        out["APPLICATION_RECORDER_TOPIC"] = (
            "memory_es.es_internals:KeyedPostgresApplicationRecorder"
        )
    elif module.endswith(":ImmediateSQLiteFactory"):
        out["APPLICATION_RECORDER_TOPIC"] = "memory_es.es_internals:KeyedSQLiteApplicationRecorder"
    return out


class _ImmediateTransaction(SQLiteTransaction):
    def __enter__(self) -> SQLiteCursor:
        cursor = self.connection.cursor()
        cursor.execute("BEGIN IMMEDIATE" if self.commit else "BEGIN")
        return cursor


class _ImmediateConnection(SQLiteConnection):
    @contextmanager
    def transaction(self, *, commit: bool) -> Iterator[SQLiteCursor]:
        with _ImmediateTransaction(self, commit=commit) as curs, curs:
            yield curs


class _ImmediatePool(SQLiteConnectionPool):
    def _create_connection(self) -> SQLiteConnection:
        made = super()._create_connection()
        return _ImmediateConnection(made._sqlite_conn, max_age=self.max_age)


class ImmediateSQLiteFactory(SQLiteFactory):
    """eventsourcing's SQLite persistence, its write transactions ``BEGIN IMMEDIATE``
    (``PERSISTENCE_MODULE`` names this class for a SQLite store: memory_es/stores.py)."""

    def __init__(self, env: Any) -> None:
        super().__init__(env)
        library_pool = self.datastore.pool
        self.datastore.pool = _ImmediatePool(
            db_name=library_pool.db_name, lock_timeout=library_pool.lock_timeout
        )
        library_pool.close()


def uuid_text(stored: str) -> str:
    """``str(UUID(stored))`` for the 32 hex digits the SQLite recorder stores."""
    if len(stored) != 32:
        return str(UUID(stored))
    h = stored.lower()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def _same(value: Any) -> Any:
    return value
