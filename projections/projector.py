"""Domain events to recall-index rows: the one projection logic every adapter shares."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from eventsourcing.utils import get_topic

from memory_es.domain.values import DECAY_RETIREMENT, Authority, Status, short_id
from memory_es.lifecycle.importance import importance
from memory_es.policy import formation_key
from memory_es.projections.base import IndexWriter
from memory_es.projections.records import BeliefRecord, SessionRecord, new_belief, principal_key
from memory_es.sealing import FORGOTTEN, lends_words

if TYPE_CHECKING:
    from memory_es.es_internals import Page


def project_event(event: Any, position: int, writer: IndexWriter) -> None:
    """Apply one decoded event at its store position; events of no interest are skipped."""
    handler = handler_for(type(event))
    if handler is not None:
        handler(event, position, writer)


def project_page(
    page: Page, writer: IndexWriter, terms: Mapping[int, Mapping[str, int]] | None = None
) -> None:
    """Apply a page of events in log order, as :func:`project_event` one at a time would.
    ``terms``: the indexed terms of some of its BeliefFormed events by position, already
    tokenized (a rebuild's tokenizing process); the others are tokenized here."""
    prepared = terms or {}
    for position, event in page:
        kind = type(event)
        if forms_belief(kind):
            _form(event, position, writer, prepared.get(position))
        else:
            handler = handler_for(kind)
            if handler is not None:
                handler(event, position, writer)


def indexed_text(event: Any) -> str:
    """What a BeliefFormed indexes: the statement, its subjects and the source turn's
    context words (indexed, never rendered). An inferred belief also indexes its source
    turn's antecedent (:func:`antecedent_terms`), which the event does not carry."""
    return " ".join((event.statement, *event.subjects, event.context))


# How many of the turn before's content words a reading of the next turn indexes: the
# last ones, where a message asks what the next turn answers.
ANTECEDENT_WORDS = 24


def antecedent_words(text: str) -> str:
    """The words of a turn that the turn after it is read with: its last
    :data:`ANTECEDENT_WORDS` content words (the shared tokenizer's lexemes, stopwords
    out). "Three times a week." answers "How often do you work out with the family?":
    the words of the question are in the turn before, not in the answer."""
    from memory_es.retrieval.tokenizer import STOPWORDS, lexemes

    words = [w for w in lexemes(text) if w not in STOPWORDS]
    return " ".join(words[-ANTECEDENT_WORDS:])


def antecedent_terms(event: Any, writer: IndexWriter) -> Counter[str]:
    """The indexed terms an INFERRED belief takes from the turn before each of its source
    turns (indexed, never rendered; the turn's own context words are the event's). A
    belief the user stated (USER, AFFIRMED) is found by its own words alone."""
    if int(event.authority) != Authority.INFERRED:
        return Counter()
    before = " ".join(w for w in map(writer.antecedent_words, event.source_event_ids) if w)
    return indexed_terms(before) if before else Counter()


def handler_for(kind: type[Any]) -> _Handler | None:
    """The handler of an event class (None: not projected), found by its topic the first
    time the class is met, then one dict lookup (exact classes: events are never
    subclassed)."""
    try:
        return _BY_CLASS[kind]
    except KeyError:
        handler = _BY_CLASS[kind] = HANDLERS.get(get_topic(kind))
        return handler


def forms_belief(kind: type[Any]) -> bool:
    """Whether events of this class form a belief (every other event carrying a
    belief_id changes one)."""
    try:
        return _FORMS[kind]
    except KeyError:
        forms = _FORMS[kind] = get_topic(kind) == FORMED_TOPIC
        return forms


def _created(event: Any, position: int, writer: IndexWriter) -> None:
    writer.name_principal(str(event.originator_id), principal_key(event.tenant, event.principal))


@lru_cache(maxsize=2048)
def indexed_terms(text: str) -> Counter[str]:
    """The one tokenizer's terms of a belief's indexed text, each distinct text tokenized
    once (a rebuild meets the same statements again and again). Shared: never mutated
    (writers only read it)."""
    # Imported here: a log page of turns only (``session say``) never loads the stemmer.
    from memory_es.retrieval.tokenizer import document_terms

    return document_terms(text)


def _formed(event: Any, position: int, writer: IndexWriter) -> None:
    _form(event, position, writer, None)


def _form(event: Any, position: int, writer: IndexWriter, terms: Mapping[str, int] | None) -> None:
    principal = writer.principal_of(str(event.originator_id))
    statement = event.statement
    if terms is None:
        terms = indexed_terms(indexed_text(event))
    before = antecedent_terms(event, writer)
    if before:
        terms = Counter(terms) + before  # a new Counter: the cached one is shared
    record = new_belief(
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
        idle_since=event.valid_from,
        touched_at=event.formed_at,
        importance=importance(
            belief_type=event.belief_type,
            subject_key=event.subject_key,
            authority=int(event.authority),
            updates_state=event.supersedes is not None,
        ),
        interval_started_at=event.formed_at,
        normalized=event.normalized,
        subject_key=event.subject_key,
        source_seq=int(event.source_seq),
    )
    writer.insert_belief(record, terms)
    writer.raise_head(principal, position)


def _reinforced(event: Any, position: int, writer: IndexWriter) -> None:
    # A quiet change: neither the belief's position nor the head moves.
    current = _require(writer, event.belief_id)
    sources = tuple(sorted(set(current.source_event_ids) | set(event.source_event_ids)))
    last_evidence = max(current.last_evidence_at, event.at)
    writer.update_belief(
        event.belief_id,
        source_event_ids=sources,
        evidence_count=current.evidence_count + 1,
        last_evidence_at=last_evidence,
        idle_since=max(current.idle_since, last_evidence),
        touched_at=max(current.touched_at, event.at),
    )


def _corroborated(event: Any, position: int, writer: IndexWriter) -> None:
    # Quiet, like the reinforcement it follows: the confidence its evidence earns.
    _require(writer, event.belief_id)
    writer.update_belief(
        event.belief_id, confidence=float(event.confidence), status=Status(event.status)
    )


def _changed(writer: IndexWriter, belief_id: str, position: int, **changes: Any) -> BeliefRecord:
    """A state change a session must hear about: a fresh position, and the head moves.
    Returns the row as it was."""
    current = _require(writer, belief_id)
    writer.update_belief(belief_id, position=position, **changes)
    writer.raise_head(current.principal, position)
    return current


def _superseded(event: Any, position: int, writer: IndexWriter) -> None:
    _changed(
        writer,
        event.belief_id,
        position,
        status=Status.SUPERSEDED,
        valid_to=event.valid_to,
        successor_id=event.successor_id,
    )


def _rejected(event: Any, position: int, writer: IndexWriter) -> None:
    # Durable user rejection: out of recall, a fresh position (a state change).
    _changed(writer, event.belief_id, position, status=Status.REJECTED)


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
    session_id = str(event.originator_id)
    writer.update_session(session_id, last_activity_at=event.at)
    # What the user's next turn is read with: the other side's message, whose question the
    # user's turn answers (sealing.lends_words: a turn that lends none is read unopened,
    # without its text), unless it is forgotten.
    lends = lends_words(event.role, event.hazards) and event.text != FORGOTTEN
    words = antecedent_words(event.text) if lends else ""
    writer.record_turn(session_id, int(event.seq), event.turn_id, words)


def _closed(event: Any, position: int, writer: IndexWriter) -> None:
    writer.update_session(str(event.originator_id), closed_at=event.at)


def _consolidated(event: Any, position: int, writer: IndexWriter) -> None:
    # The latest consolidation's policy is the session's (docs/operations.md "Re-derivation").
    writer.update_session(event.session_id, formation=formation_key(event.extractor, event.policy))


def _conflict(event: Any, position: int, writer: IndexWriter) -> None:
    current = _require(writer, event.belief_id)
    partners = tuple(sorted(set(current.conflicts_with) | {event.partner_id}))
    _changed(writer, event.belief_id, position, conflicts_with=partners)


# -- lifecycle (memory_es/lifecycle/) ---------------------------------------------------


def _decayed(event: Any, position: int, writer: IndexWriter) -> None:
    # Quiet: the belief keeps its position, the head does not move.
    current = _require(writer, event.belief_id)
    writer.update_belief(
        event.belief_id,
        confidence=float(event.confidence),
        touched_at=max(current.touched_at, event.at),
    )


def _retired(event: Any, position: int, writer: IndexWriter) -> None:
    current = _require(writer, event.belief_id)
    _changed(
        writer,
        event.belief_id,
        position,
        status=Status.RETIRED,
        confidence=float(event.confidence),
        valid_to=event.valid_to,
        touched_at=max(current.touched_at, event.valid_to),
        forgotten=current.forgotten or event.reason == DECAY_RETIREMENT,
    )


def _revived(event: Any, position: int, writer: IndexWriter) -> None:
    # Back in current recall: a fresh position (the change a session's delta reports),
    # validity reopened; the evidence itself came with the BeliefReinforced before it.
    current = _require(writer, event.belief_id)
    _changed(
        writer,
        event.belief_id,
        position,
        status=Status(event.status),
        confidence=float(event.confidence),
        valid_to=None,
        touched_at=max(current.touched_at, event.at),
        forgotten=False,
    )


def _usage(event: Any, position: int, writer: IndexWriter) -> None:
    # Utility and the usage clock only: never confidence, never evidence; quiet.
    writer.prefetch([*event.cited, *event.uncited])
    for belief_id in event.cited:
        current = writer.get(belief_id)
        if current is not None:
            writer.update_belief(
                belief_id,
                utility=round(min(1.0, current.utility + event.cited_delta), 6),
                last_used_at=event.at,
                idle_since=max(current.idle_since, event.at),
            )
    for belief_id in event.uncited:
        current = writer.get(belief_id)
        if current is not None:
            writer.update_belief(
                belief_id, utility=round(max(-1.0, current.utility - event.uncited_delta), 6)
            )


def _confirmed(event: Any, position: int, writer: IndexWriter) -> None:
    current = _require(writer, event.belief_id)
    closed = set(event.partner_ids)
    _changed(
        writer,
        event.belief_id,
        position,
        authority=3,  # Authority.USER: the user answered
        status=Status.ACTIVE,
        importance=int(event.importance),
        conflicts_with=tuple(p for p in current.conflicts_with if p not in closed),
    )
    for partner_id in event.partner_ids:
        partner = writer.get(partner_id)
        if partner is not None:
            writer.update_belief(
                partner_id,
                conflicts_with=tuple(p for p in partner.conflicts_with if p != event.belief_id),
            )


def _deactivated(event: Any, position: int, writer: IndexWriter) -> None:
    current = _require(writer, event.belief_id)
    _changed(
        writer, event.belief_id, position, status=Status.INACTIVE, prior_status=current.status.value
    )


def _reactivated(event: Any, position: int, writer: IndexWriter) -> None:
    _changed(
        writer,
        event.belief_id,
        position,
        status=Status(event.status),
        interval_started_at=event.at,
        prior_status=None,
    )


def _pinned(event: Any, position: int, writer: IndexWriter) -> None:
    _require(writer, event.belief_id)
    writer.update_belief(event.belief_id, pinned=True)


def _unpinned(event: Any, position: int, writer: IndexWriter) -> None:
    _require(writer, event.belief_id)
    writer.update_belief(event.belief_id, pinned=False)


def _forgotten(event: Any, position: int, writer: IndexWriter) -> None:
    # A kept belief's forgotten sources leave its provenance; quiet (its statement and
    # status stand: other evidence supports it). The retired ones had their own events.
    gone = set(event.turn_ids)
    for belief_id in event.kept:
        current = _require(writer, belief_id)
        remaining = tuple(i for i in current.source_event_ids if i not in gone)
        dropped = len(current.source_event_ids) - len(remaining)
        writer.update_belief(
            belief_id,
            source_event_ids=remaining,
            evidence_count=max(1, current.evidence_count - dropped),
        )


def _require(writer: IndexWriter, belief_id: str) -> BeliefRecord:
    record = writer.get(belief_id)
    if record is None:
        raise LookupError(f"event for a belief the index never saw formed: {belief_id}")
    return record


_Handler = Callable[[Any, int, IndexWriter], None]

# By stored topic (the log's name for an event kind), not by class: the table names the
# principal's events without importing memory_es.domain.principal, whose ~40 event
# classes cost a short command more start-up than anything else it runs (`session say`
# projects session events only). The runner reads only these topics from the
# log, so an event kind is projected iff it has a handler here.
_PRINCIPAL = "memory_es.domain.principal:PrincipalMemory."
_SESSION = "memory_es.domain.session:Session."
HANDLERS: dict[str, _Handler] = {
    _PRINCIPAL + "Created": _created,
    _PRINCIPAL + "BeliefFormed": _formed,
    _PRINCIPAL + "BeliefReinforced": _reinforced,
    _PRINCIPAL + "BeliefCorroborated": _corroborated,
    _PRINCIPAL + "BeliefSuperseded": _superseded,
    _PRINCIPAL + "BeliefRejected": _rejected,
    _PRINCIPAL + "ConflictLinked": _conflict,
    _PRINCIPAL + "BeliefDecayed": _decayed,
    _PRINCIPAL + "BeliefRetired": _retired,
    _PRINCIPAL + "BeliefRevived": _revived,
    _PRINCIPAL + "UsageRecorded": _usage,
    _PRINCIPAL + "ConflictConfirmed": _confirmed,
    _PRINCIPAL + "BeliefDeactivated": _deactivated,
    _PRINCIPAL + "BeliefReactivated": _reactivated,
    _PRINCIPAL + "BeliefPinned": _pinned,
    _PRINCIPAL + "BeliefUnpinned": _unpinned,
    _SESSION + "Opened": _opened,
    _SESSION + "TurnRecorded": _turn,
    _SESSION + "Closed": _closed,
    _PRINCIPAL + "ConsolidationRecorded": _consolidated,
    _PRINCIPAL + "MemoryForgotten": _forgotten,
}
PROJECTED_TOPICS: tuple[str, ...] = tuple(sorted(HANDLERS))
# The event that forms a belief (every other event with a belief_id changes one).
FORMED_TOPIC = _PRINCIPAL + "BeliefFormed"

# Each event class met: its handler (None: not projected), whether it forms a belief.
_BY_CLASS: dict[type[Any], _Handler | None] = {}
_FORMS: dict[type[Any], bool] = {}
