"""Store URLs: which persistence module the log uses and which adapter the read model.

``memory://`` (one process), ``sqlite:///PATH`` (the embedded default; four slashes for
an absolute path) and ``postgresql://user[:password]@host[:port]/db[?schema=NAME]``.

A PostgreSQL URL's parts, percent-decoded, reach psycopg as keyword arguments
(``StoreSpec.pg_connect``) and eventsourcing as its separate settings, never pasted into
a libpq conninfo string: there ``db%20port=1`` would be read as a second ``port``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from memory_es.errors import StoreUnavailable

DEFAULT_STORE = "sqlite:///./.memory_es/memory.db"
# The database a PostgreSQL store is shown with everywhere a user copies a URL from.
DEFAULT_DATABASE = "memory_es"
NO_DATABASE_FIX = f"postgresql://USER@HOST:PORT/{DEFAULT_DATABASE}"


@dataclass(frozen=True)
class StoreSpec:
    kind: str  # "memory" | "sqlite" | "postgres"
    url: str
    env: dict[str, str] = field(default_factory=dict)
    sqlite_path: str = ""
    # psycopg.connect(**pg_connect): host, port, dbname, user, password, connect_timeout.
    pg_connect: dict[str, Any] = field(default_factory=dict)
    pg_schema: str = "public"

    @property
    def persistent(self) -> bool:
        return self.kind != "memory"

    @property
    def display(self) -> str:
        """The URL without any password, for messages."""
        parts = urlsplit(self.url)
        if parts.password is None:
            return self.url
        netloc = parts.netloc.replace(f":{parts.password}@", ":***@")
        return parts._replace(netloc=netloc).geturl()


class StoreMissing(StoreUnavailable):
    """A command that creates nothing new (a read, or a write to what must exist) was
    pointed at a place that holds no store: it says so rather than leave an empty one."""

    def __init__(self, spec: StoreSpec) -> None:
        super().__init__(
            f"no store at {spec.display}: this command never creates one"
            " (check --store or MEMORY_ES_STORE)"
        )


def prepare_store(spec: StoreSpec) -> None:
    """Make the place a new store goes: a SQLite file's folder."""
    if spec.kind != "sqlite":
        return
    path = Path(spec.sqlite_path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise StoreUnavailable(f"cannot create the folder for {path}: {error.strerror}") from None


def holds_store(spec: StoreSpec, application: str) -> bool:
    """Whether ``spec`` already holds the log of the eventsourcing application named
    ``application`` (``memory://`` always does: it is created with its process). Checked
    without writing anything; a driver error goes up for the caller to translate."""
    if spec.kind == "memory":
        return True
    if spec.kind == "sqlite":
        import sqlite3
        from contextlib import closing

        path = Path(spec.sqlite_path)
        if not path.is_file():
            return False
        with closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)) as db:
            found = db.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'stored_events'"
            ).fetchone()
        return found is not None
    import psycopg

    # eventsourcing's PostgreSQL recorder names the table after the application (SQLite's
    # is always stored_events).
    with psycopg.connect(**spec.pg_connect) as db:
        row = db.execute(
            "SELECT to_regclass(format('%%I.%%I', %s::text, %s::text))",
            (spec.pg_schema, f"{application.lower()}_events"),
        ).fetchone()
    return row is not None and row[0] is not None


def parse_store_url(url: str) -> StoreSpec:
    url = url.strip()
    if url in ("memory://", "memory:"):
        return StoreSpec(
            kind="memory", url="memory://", env={"PERSISTENCE_MODULE": "eventsourcing.popo"}
        )
    if url.startswith("sqlite://"):
        return _sqlite(url)
    if url.startswith(("postgresql://", "postgres://")):
        return _postgres(url)
    if url.startswith("placement:"):
        raise StoreUnavailable(
            "a placement:/// store spreads principals over several servers: the CLI routes"
            " each command to one; in code, open the server of the principal"
            " (memory_es.placement.routed_server)"
        )
    raise StoreUnavailable(
        f"unsupported store URL {url!r}: use memory://, sqlite:///PATH or postgresql://..."
    )


def _sqlite(url: str) -> StoreSpec:
    if not url.startswith("sqlite:///"):
        raise StoreUnavailable(f"a SQLite URL is sqlite:///PATH, not {url!r}")
    raw = unquote(url[len("sqlite:///") :])
    if not raw or raw == ":memory:":
        raise StoreUnavailable(
            "sqlite:///:memory: gives every connection its own empty database;"
            " use memory:// for an in-process store or a file path"
        )
    path = Path(raw)
    return StoreSpec(
        kind="sqlite",
        url=url,
        sqlite_path=str(path),
        env={
            "PERSISTENCE_MODULE": "memory_es.es_internals:ImmediateSQLiteFactory",
            "SQLITE_DBNAME": str(path),
            "SQLITE_LOCK_TIMEOUT": "30",
        },
    )


def _port(netloc: str) -> int:
    """The URL's port (5432 if none); a usage error unless a number in 1..65535."""
    hostport = netloc.rpartition("@")[2]
    text = hostport.rpartition("]")[2] if hostport.startswith("[") else hostport
    _, colon, raw = text.rpartition(":")
    if not colon or raw == "":
        return 5432
    if not (raw.isascii() and raw.isdigit()) or not 1 <= int(raw) <= 65535:
        raise StoreUnavailable(f"a PostgreSQL URL's port is a number from 1 to 65535, not {raw!r}")
    return int(raw)


def _postgres(url: str) -> StoreSpec:
    parts = urlsplit(url)
    query = parse_qs(parts.query)
    schema = query.get("schema", ["public"])[0] or "public"
    dbname = unquote(parts.path.lstrip("/"))
    if not dbname:
        # libpq would fall back to the server's own `postgres` database and the store's
        # tables would land among the server's.
        raise StoreUnavailable(
            f"a PostgreSQL URL names its database: {NO_DATABASE_FIX}"
            f" (create it once: createdb {DEFAULT_DATABASE})"
        )
    host = unquote(parts.hostname or "127.0.0.1")
    port = _port(parts.netloc)
    user = unquote(parts.username or "postgres")
    password = unquote(parts.password or "")
    connect: dict[str, Any] = {
        "host": host,
        "port": port,
        "dbname": dbname,
        "user": user,
        "connect_timeout": 5,
    }
    if password:
        connect["password"] = password
    return StoreSpec(
        kind="postgres",
        url=url,
        pg_connect=connect,
        pg_schema=schema,
        env={
            "PERSISTENCE_MODULE": "eventsourcing.postgres",
            "POSTGRES_DBNAME": dbname,
            "POSTGRES_HOST": host,
            "POSTGRES_PORT": str(port),
            "POSTGRES_USER": user,
            "POSTGRES_PASSWORD": password,
            "POSTGRES_SCHEMA": schema,
            "POSTGRES_CONNECT_TIMEOUT": "5",
            "POSTGRES_POOL_SIZE": "2",
            "POSTGRES_MAX_OVERFLOW": "8",
        },
    )
