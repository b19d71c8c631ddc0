"""eventsourcing's internals are used in one module, checked against the pinned version.

``memory_es/es_internals.py`` holds every shortcut through eventsourcing 9.5's
non-public API; each has a test here against the installed library (the lean log read's
is ``tests/test_runner.py::test_the_lean_log_read_builds_the_events_the_mapper_builds``,
on SQLite and PostgreSQL). If an upgrade changes what a shortcut relies on, these fail.
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path
from typing import Any, ClassVar
from uuid import UUID, uuid4

import pytest
from eventsourcing.persistence import ApplicationRecorder

from memory_es import es_internals
from memory_es.bootstrap import MemoryApplication
from memory_es.domain.session import Session
from memory_es.errors import MemoryEsError
from memory_es.es_internals import (
    UnsupportedEventsourcing,
    check_version,
    evict_cache,
    lean_page_reader,
    save_collected,
)

ROOT = Path(__file__).resolve().parents[1]
INTERNALS = re.compile(
    r"\._record\(|\._take_snapshots\b|\._notify\(|\._repository\b"
    r"|\.events_table_name\b|\.datastore\b|\.construct_repository\("
    r"|\._create_connection\(|\._sqlite_conn\b"
)


def _turn(session: Session, n: int) -> None:
    session.record_turn(
        turn_id=f"t{n}",
        role="user",
        text=f"turn {n}",
        trusted=True,
        at=f"2026-03-02T09:0{n}:00Z",
        redactions=[],
        hazards=[],
    )


def _session() -> Session:
    return Session(
        id=uuid4(), tenant="t", principal="p", project="general", opened_at="2026-03-02T09:00:00Z"
    )


def _stored(app: MemoryApplication, aggregate_id: UUID) -> list[tuple[int, str, bytes]]:
    return [
        (e.originator_version, e.topic, e.state) for e in app.recorder.select_events(aggregate_id)
    ]


class _SmallIntervals(MemoryApplication):
    snapshotting_intervals: ClassVar[dict[type[Any], int]] = {Session: 3}


def test_the_installed_eventsourcing_is_the_pinned_series() -> None:
    from importlib.metadata import version

    check_version(version("eventsourcing"))  # importing memory_es did this already
    assert version("eventsourcing").startswith("9.5.")


@pytest.mark.parametrize("installed", ["9.6.0", "10.0.0", "9.4.9", "nine"])
def test_another_eventsourcing_series_is_refused_with_a_clear_error(installed: str) -> None:
    with pytest.raises(UnsupportedEventsourcing, match=r"needs eventsourcing 9\.5\.x") as caught:
        check_version(installed)
    assert isinstance(caught.value, MemoryEsError) and installed in str(caught.value)


def test_no_module_but_es_internals_touches_eventsourcings_internals() -> None:
    offenders = []
    for folder in ("memory_es", "projections", "migrations", "benchmarks"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path == Path(es_internals.__file__):
                continue
            for n, line in enumerate(path.read_text().splitlines(), 1):
                if INTERNALS.search(line):
                    offenders.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert offenders == []
    # The check sees a use: es_internals itself has each.
    found = set(INTERNALS.findall(Path(es_internals.__file__).read_text()))
    assert {"._record(", "._take_snapshots", "._notify(", "._repository"} <= found


def test_a_snapshot_taken_from_memory_is_the_one_the_library_would_take() -> None:
    app = _SmallIntervals()
    session = _session()
    _turn(session, 1)
    _turn(session, 2)  # version 3: the interval, reached by the save's last event
    app.save(session)
    ours = list(app.snapshots.recorder.select_events(session.id))  # type: ignore[union-attr]
    assert [s.originator_version for s in ours] == [3]
    # The library's own snapshot of the same version, from a cold load.
    reference = _SmallIntervals()
    reference.recorder.insert_events(list(app.recorder.select_events(session.id)))
    reference.take_snapshot(session.id, version=3)
    theirs = list(reference.snapshots.recorder.select_events(session.id))  # type: ignore[union-attr]
    mine: list[Any] = [app.mapper.to_domain_event(s) for s in ours]
    library: list[Any] = [reference.mapper.to_domain_event(s) for s in theirs]
    # The same snapshot but for the instant it was taken at.
    assert [(s.topic, s.state, s.originator_version) for s in mine] == [
        (s.topic, s.state, s.originator_version) for s in library
    ]
    assert mine[0].state["turn_count"] == 2


def test_an_interval_reached_inside_a_save_is_snapshotted_from_memory_at_the_saved_version() -> (
    None
):
    app = _SmallIntervals()
    session = _session()
    for n in range(1, 7):
        _turn(session, n)  # versions 2..7: the intervals 3 and 6 fall inside the save
    app.save(session)
    snapshots = list(app.snapshots.recorder.select_events(session.id))  # type: ignore[union-attr]
    assert [s.originator_version for s in snapshots] == [7]  # one, of the saved state
    # The library's own snapshot of that version, from a cold load: the same state.
    reference = _SmallIntervals()
    reference.recorder.insert_events(list(app.recorder.select_events(session.id)))
    reference.take_snapshot(session.id, version=7)
    theirs = list(reference.snapshots.recorder.select_events(session.id))  # type: ignore[union-attr]
    mine: list[Any] = [app.mapper.to_domain_event(s) for s in snapshots]
    library: list[Any] = [reference.mapper.to_domain_event(s) for s in theirs]
    assert [(s.topic, s.state, s.originator_version) for s in mine] == [
        (s.topic, s.state, s.originator_version) for s in library
    ]
    cold = _SmallIntervals()
    cold.recorder.insert_events(list(app.recorder.select_events(session.id)))
    cold.snapshots.recorder.insert_events(snapshots)  # type: ignore[union-attr]
    assert cold.repository.get(session.id).turn_count == 6
    assert cold.repository.get(session.id, version=3).turn_count == 2  # before it: a replay


def test_save_collected_stores_what_save_stores_and_caches_the_aggregates() -> None:
    first, second = _session(), _session()
    for s in (first, second):
        _turn(s, 1)
    ours, library = MemoryApplication(), MemoryApplication()
    library.save(first, second)
    # The same events, in the same order, saved again through the shortcut.
    replay = [e for s in (first, second) for e in _events_of(library, s.id)]
    save_collected(
        ours, replay, [library.repository.get(first.id), library.repository.get(second.id)]
    )
    for s in (first, second):
        assert _stored(ours, s.id) == _stored(library, s.id)
    notifications = ours.recorder.select_notifications(start=1, limit=10)
    assert [n.originator_id for n in notifications] == [e.originator_id for e in replay]
    assert ours.repository.cache is not None and ours.repository.cache.get(first.id).id == first.id


def _events_of(app: MemoryApplication, aggregate_id: UUID) -> list[Any]:
    return [app.mapper.to_domain_event(e) for e in app.recorder.select_events(aggregate_id)]


def test_evicting_the_cache_forgets_every_cached_aggregate() -> None:
    app = MemoryApplication()
    session = _session()
    app.save(session)
    cached: Session = app.repository.get(session.id)
    assert app.repository.get(session.id) is cached  # served from the cache
    cached.turn_count = 99  # a failed command's mutation
    evict_cache(app)
    fresh: Session = app.repository.get(session.id)
    assert fresh is not cached and fresh.turn_count == 0


def test_the_lean_read_declines_a_recorder_it_does_not_know() -> None:
    app = MemoryApplication()  # the in-memory recorder: the library's page read is used
    assert isinstance(app.recorder, ApplicationRecorder)
    assert lean_page_reader(app.recorder, app.mapper, {}) is None


def test_the_sqlite_event_store_takes_the_write_lock_when_a_write_begins(tmp_path: Path) -> None:
    """BEGIN IMMEDIATE: a writer holds the database's write lock from its first
    statement, so another process waits for it (busy timeout) instead of failing later
    when it upgrades a read lock that the first one's commit made stale."""
    from memory_es.stores import parse_store_url

    spec = parse_store_url(f"sqlite:///{tmp_path / 'log.db'}")
    assert spec.env["PERSISTENCE_MODULE"].endswith(":ImmediateSQLiteFactory")
    app = MemoryApplication(env=spec.env)
    try:
        datastore: Any = app.factory.datastore  # type: ignore[attr-defined]
        other = sqlite3.connect(spec.sqlite_path, timeout=0, isolation_level=None)
        with (
            datastore.transaction(commit=True),
            pytest.raises(sqlite3.OperationalError, match="locked"),
        ):
            other.execute("BEGIN IMMEDIATE")
        with datastore.transaction(commit=False):  # a read takes no write lock
            other.execute("BEGIN IMMEDIATE")
            other.execute("ROLLBACK")
        other.close()
    finally:
        app.close()


def test_snapshot_intervals_named_by_topic_find_each_aggregate_class() -> None:
    # memory_es's application names its aggregates by topic (so `session say` need not
    # import the principal's module); the library's lookups by class still find them.
    from memory_es.bootstrap import MemoryApplication
    from memory_es.domain.principal import PrincipalMemory

    intervals = MemoryApplication.snapshotting_intervals
    assert intervals  # the library enables snapshotting on its truth
    assert intervals.get(PrincipalMemory) == 200
    assert intervals.get(Session) == 200
    assert intervals.get(int) is None and intervals.get(int, 7) == 7
