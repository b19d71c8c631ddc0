"""A belief's history: the events on its principal's aggregate that name it, each with
its store position (the notification id the log gave it).

Read from the log itself, not a read model: the principal's events are paged out of the
store (only the topics of events that carry a ``belief_id``, filtered in SQL by the
recorder) and those of this belief are decoded. It is an inspection read — its cost is a
scan of those topics — so serving paths never call it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from eventsourcing.domain import CanMutateAggregate
from eventsourcing.utils import get_topic

from memory_es.domain.principal import PrincipalMemory
from memory_es.domain.values import split_principal_identity
from memory_es.errors import UnknownBelief, UnknownSession
from memory_es.services.unit_of_work import principal_aggregate_ids
from memory_es.store_errors import event_store_errors

if TYPE_CHECKING:
    from memory_es.app import Memory
    from memory_es.formation.extractor import SourceTurn

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


@dataclass(frozen=True)
class HistoryTurn:
    """A source turn an event of the belief names, with its session (as stored: the text
    was redacted before its event was written)."""

    session_id: str
    turn: SourceTurn

    def as_dict(self) -> dict[str, Any]:
        """As the MCP provenance resource gives a source turn."""
        return {"session_id": self.session_id, **dataclasses.asdict(self.turn)}


def source_turns(memory: Memory, events: Sequence[BeliefEvent]) -> dict[int, list[HistoryTurn]]:
    """Per event (by position), the turns of its source session its evidence ids name, in
    the session's order: the turns a formation or a reinforcement read (the MCP
    provenance resource and ``memory history`` both show them). Each session is read
    once."""
    turns_of: dict[str, dict[str, SourceTurn]] = {}
    out: dict[int, list[HistoryTurn]] = {}
    for event in events:
        ids = event.fields.get("source_event_ids") or ()
        session_id = event.fields.get("source_session_id")
        if not ids or not isinstance(session_id, str):
            continue
        if session_id not in turns_of:
            try:
                turns = memory.session_turns(session_id)
            except UnknownSession:  # evidence that is not a session's turn
                turns = []
            turns_of[session_id] = {t.turn_id: t for t in turns}
        named = set(ids)
        out[event.position] = [
            HistoryTurn(session_id, t) for t in turns_of[session_id].values() if t.turn_id in named
        ]  # in the session's order
    return out


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
