"""Read-model rows written straight into recall indexes, for the parity tests."""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from contextlib import ExitStack, contextmanager
from pathlib import Path

from memory_es.domain.values import short_id
from memory_es.projections.base import RecallIndex
from memory_es.projections.memory import MemoryRecallIndex
from memory_es.projections.records import BeliefRecord
from memory_es.projections.sqlite import SqliteRecallIndex
from memory_es.retrieval.tokenizer import document_terms
from tests.stores import postgres_schema_url, postgres_unavailable_reason

IndexedBelief = tuple[BeliefRecord, Counter[str]]


def indexed_belief(
    position: int,
    principal: str,
    statement: str,
    *,
    subject: str,
    status: str = "active",
    project: str = "general",
    portable: bool = False,
    at: str = "2026-03-01T09:00:00Z",
    valid_to: str | None = None,
) -> IndexedBelief:
    """A fact as the projector would index it: the statement and its subject's terms."""
    belief_id = str(uuid.UUID(int=position))
    terms = document_terms(f"{statement} {subject}")
    record = BeliefRecord(
        belief_id=belief_id,
        short_id=short_id(belief_id),
        principal=principal,
        statement=statement,
        belief_type="fact",
        subjects=(subject,),
        polarity=True,
        authority=3,
        confidence=0.9,
        status=status,
        project=project,
        portable=portable,
        source_event_ids=("t",),
        source_session_id="s",
        valid_from=at,
        valid_to=valid_to,
        successor_id=None,
        conflicts_with=(),
        position=position,
        evidence_count=1,
        last_evidence_at=at,
        formed_at=at,
        policy="formation@1",
        doc_len=sum(terms.values()),
    )
    return record, terms


def insert_everywhere(indexes: Mapping[str, RecallIndex], rows: Iterable[IndexedBelief]) -> None:
    """The same rows into every index, one writer transaction each."""
    rows = list(rows)
    for index in indexes.values():
        with index.writer() as writer:
            for record, terms in rows:
                writer.insert_belief(record, terms)


@contextmanager
def every_index(folder: Path) -> Iterator[dict[str, RecallIndex]]:
    """Empty, migrated recall indexes: in memory, SQLite in ``folder`` and, when a server
    answers, PostgreSQL in a schema of its own (dropped afterwards)."""
    sqlite = SqliteRecallIndex(str(folder / "index.db"))
    sqlite.migrate()
    found: dict[str, RecallIndex] = {"memory": MemoryRecallIndex(), "sqlite": sqlite}
    with ExitStack() as stack:
        if postgres_unavailable_reason() is None:
            from memory_es.projections.postgres import PostgresRecallIndex
            from memory_es.stores import parse_store_url

            spec = parse_store_url(stack.enter_context(postgres_schema_url()))
            pg = PostgresRecallIndex(spec.pg_connect, schema=spec.pg_schema)
            pg.migrate()
            found["postgres"] = pg
        try:
            yield found
        finally:
            for index in found.values():
                index.close()
