"""Lexical parity: generated beliefs and queries give the same candidates, in the same
order with the same BM25 integers, on the in-memory, SQLite and PostgreSQL stores.

The vocabulary exercises the tokenizer's rules (runs joined by dots, slashes, colons and
at signs; apostrophes; hyphens) and the stems ("lives" meets "live").
"""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memory_es.ports import FixedClock, SequentialIds
from memory_es.profiles import load_profile
from memory_es.projections.base import RecallIndex
from memory_es.projections.candidates import HISTORICAL
from memory_es.projections.traces import MemoryTraceStore
from memory_es.retrieval.query import form_query
from memory_es.retrieval.recall import RecallQuery, Retriever
from tests.records import every_index, indexed_belief, insert_everywhere

VOCABULARY = [
    "api.example.com",
    "v1/users",
    "10:30",
    "me@x.org",
    "user's",
    "o'neil",
    "state-of-the-art",
    "e-mail",
    "lives",
    "live",
    "living",
    "runs",
    "running",
    "theme",
    "themes",
    "apple",
    "app",
    "deploy",
    "deploys",
    "Seattle",
    "Portland",
    "tea",
    "coffee",
    "the",
    "in",
    "user",
]
QUERY_WORDS = [*VOCABULARY, "I", "my", "what", "where", "do"]
DAYS = [f"2026-03-{d:02d}T09:00:00Z" for d in range(1, 29)]
_positions = itertools.count(1)


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, RecallIndex]]:
    with every_index(tmp_path_factory.mktemp("parity")) as found:
        yield found


belief_rows = st.lists(
    st.tuples(
        st.lists(st.sampled_from(VOCABULARY), min_size=1, max_size=8),
        st.sampled_from(["active", "active", "provisional", "superseded", "retired"]),
        st.sampled_from(["general", "atlas"]),
        st.booleans(),
        st.integers(0, len(DAYS) - 2),
        st.integers(1, 5),
    ),
    min_size=1,
    max_size=25,
)


def _insert(stores: dict[str, RecallIndex], principal: str, rows: list[tuple]) -> None:  # type: ignore[type-arg]
    records = []
    for words, status, project, portable, day, span in rows:
        closed = status in ("superseded", "retired")
        records.append(
            indexed_belief(
                next(_positions),
                principal,
                " ".join(words),
                subject="topic",
                status=status,
                project=project,
                portable=portable,
                at=DAYS[day],
                valid_to=DAYS[min(day + span, len(DAYS) - 1)] if closed else None,
            )
        )
    insert_everywhere(stores, records)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    rows=belief_rows,
    query=st.lists(st.sampled_from(QUERY_WORDS), min_size=1, max_size=6).map(" ".join),
    project=st.sampled_from(["general", "atlas"]),
    as_of=st.none() | st.sampled_from(DAYS).map(lambda d: d[:19]),
    cap=st.integers(1, 30),
)
def test_candidates_and_order_are_identical_on_every_store(
    stores: dict[str, RecallIndex],
    rows: list[tuple],  # type: ignore[type-arg]
    query: str,
    project: str,
    as_of: str | None,
    cap: int,
) -> None:
    principal = f"default/{uuid.uuid4().hex[:10]}"
    _insert(stores, principal, rows)
    formed = form_query(query, project=project)
    statuses = HISTORICAL if as_of else ("active", "provisional")
    answers = {
        name: [
            (c.record.belief_id, c.matched, c.lexical)
            for c in index.candidates(
                principal,
                formed.terms,
                boost=formed.boost,
                project=project,
                cap=cap,
                statuses=statuses,
                as_of=as_of,
            )
        ]
        for name, index in stores.items()
    }
    assert answers["sqlite"] == answers["memory"]
    if "postgres" in answers:
        assert answers["postgres"] == answers["memory"]
    # ... and so does the whole recall: ranking and selection see identical inputs.
    clock = FixedClock(datetime(2026, 4, 1, tzinfo=UTC))
    lines = {
        name: Retriever(
            index,
            MemoryTraceStore(),
            profile=load_profile(),
            clock=clock,
            ids=SequentialIds(),
        )
        .recall(RecallQuery(principal=principal, text=query, project=project, limit=5))
        .lines()
        for name, index in stores.items()
    }
    assert all(got == lines["memory"] for got in lines.values())
