"""Episode search: what was said in a principal's sessions, read from the log's turns.

A bounded page loop with a cursor on the event sequence (the store position): it stops
at a short page, at the caller's limit, or at ``max_pages`` pages, whichever comes first,
and hands back the cursor to continue from. Session history is read here only; it is
not a retrieval arm and never enters recall ranking.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from eventsourcing.persistence import ApplicationRecorder, Mapper
from eventsourcing.utils import get_topic

from memory_es.context.budget import EPISODE_MAX_PAGES, EPISODE_PAGE_SIZE
from memory_es.domain.session import Session
from memory_es.errors import InvalidInput
from memory_es.projections.records import principal_key
from memory_es.retrieval.tokenizer import document_terms, query_terms

# The two event types the loop reads: an Opened names the session's principal.
_TOPICS = (get_topic(Session.Opened), get_topic(Session.TurnRecorded))

# Looks a session's principal key up when its Opened event lies before the cursor.
SessionOwner = Callable[[UUID], str | None]


@dataclass(frozen=True)
class EpisodeHit:
    session_id: str
    turn_id: str
    seq: int
    role: str
    text: str
    at: str
    position: int
    matched: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "session_id": self.session_id,
            "turn_id": self.turn_id,
            "seq": self.seq,
            "role": self.role,
            "text": self.text,
            "at": self.at,
            "position": self.position,
            "matched": self.matched,
        }


@dataclass(frozen=True)
class EpisodeSearch:
    hits: tuple[EpisodeHit, ...]
    pages_read: int
    # "short_page" (the log is read to its end), "limit" or "max_pages".
    stopped: str
    # Pass back as ``cursor`` to read on; None when the log was read to its end.
    next_cursor: int | None


def search_episodes(
    recorder: ApplicationRecorder,
    mapper: Mapper[Any],
    owner: SessionOwner,
    *,
    tenant: str,
    principal: str,
    text: str,
    limit: int,
    cursor: int = 0,
    page_size: int = EPISODE_PAGE_SIZE,
    max_pages: int = EPISODE_MAX_PAGES,
) -> EpisodeSearch:
    """Trusted turns of the principal's sessions sharing any term with ``text``, log order."""
    if limit < 1 or page_size < 1 or max_pages < 1 or cursor < 0:
        raise InvalidInput("limit, page size and page count must be positive; cursor >= 0")
    wanted = principal_key(tenant, principal)
    terms = set(query_terms(text))
    owners: dict[UUID, str | None] = {}
    hits: list[EpisodeHit] = []
    pages = 0
    while True:
        page = recorder.select_notifications(
            start=cursor, limit=page_size, topics=_TOPICS, inclusive_of_start=False
        )
        pages += 1
        for notification in page:
            event = mapper.to_domain_event(notification)
            session_id = event.originator_id
            if isinstance(event, Session.Opened):
                owners[session_id] = principal_key(event.tenant, event.principal)
                continue
            if not isinstance(event, Session.TurnRecorded) or not event.trusted or not terms:
                continue
            if session_id not in owners:
                owners[session_id] = owner(session_id)
            if owners[session_id] != wanted:
                continue
            matched = len(terms & set(document_terms(event.text)))
            if not matched:
                continue
            hits.append(
                EpisodeHit(
                    session_id=str(session_id),
                    turn_id=event.turn_id,
                    seq=event.seq,
                    role=event.role,
                    text=event.text,
                    at=event.at,
                    position=notification.id,
                    matched=matched,
                )
            )
            if len(hits) == limit:
                return EpisodeSearch(tuple(hits), pages, "limit", notification.id)
        if len(page) < page_size:
            return EpisodeSearch(tuple(hits), pages, "short_page", None)
        cursor = page[-1].id
        if pages == max_pages:
            return EpisodeSearch(tuple(hits), pages, "max_pages", cursor)
