"""A belief's history: the events on its principal's aggregate that name it, each with
its store position (the notification id the log gave it).

Read from the log itself, not a read model: the principal's events are paged out of the
store (only the topics of events that carry a ``belief_id``, filtered in SQL by the
recorder) and those of this belief are decoded. It is an inspection read — its cost is a
scan of those topics — so serving paths never call it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from eventsourcing.domain import CanMutateAggregate
from eventsourcing.utils import get_topic

from memory_es.domain.principal import PrincipalMemory
from memory_es.domain.values import split_principal_identity
from memory_es.errors import UnknownBelief
from memory_es.services.unit_of_work import principal_aggregate_ids
from memory_es.store_errors import event_store_errors

if TYPE_CHECKING:
    from memory_es.app import Memory

HISTORY_PAGE = 1000
# The library's envelope, not the event's content (its timestamp is the wall clock).
_ENVELOPE = frozenset({"originator_id", "originator_version", "timestamp"})


@dataclass(frozen=True)
class BeliefEvent:
    """One event of a belief: its store position, its name and its recorded fields."""

    position: int
    event: str  # the event class's name: BeliefFormed, BeliefSuperseded, ...
    version: int  # the principal aggregate's version the event gave it
    fields: dict[str, Any]

    def as_dict(self) -> dict[str, Any]:
        return {
            "position": self.position,
            "event": self.event,
            "version": self.version,
            "fields": self.fields,
        }


def _belief_event_topics() -> tuple[str, ...]:
    """Every event class on the principal aggregate that names one belief (new classes
    added later are found the same way)."""
    topics: list[str] = []
    for value in vars(PrincipalMemory).values():
        if (
            isinstance(value, type)
            and issubclass(value, CanMutateAggregate)
            and dataclasses.is_dataclass(value)
            and "belief_id" in {f.name for f in dataclasses.fields(value)}
        ):
            topics.append(get_topic(value))
    return tuple(sorted(topics))


def belief_history(memory: Memory, belief_id: str) -> list[BeliefEvent]:
    """The events of ``belief_id`` (a full id) in store order; a store failure is the
    library's error (``event_store_errors``)."""
    with event_store_errors():
        return _belief_history(memory, belief_id)


def _belief_history(memory: Memory, belief_id: str) -> list[BeliefEvent]:
    record = memory.index.get(belief_id)
    if record is None:
        raise UnknownBelief(belief_id)
    tenant, principal = split_principal_identity(record.principal)
    aggregate_ids = {str(i) for i in principal_aggregate_ids(memory.app, tenant, principal)}
    recorder = memory.app.recorder
    topics = _belief_event_topics()
    head = recorder.max_notification_id() or 0
    found: list[BeliefEvent] = []
    after = 0
    while after < head:
        page = recorder.select_notifications(
            start=after,
            limit=HISTORY_PAGE,
            stop=head,
            topics=topics,
            inclusive_of_start=False,
        )
        if not page:
            break
        for notification in page:
            if str(notification.originator_id) not in aggregate_ids:
                continue
            event = memory.app.mapper.to_domain_event(notification)
            if getattr(event, "belief_id", None) != belief_id:
                continue
            found.append(
                BeliefEvent(
                    position=notification.id,
                    event=type(event).__name__,
                    version=notification.originator_version,
                    fields={k: v for k, v in event.__dict__.items() if k not in _ENVELOPE},
                )
            )
        after = page[-1].id
    return found
