"""Domain events to recall-index rows: the one projection logic every adapter shares."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from memory_es.domain.principal import PrincipalMemory
from memory_es.domain.session import Session
from memory_es.domain.values import Status, short_id
from memory_es.retrieval.tokenizer import document_terms
from projections.base import IndexWriter
from projections.records import BeliefRecord, SessionRecord, principal_key


def project_event(event: Any, position: int, writer: IndexWriter) -> None:
    """Apply one decoded event at its store position; events of no interest are skipped."""
    handler = _HANDLERS.get(type(event))
    if handler is not None:
        handler(event, position, writer)


def _created(event: Any, position: int, writer: IndexWriter) -> None:
    writer.name_principal(str(event.originator_id), principal_key(event.tenant, event.principal))


def _formed(event: Any, position: int, writer: IndexWriter) -> None:
    principal = writer.principal_of(str(event.originator_id))
    statement = event.statement
    terms = document_terms(statement + " " + " ".join(event.subjects))
    record = BeliefRecord(
        belief_id=event.belief_id,
        short_id=short_id(event.belief_id),
        principal=principal,
        statement=statement,
        belief_type=event.belief_type,
        subjects=tuple(event.subjects),
        polarity=bool(event.polarity),
        authority=int(event.authority),
        confidence=float(event.confidence),
        status=Status(event.status),
        project=event.project,
        portable=bool(event.portable),
        source_event_ids=tuple(event.source_event_ids),
        source_session_id=event.source_session_id,
        valid_from=event.valid_from,
        valid_to=None,
        successor_id=None,
        conflicts_with=(event.conflicts_with,) if event.conflicts_with else (),
        position=position,
        evidence_count=len(event.source_event_ids),
        last_evidence_at=event.valid_from,
        formed_at=event.formed_at,
        policy=event.policy,
        doc_len=sum(terms.values()),
    )
    writer.insert_belief(record, terms)
    writer.raise_head(principal, position)


def _reinforced(event: Any, position: int, writer: IndexWriter) -> None:
    # A quiet change: neither the belief's position nor the head moves.
    current = _require(writer, event.belief_id)
    sources = tuple(sorted(set(current.source_event_ids) | set(event.source_event_ids)))
    writer.update_belief(
        event.belief_id,
        source_event_ids=sources,
        evidence_count=current.evidence_count + 1,
        last_evidence_at=max(current.last_evidence_at, event.at),
    )


def _superseded(event: Any, position: int, writer: IndexWriter) -> None:
    current = _require(writer, event.belief_id)
    writer.update_belief(
        event.belief_id,
        status=Status.SUPERSEDED,
        valid_to=event.valid_to,
        successor_id=event.successor_id,
        position=position,
    )
    writer.raise_head(current.principal, position)


def _rejected(event: Any, position: int, writer: IndexWriter) -> None:
    # Durable user rejection: out of recall, a fresh position (a state change).
    current = _require(writer, event.belief_id)
    writer.update_belief(event.belief_id, status=Status.REJECTED, position=position)
    writer.raise_head(current.principal, position)


def _opened(event: Any, position: int, writer: IndexWriter) -> None:
    writer.open_session(
        SessionRecord(
            session_id=str(event.originator_id),
            principal=principal_key(event.tenant, event.principal),
            project=event.project,
            opened_at=event.opened_at,
            last_activity_at=event.opened_at,
            closed_at=None,
        )
    )


def _turn(event: Any, position: int, writer: IndexWriter) -> None:
    writer.update_session(str(event.originator_id), last_activity_at=event.at)


def _closed(event: Any, position: int, writer: IndexWriter) -> None:
    writer.update_session(str(event.originator_id), closed_at=event.at)


def _conflict(event: Any, position: int, writer: IndexWriter) -> None:
    current = _require(writer, event.belief_id)
    partners = tuple(sorted(set(current.conflicts_with) | {event.partner_id}))
    writer.update_belief(event.belief_id, conflicts_with=partners, position=position)
    writer.raise_head(current.principal, position)


def _require(writer: IndexWriter, belief_id: str) -> BeliefRecord:
    record = writer.get(belief_id)
    if record is None:
        raise LookupError(f"event for a belief the index never saw formed: {belief_id}")
    return record


_Handler = Callable[[Any, int, IndexWriter], None]

# Exact classes (events are never subclassed): one dict lookup per event. The runner reads
# only these topics from the log, so an event kind is projected iff it has a handler here.
_HANDLERS: dict[type[Any], _Handler] = {
    PrincipalMemory.Created: _created,
    PrincipalMemory.BeliefFormed: _formed,
    PrincipalMemory.BeliefReinforced: _reinforced,
    PrincipalMemory.BeliefSuperseded: _superseded,
    PrincipalMemory.BeliefRejected: _rejected,
    PrincipalMemory.ConflictLinked: _conflict,
    Session.Opened: _opened,
    Session.TurnRecorded: _turn,
    Session.Closed: _closed,
}
PROJECTED_EVENTS: tuple[type[Any], ...] = tuple(_HANDLERS)
