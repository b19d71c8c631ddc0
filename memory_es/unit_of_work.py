"""Pending writes: many commands' events kept in command order, saved in one transaction.

The bulk path (``memory-es ingest``) runs the ordinary commands — ``open_session``,
``say``, ``close_session`` — while a ``PendingWrites`` is installed on the ``Memory``.
Each command's save then appends the aggregates' new events here instead of writing
them; ``flush`` writes everything collected so far with one ``Application.save`` (one
transaction, the events in exactly the order the commands produced them) and catches the
read model up once. The events are those the one-at-a-time path writes; only the
transactions are fewer.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from memory_es.es_internals import save_collected

__all__ = ["PendingWrites", "save_collected"]


class PendingWrites:
    def __init__(self) -> None:
        self.events: list[Any] = []
        self._by_originator: dict[UUID, list[Any]] = {}
        # Every aggregate touched since the last flush, by id: later commands in the
        # same batch read them from here (the store has not seen their events yet).
        self.aggregates: dict[UUID, Any] = {}

    def collect(self, *aggregates: Any) -> None:
        for aggregate in aggregates:
            new = aggregate.collect_events()
            self.events.extend(new)
            self._by_originator.setdefault(aggregate.id, []).extend(new)
            self.aggregates[aggregate.id] = aggregate

    def get(self, aggregate_id: UUID) -> Any | None:
        return self.aggregates.get(aggregate_id)

    def events_of(self, aggregate_id: UUID) -> list[Any]:
        return self._by_originator.get(aggregate_id, [])

    def __len__(self) -> int:
        return len(self.events)

    def take(self) -> tuple[list[Any], list[Any]]:
        """Everything collected so far, emptied: (events in order, aggregates)."""
        events, aggregates = self.events, list(self.aggregates.values())
        self.events, self.aggregates, self._by_originator = [], {}, {}
        return events, aggregates
