"""eventsourcing's own append paths, on the event shapes memory_es writes.

Beside the append phase's memory_es path (``Session`` and its turn events, our
application with its transcoder and snapshotting), the same work through the library
alone on the same store:

- **the library's aggregate path**: an ``Aggregate`` with ``@event`` methods whose events
  carry the same fields as ``Session.Opened`` and ``Session.TurnRecorded``, saved by a
  stock ``Application`` (the library's JSON transcoder, no snapshots);
- **the library's bare insert**: ``recorder.insert_events`` of ``StoredEvent`` objects
  already encoded (the same events' bytes), so only the recorder's statement is timed.

The application's own tables (``librarypath_events``) sit in the same SQLite file or
PostgreSQL schema as ours.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID, uuid4

from eventsourcing.application import Application
from eventsourcing.domain import Aggregate, event
from eventsourcing.persistence import StoredEvent


class LibrarySession(Aggregate):
    """The library's twin of ``Session``: the same event fields, no domain checks."""

    @event("Opened")
    def __init__(self, tenant: str, principal: str, project: str, opened_at: str) -> None:
        self.tenant = tenant
        self.principal = principal
        self.project = project
        self.turn_count = 0
        self.last_activity_at = opened_at

    @event("TurnRecorded")
    def record_turn(
        self,
        turn_id: str,
        seq: int,
        role: str,
        text: str,
        trusted: bool,
        at: str,
        redactions: list[str],
        hazards: list[str],
    ) -> None:
        self.turn_count = seq
        self.last_activity_at = at


class LibraryPath(Application[UUID]):
    """A stock application: the library's transcoder and save, nothing of ours."""

    name = "LibraryPath"


def open_library(env: dict[str, str]) -> LibraryPath:
    return LibraryPath(env=dict(env))


def sessions(turns: int, per_session: int) -> list[LibrarySession]:
    """``turns`` turn events over sessions of ``per_session`` (the append phase's texts)."""
    out = []
    for s in range(0, turns, per_session + 1):
        session = LibrarySession(
            tenant="default",
            principal=f"lib{s}",
            project="general",
            opened_at="2026-01-05T09:00:00Z",
        )
        for t in range(per_session):
            session.record_turn(
                turn_id=str(uuid4()),
                seq=t + 1,
                role="user",
                text=f"I live in City{t}. My manager is Dana{s}.",
                trusted=True,
                at="2026-01-05T09:01:00Z",
                redactions=[],
                hazards=[],
            )
        out.append(session)
    return out


def stored(app: LibraryPath, aggregates: list[LibrarySession]) -> list[StoredEvent]:
    """The aggregates' pending events encoded by the library's mapper, ids made fresh (a
    second insert of the same events would conflict), for the bare insert."""
    out = []
    for aggregate in aggregates:
        fresh: UUID = uuid4()
        for e in aggregate.collect_events():
            s = app.mapper.to_stored_event(e)
            out.append(StoredEvent(fresh, s.originator_version, s.topic, s.state))
    return out


def insert_events(app: LibraryPath, events: list[StoredEvent], batch: int) -> None:
    recorder: Any = app.recorder
    for start in range(0, len(events), batch):
        recorder.insert_events(events[start : start + batch])
