"""Forgetting on memory, SQLite and PostgreSQL: tests/forgetting_conformance.py."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.forgetting_conformance import (
    MARKER,
    SECRET_TURN,
    ForgettingConformance,
    raw_store_bytes,
)
from tests.stores import postgres_schema_url, sqlite_url
from tests.test_cli import run


class TestForgettingMemory(ForgettingConformance):
    @contextmanager
    def store_url(self, tmp_path: Path) -> Iterator[str]:
        yield "memory://"


class TestForgettingSqlite(ForgettingConformance):
    @contextmanager
    def store_url(self, tmp_path: Path) -> Iterator[str]:
        yield sqlite_url(tmp_path)


class TestForgettingPostgres(ForgettingConformance):
    @contextmanager
    def store_url(self, tmp_path: Path) -> Iterator[str]:
        with postgres_schema_url() as url:
            yield url


@pytest.mark.parametrize("scope", ["turn", "session", "principal"])
def test_the_cli_forgets_and_no_output_shows_the_marker(
    capsys: pytest.CaptureFixture[str], persistent_store_url: str, tmp_path: Path, scope: str
) -> None:
    url = persistent_store_url
    code, session, _ = run(capsys, url, "session", "open", "--principal", "ana")
    session = session.strip()
    run(capsys, url, "session", "say", session, SECRET_TURN)
    run(capsys, url, "session", "say", session, "I prefer green tea.")
    run(capsys, url, "session", "close", session)
    code, _, err = run(capsys, url, "memory", "forget")
    assert code == 2 and "one of the arguments" in err
    code, dry, _ = run(capsys, url, "memory", "forget", "--session", session, "--json")
    assert code == 0 and json.loads(dry)["confirmed"] is False
    assert MARKER in dry.lower()  # a dry run shows what would go, before anything does
    listed = json.loads(run(capsys, url, "memory", "list", "--principal", "ana", "--json")[1])
    (secret_turn,) = [
        t for b in listed if MARKER in b["statement"].lower() for t in b["source_event_ids"]
    ]
    target = {"turn": secret_turn, "session": session, "principal": "ana"}[scope]
    _, later, _ = run(capsys, url, "session", "open", "--principal", "ana")
    outputs = [
        run(capsys, url, *args)[1]
        for args in (
            ("memory", "forget", f"--{scope}", target, "--confirm", "--reason", "asked"),
            ("recall", "--principal", "ana", "--json", "where do I live"),
            ("memory", "list", "--principal", "ana", "--json"),
            ("projections", "rebuild"),
            ("memory", "rederive", "--all", "--confirm"),
            ("recall", "--principal", "ana", "where do I live"),
            ("context", "--session", later.strip(), "where do I live"),
            ("log", "export", str(tmp_path / "log.jsonl")),
            ("log", "export", "--decrypted", str(tmp_path / "opened.jsonl")),
        )
    ]
    outputs += [(tmp_path / n).read_text() for n in ("log.jsonl", "opened.jsonl")]
    assert [o for o in outputs if MARKER in o.lower()] == []
    assert MARKER.encode() not in raw_store_bytes(url, tmp_path).lower()
    # What the forgetting did not reach stays: the turn's session-mate, or nothing at all.
    tea = run(capsys, url, "recall", "--principal", "ana", "what do I drink")[1]
    assert ("green tea" in tea) == (scope == "turn")


def test_a_plaintext_store_compacted_into_a_sealed_one_forgets_there(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A store written before sealing: ``log compact`` writes a sealed copy whose read
    model equals the old one row for row; forgetting works there, while the old store
    keeps the text in the clear (docs/operations.md: what a plaintext store cannot promise)."""
    import memory_es

    old, new = sqlite_url(tmp_path, "old.db"), sqlite_url(tmp_path, "new.db")
    with memory_es.open(old, sealing=False) as plaintext:
        a = plaintext.open_session("ana")
        plaintext.say(a, SECRET_TURN)
        plaintext.close_session(a)
        b = plaintext.open_session("ana")
        plaintext.say(b, "I prefer green tea.")
        plaintext.close_session(b)
    code, done, err = run(capsys, old, "log", "compact", new, "--json")
    assert code == 0 and json.loads(done)["verified"] is True, err
    query = ("recall", "--principal", "ana", "where do I live and what do I drink")
    assert run(capsys, new, *query)[1] == run(capsys, old, *query)[1]
    code, _, _ = run(capsys, new, "memory", "forget", "--session", a, "--confirm")
    assert code == 0
    after = run(capsys, new, "recall", "--principal", "ana", "where do I live what do I drink")[1]
    assert MARKER not in after.lower() and "green tea" in after
    assert MARKER.encode() not in raw_store_bytes(new, tmp_path).lower()
    assert MARKER.encode() in raw_store_bytes(old, tmp_path).lower()
