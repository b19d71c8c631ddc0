"""Store URLs for the tests: memory, a fresh SQLite file, a fresh PostgreSQL schema.

The PostgreSQL lane uses MEMORY_ES_TEST_POSTGRES_URL (default: the local trust-auth
server). Without a server its tests skip with the reason — unless
MEMORY_ES_REQUIRE_POSTGRES=1 (CI), where a missing server is a failure.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path

import psycopg
import pytest

# The tests' own database, never the server's `postgres` (.ci/run creates it when missing).
DEFAULT_PG_URL = "postgresql://postgres@127.0.0.1:5432/memory_es_test"


def postgres_base_url() -> str:
    return os.environ.get("MEMORY_ES_TEST_POSTGRES_URL", DEFAULT_PG_URL)


def _connect(url: str) -> dict[str, object]:
    """psycopg's keyword arguments for the URL (never a conninfo string)."""
    from memory_es.stores import parse_store_url

    return parse_store_url(url).pg_connect


@cache
def postgres_unavailable_reason() -> str | None:
    url = postgres_base_url()
    try:
        with psycopg.connect(**{**_connect(url), "connect_timeout": 3}):
            return None
    except psycopg.Error as error:
        return (
            f"no PostgreSQL at {url} ({str(error).strip().splitlines()[0]});"
            " a missing database: createdb it, or set MEMORY_ES_TEST_POSTGRES_URL"
        )


def require_postgres() -> None:
    reason = postgres_unavailable_reason()
    if reason is None:
        return
    if os.environ.get("MEMORY_ES_REQUIRE_POSTGRES") == "1":
        pytest.fail(f"the PostgreSQL lane is required here: {reason}")
    pytest.skip(reason)


@contextmanager
def postgres_schema_url() -> Iterator[str]:
    """A PostgreSQL URL whose schema is fresh, dropped afterwards."""
    require_postgres()
    schema = f"t_{uuid.uuid4().hex[:12]}"
    base = postgres_base_url()
    separator = "&" if "?" in base else "?"
    try:
        yield f"{base}{separator}schema={schema}"
    finally:
        with psycopg.connect(**_connect(base), autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


def sqlite_url(tmp_path: Path, name: str = "memory.db") -> str:
    return f"sqlite:///{tmp_path / name}"


@contextmanager
def store_url(kind: str, tmp_path: Path) -> Iterator[str]:
    if kind == "memory":
        yield "memory://"
    elif kind == "sqlite":
        yield sqlite_url(tmp_path)
    elif kind == "postgres":
        with postgres_schema_url() as url:
            yield url
    else:  # pragma: no cover
        raise ValueError(kind)
