"""Driver errors become the library's own at every edge.

The read models (SQLite, PostgreSQL; the recall traces live in them), and the event
store (eventsourcing's recorders on SQLite and PostgreSQL) each translate their driver's
errors where they call it: nothing above them sees ``sqlite3.Error``, ``psycopg.Error``
or eventsourcing's ``PersistenceError``, and the command line prints one line, never a
traceback. Each edge is broken here for real — a dropped connection, a missing table, a
trigger that fails the event store's insert — not by a stub.
"""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from eventsourcing.persistence import PersistenceError

import memory_es
from memory_es.errors import StoreUnavailable
from memory_es.es_internals import events_table_name
from memory_es.ports import FixedClock
from memory_es.stores import parse_store_url
from tests.stores import postgres_schema_url
from tests.test_cli import run

DRIVER_ERRORS = (sqlite3.Error, psycopg.Error, PersistenceError)


def _alice_lives_in_seattle(url: str) -> None:
    with memory_es.open(url) as memory:
        session = memory.open_session("alice")
        memory.say(session, "I live in Seattle.")
        memory.close_session(session)


def _break(url: str, statements: list[str]) -> None:
    """Run SQL against the store behind the library's back."""
    spec = parse_store_url(url)
    if spec.kind == "sqlite":
        with sqlite3.connect(spec.sqlite_path, isolation_level=None) as conn:
            for statement in statements:
                conn.execute(statement)
        return
    with psycopg.connect(**spec.pg_connect, autocommit=True, application_name="t-admin") as conn:
        conn.execute(f'SET search_path TO "{spec.pg_schema}"')
        for statement in statements:
            conn.execute(statement)


def _events_table(url: str) -> str:
    with memory_es.open(url) as memory:
        table = events_table_name(memory.app.recorder)
    assert table
    return table


def _one_line(code: int, out: str, err: str, *fragments: str) -> None:
    assert code in (1, 2), (code, err)
    assert err.startswith("memory-es: error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err and out == ""
    for fragment in fragments:
        assert fragment in err


# -- the read models (and the traces in them) ---------------------------------------------


@pytest.mark.parametrize("table", ["postings", "recall_traces"])  # beliefs' and traces'
def test_a_read_model_table_gone_is_one_line_from_the_cli(
    capsys: pytest.CaptureFixture[str], persistent_store_url: str, table: str
) -> None:
    url = persistent_store_url
    _alice_lives_in_seattle(url)
    _break(url, [f"DROP TABLE {table}"])
    code, out, err = run(capsys, url, "recall", "--principal", "alice", "where do I live")
    _one_line(code, out, err, table)


def test_the_library_raises_its_own_error_for_a_read_model_failure(
    persistent_store_url: str,
) -> None:
    url = persistent_store_url
    _alice_lives_in_seattle(url)
    with memory_es.open(url) as memory:
        _break(url, ["DROP TABLE postings"])
        with pytest.raises(StoreUnavailable, match="postings") as caught:
            memory.recall("alice", "where do I live")
        assert isinstance(caught.value.__cause__, DRIVER_ERRORS)


# -- the event store ----------------------------------------------------------------------


def _refuse_inserts(url: str, table: str) -> list[str]:
    if parse_store_url(url).kind == "sqlite":
        # A trigger whose body fails: the recorder's INSERT raises sqlite3.OperationalError.
        return [
            f"CREATE TRIGGER refuse BEFORE INSERT ON {table}"
            " BEGIN INSERT INTO no_such_table VALUES (1); END"
        ]
    return [
        "CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS"
        " $$ BEGIN RAISE EXCEPTION 'the disk is full (a test)'; END $$",
        f"CREATE TRIGGER refuse BEFORE INSERT ON {table} FOR EACH ROW EXECUTE FUNCTION refuse()",
    ]


def test_an_event_store_write_failure_is_one_line_from_the_cli(
    capsys: pytest.CaptureFixture[str], persistent_store_url: str
) -> None:
    url = persistent_store_url
    _alice_lives_in_seattle(url)
    _break(url, _refuse_inserts(url, _events_table(url)))
    code, out, err = run(capsys, url, "session", "open", "--principal", "bob")
    _one_line(code, out, err, "the store failed")


def test_the_library_raises_its_own_error_for_an_event_store_failure(
    persistent_store_url: str,
) -> None:
    url = persistent_store_url
    _alice_lives_in_seattle(url)
    _break(url, _refuse_inserts(url, _events_table(url)))
    with memory_es.open(url) as memory:
        with pytest.raises(StoreUnavailable) as caught:
            memory.remember("bob", "I prefer tea.")
        assert isinstance(caught.value.__cause__, DRIVER_ERRORS)
        assert memory.list_beliefs("bob") == []  # nothing of it was written


def test_an_event_store_read_failure_is_one_line_from_the_cli(
    capsys: pytest.CaptureFixture[str], persistent_store_url: str
) -> None:
    url = persistent_store_url
    with memory_es.open(url) as memory:
        session = memory.open_session("alice")
    table = _events_table(url)
    _break(
        url, [f"ALTER TABLE {table} RENAME TO gone_events", f"CREATE VIEW {table} AS SELECT 1 AS x"]
    )
    code, out, err = run(capsys, url, "session", "say", session, "I live in Seattle.")
    _one_line(code, out, err)


# -- PostgreSQL: a dropped connection costs at most one call ------------------------------


@pytest.fixture
def postgres_url() -> Iterator[str]:
    with postgres_schema_url() as url:
        yield url


@pytest.fixture
def app_name(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    # libpq reads PGAPPNAME: every connection this test's Memory makes (the read model's
    # pool and eventsourcing's) carries it, so only they are terminated.
    name = f"memory-es-test-{uuid.uuid4().hex[:8]}"
    monkeypatch.setenv("PGAPPNAME", name)
    yield name


def _terminate(url: str, application_name: str) -> int:
    spec = parse_store_url(url)
    with psycopg.connect(**spec.pg_connect, autocommit=True, application_name="t-admin") as conn:
        rows = conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = %s",
            (application_name,),
        ).fetchall()
    return sum(1 for (done,) in rows if done)


def _recall_or_own_error(memory: memory_es.Memory) -> list[str] | None:
    try:
        return memory.recall("alice", "where do I live").lines()
    except StoreUnavailable:
        return None
    except Exception as error:  # a driver exception: the defect this test is for
        pytest.fail(f"a driver error escaped: {type(error).__module__}.{type(error).__name__}")


def test_after_every_connection_is_terminated_recall_answers_again(
    postgres_url: str, app_name: str
) -> None:
    clock = FixedClock(memory_es.SystemClock().now())
    with memory_es.open(postgres_url, clock=clock) as memory:
        session = memory.open_session("alice")
        memory.say(session, "I live in Seattle.")
        memory.close_session(session)
        expected = memory.recall("alice", "where do I live").lines()
        assert expected and expected[0].endswith("User lives in Seattle.")
        assert _terminate(postgres_url, app_name) >= 2  # the read model's and the log's
        first = _recall_or_own_error(memory)
        assert first in (None, expected)
        assert memory.recall("alice", "where do I live").lines() == expected
        # Writes go on too: the event store's connections were dropped as well.
        assert _terminate(postgres_url, app_name) >= 1
        later = memory.open_session("alice")
        memory.say(later, "I drink tea every morning.")
        memory.close_session(later)
        assert memory.recall("alice", "what do I drink").lines()


def test_a_server_that_stays_away_is_the_librarys_error(postgres_url: str, app_name: str) -> None:
    memory = memory_es.open(postgres_url)
    memory.recall("alice", "anything")
    index: Any = memory.index
    index._pool.close()  # as if the server went away for good: no connection to take
    with pytest.raises(StoreUnavailable):
        memory.recall("alice", "anything")
    # The first recall's trace was queued (written off the hot path): the close that
    # cannot write it says so, with the library's error too.
    with pytest.raises(StoreUnavailable):
        memory.close()
