"""Forgetting (issue 26) on memory, SQLite and PostgreSQL: tests/forgetting_conformance.py."""

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


def test_the_cli_forgets_and_no_output_shows_the_marker(
    capsys: pytest.CaptureFixture[str], persistent_store_url: str, tmp_path: Path
) -> None:
    url = persistent_store_url
    code, session, _ = run(capsys, url, "session", "open", "--principal", "ana")
    session = session.strip()
    run(capsys, url, "session", "say", session, SECRET_TURN)
    run(capsys, url, "session", "close", session)
    code, _, err = run(capsys, url, "memory", "forget")
    assert code == 2 and "one of the arguments" in err
    code, dry, _ = run(capsys, url, "memory", "forget", "--session", session, "--json")
    assert code == 0 and json.loads(dry)["confirmed"] is False
    assert MARKER in dry.lower()  # a dry run shows what would go, before anything does
    outputs = [
        run(capsys, url, *args)[1]
        for args in (
            ("memory", "forget", "--session", session, "--confirm", "--reason", "asked"),
            ("recall", "--principal", "ana", "--json", "where do I live"),
            ("memory", "list", "--principal", "ana", "--json"),
            ("log", "export", str(tmp_path / "log.jsonl")),
            ("log", "export", "--decrypted", str(tmp_path / "opened.jsonl")),
            ("projections", "rebuild"),
            ("memory", "rederive", "--all", "--confirm"),
            ("recall", "--principal", "ana", "where do I live"),
        )
    ]
    outputs += [(tmp_path / n).read_text() for n in ("log.jsonl", "opened.jsonl")]
    assert all(MARKER not in o.lower() for o in outputs)
    assert MARKER.encode() not in raw_store_bytes(url, tmp_path).lower()
