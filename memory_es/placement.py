"""Principals spread over several servers: the placement file and its URL.

A placement store is named ``placement:///PATH`` (four slashes for an absolute path, as
``sqlite:///``): PATH is a JSON file naming the servers, each an ordinary store URL
(PostgreSQL in production) with its own log, read model and key table::

    {"format": "memory-es-placement", "version": 1,
     "servers": {"pg1": "postgresql://postgres@10.0.0.1:5432/memory_es", "pg2": "..."},
     "hashed": ["pg1", "pg2"],
     "principals": {"default/alice": "pg1"},
     "moving": {}}

A principal lives on exactly one server. The first command that writes for it places it
by a stable hash of its key over the ``hashed`` servers (rendezvous hashing: sha256 of
server name and key, highest wins) and records the choice under ``principals`` before
anything is written there. From then on the record decides, never the hash: adding a
server (``shards add``) changes where new principals go and moves no existing one;
moving one is ``shards move`` (memory_es/principal_move.py), which marks it under
``moving`` while it runs so that no command writes it mid-move.

The file is rewritten whole (a temporary file renamed over it) under an exclusive lock
on ``PATH.lock``, so concurrent processes that place principals never lose a record.
This is not libpq's multi-host URL: that names one database's failover replicas.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import orjson

from memory_es.errors import InvalidInput, StoreUnavailable, UsageError

PLACEMENT_SCHEME = "placement:"
PLACEMENT_FORMAT = "memory-es-placement"
PLACEMENT_VERSION = 1
SERVER_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")


def is_placement_url(url: str) -> bool:
    return url.strip().startswith(PLACEMENT_SCHEME)


def placement_path(url: str) -> Path:
    """The placement file a ``placement:///PATH`` URL names."""
    url = url.strip()
    if not url.startswith("placement:///") or len(url) == len("placement:///"):
        raise UsageError(f"a placement URL is placement:///PATH (a JSON file), not {url!r}")
    return Path(url[len("placement:///") :])


def rendezvous(key: str, servers: tuple[str, ...]) -> str:
    """The server a principal's key hashes to: the same answer on every machine and
    every run (no process-seeded hash), and adding a server takes only the keys that
    now hash to it."""
    if not servers:
        raise UsageError("the placement file hashes new principals over no server")

    def weight(server: str) -> bytes:
        return hashlib.sha256(f"{server}\0{key}".encode()).digest()

    return max(servers, key=lambda s: (weight(s), s))


@dataclass(frozen=True)
class Placement:
    """The placement file's content (validated)."""

    servers: dict[str, str]  # name -> store URL
    hashed: tuple[str, ...]  # where new principals are placed
    principals: dict[str, str] = field(default_factory=dict)  # recorded: key -> server
    moving: dict[str, str] = field(default_factory=dict)  # key -> the server it moves to

    def server_of(self, key: str) -> str:
        """The principal's server: its record, else where it would be placed now."""
        return self.principals.get(key) or rendezvous(key, self.hashed)

    def url(self, server: str) -> str:
        try:
            return self.servers[server]
        except KeyError:
            raise UsageError(
                f"no server {server!r} in the placement file: {', '.join(self.servers)}"
            ) from None

    def as_json(self) -> dict[str, Any]:
        return {
            "format": PLACEMENT_FORMAT,
            "version": PLACEMENT_VERSION,
            "servers": self.servers,
            "hashed": list(self.hashed),
            "principals": dict(sorted(self.principals.items())),
            "moving": dict(sorted(self.moving.items())),
        }


def _check_url(name: str, url: Any) -> str:
    from memory_es.stores import parse_store_url

    if not isinstance(url, str):
        raise InvalidInput(f"server {name!r}: its URL is a string")
    try:
        spec = parse_store_url(url)
    except StoreUnavailable as error:
        raise InvalidInput(f"server {name!r}: {error}") from None
    if not spec.persistent:
        raise InvalidInput(f"server {name!r}: memory:// lives in one process")
    return url


def parse_placement(value: Any, where: str) -> Placement:
    if not isinstance(value, dict) or value.get("format") != PLACEMENT_FORMAT:
        raise InvalidInput(f"{where}: not a memory-es placement file")
    if value.get("version") != PLACEMENT_VERSION:
        raise InvalidInput(f"{where}: placement version {PLACEMENT_VERSION} expected")
    servers = value.get("servers")
    if not isinstance(servers, dict) or not servers:
        raise InvalidInput(f"{where}: servers names at least one server")
    for name in servers:
        if not SERVER_NAME.match(name):
            raise InvalidInput(f"{where}: server name {name!r} is not [a-z0-9_-], 1-40")
    checked = {name: _check_url(name, url) for name, url in servers.items()}
    hashed = tuple(value.get("hashed", list(checked)))
    principals = value.get("principals", {})
    moving = value.get("moving", {})
    if not isinstance(principals, dict) or not isinstance(moving, dict):
        raise InvalidInput(f"{where}: principals and moving map a principal to a server")
    for name in (*hashed, *principals.values(), *moving.values()):
        if name not in checked:
            raise InvalidInput(f"{where}: {name!r} is not one of the servers")
    return Placement(checked, hashed, dict(principals), dict(moving))


def load_placement(path: Path) -> Placement:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise StoreUnavailable(
            f"no placement file at {path} (create one: memory-es shards init)"
        ) from None
    except OSError as error:
        raise StoreUnavailable(f"cannot read {path}: {error.strerror}") from None
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        raise InvalidInput(f"{path}: not JSON") from None
    return parse_placement(value, str(path))


def write_placement(path: Path, placement: Placement) -> None:
    """Rewrite the file whole: a reader sees the old file or the new, never half."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_bytes(orjson.dumps(placement.as_json(), option=orjson.OPT_INDENT_2) + b"\n")
    os.replace(temporary, path)


@contextmanager
def locked(path: Path) -> Iterator[None]:
    """The placement file's exclusive lock (a sidecar file: the file itself is replaced)."""
    with path.with_name(path.name + ".lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def update_placement(path: Path, change: Callable[[Placement], Placement]) -> Placement:
    """Read, change and write the file under its lock; returns what was written."""
    with locked(path):
        changed = change(load_placement(path))
        write_placement(path, changed)
        return changed


def place(path: Path, key: str) -> str:
    """The principal's server, recorded before its first write (module doc)."""
    found = load_placement(path).principals.get(key)
    if found is not None:
        return found

    def record(placement: Placement) -> Placement:
        if key in placement.principals:
            return placement
        chosen = rendezvous(key, placement.hashed)
        return replace(placement, principals={**placement.principals, key: chosen})

    return update_placement(path, record).principals[key]


def init_placement(path: Path, servers: dict[str, str]) -> Placement:
    """A new placement file over ``servers``, every one hashed; refuses to overwrite."""
    placement = parse_placement(
        {"format": PLACEMENT_FORMAT, "version": PLACEMENT_VERSION, "servers": servers},
        str(path),
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    with locked(path):
        if path.exists():
            raise UsageError(f"{path} exists already: add servers with `shards add`")
        write_placement(path, placement)
    return placement


def add_server(path: Path, name: str, url: str, held: dict[str, set[str]]) -> Placement:
    """Add a server new principals may hash to. ``held``: the principals each existing
    server holds now; any not yet recorded is recorded where it is, so the new hash
    moves no one (a record lost to an old copy of the file is restored, not guessed)."""
    if not SERVER_NAME.match(name):
        raise UsageError(f"server name {name!r} is not [a-z0-9_-], 1-40 characters")

    def add(placement: Placement) -> Placement:
        if name in placement.servers:
            raise UsageError(f"server {name!r} is in the placement file already")
        principals = dict(placement.principals)
        for server, keys in sorted(held.items()):
            for key in sorted(keys):
                principals.setdefault(key, server)
        return parse_placement(
            {
                **placement.as_json(),
                "servers": {**placement.servers, name: url},
                "hashed": [*placement.hashed, name],
                "principals": principals,
            },
            str(path),
        )

    return update_placement(path, add)


class PrincipalMoving(StoreUnavailable):
    """A command for a principal that ``shards move`` is carrying to another server."""

    def __init__(self, key: str, source: str, target: str) -> None:
        super().__init__(
            f"principal {key} is moving from server {source} to {target}: retry when"
            " `memory-es shards move` has finished"
        )


def routed_server(path: Path, key: str, *, record: bool) -> tuple[str, str]:
    """(server name, store URL) for a command on the principal: ``record`` for a
    command that writes (the first one places it)."""
    placement = load_placement(path)
    server = place(path, key) if record else placement.server_of(key)
    if key in placement.moving:
        raise PrincipalMoving(key, server, placement.moving[key])
    return server, placement.url(server)


def holds_originator(url: str, originator: str) -> bool:
    """Whether the store at ``url`` holds an event of the aggregate ``originator`` (one
    indexed lookup: the log's primary key starts with the originator id). A store with
    no log yet holds none; a server that cannot be reached raises StoreUnavailable."""
    from uuid import UUID

    from memory_es.stores import parse_store_url

    spec = parse_store_url(url)
    try:
        wanted = UUID(originator)
    except ValueError:
        return False
    if spec.kind == "sqlite":
        import sqlite3
        from contextlib import closing

        if not Path(spec.sqlite_path).is_file():
            return False
        uri = f"{Path(spec.sqlite_path).resolve().as_uri()}?mode=ro"
        with closing(sqlite3.connect(uri, uri=True)) as db:
            try:
                # eventsourcing's SQLite recorder keeps the id as 32 hex digits.
                row = db.execute(
                    "SELECT 1 FROM stored_events WHERE originator_id = ? LIMIT 1", (wanted.hex,)
                ).fetchone()
            except sqlite3.OperationalError:
                return False  # no log table yet
        return row is not None
    import psycopg

    from memory_es.bootstrap import MemoryApplication

    table = f"{MemoryApplication.name.lower()}_events"
    try:
        with psycopg.connect(**spec.pg_connect) as db:
            found = db.execute(
                "SELECT to_regclass(format('%%I.%%I', %s::text, %s::text))",
                (spec.pg_schema, table),
            ).fetchone()
            if found is None or found[0] is None:
                return False
            row = db.execute(
                f'SELECT 1 FROM "{spec.pg_schema}"."{table}" WHERE originator_id = %s LIMIT 1',
                (wanted,),
            ).fetchone()
    except psycopg.OperationalError as error:
        reason = str(error).strip().splitlines()[-1] if str(error).strip() else repr(error)
        raise StoreUnavailable(f"cannot reach {spec.display}: {reason}") from None
    return row is not None
