"""Forgetting (issue 26) on memory, SQLite and PostgreSQL: tests/forgetting_conformance.py."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.forgetting_conformance import ForgettingConformance
from tests.stores import postgres_schema_url, sqlite_url


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
