"""The key store of crypto-shredding: data keys outside the log, wrapped per principal.

User-derived text in events is sealed (memory_es/sealing.py) under a *data key*; each
data key is stored wrapped (AES-GCM, its id as associated data) by its owner's *key
encryption key* (one per principal). Forgetting destroys keys: a data key's row (a turn,
a belief), or a principal's every row and its key encryption key. A payload whose key
is gone can never be read again, from the log, a backup or an export.

Three ports keep the choices an operator's:

- ``KeySource``: where key material and nonces come from (the system's random source in
  production; a seeded sequence in tests and the deterministic benchmark).
- ``KeyTable``: where the rows live. By default a table in the same store
  (``memory_es_keys``: in memory, SQLite, PostgreSQL); a KMS is one more adapter.
- ``KeyRing``: the one implementation of wrapping, caching and destroying over a table.

A table in the store's own database (SQLite, PostgreSQL) also writes rows on the event
store's cursor (``write_rows``): the data keys a save creates are inserted in the save's
own transaction (memory_es/es_internals.py, ``KeyRowsWithEvents``), one commit for the
keys and the events they seal, so a key never outlives a failed save nor a sealed event
its key. A table without ``write_rows`` (a KMS) gets its rows before the save, in an
insert of their own.

Keys never reach an event, an export of the log, a trace or a log line: ``keys export``
(``KeyRing.export_rows``) is the only way out, and it says so.
"""

from __future__ import annotations

import base64
import hashlib
import os
import sqlite3
import threading
import weakref
from collections import OrderedDict
from collections.abc import Collection, Container, Iterable, Sequence
from functools import partial
from operator import itemgetter
from pathlib import Path
from typing import Any, NamedTuple, Protocol, cast

import orjson
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from eventsourcing.persistence import RecordConflictError

KEY_BYTES = 32  # AES-256
NONCE_BYTES = 12  # AES-GCM's standard nonce
KEK_PREFIX = "kek:"  # a principal's key encryption key: kek:<owner>
# A stored box or wrapped key (nonce then ciphertext) split, at C speed over a page's.
nonce_of = itemgetter(slice(None, NONCE_BYTES))
sealed_of = itemgetter(slice(NONCE_BYTES, None))


class KeySource(Protocol):
    """Key material and nonces (a port: random in production, seeded in tests)."""

    def new_key(self) -> bytes: ...

    def new_nonce(self) -> bytes: ...


class RandomKeys:
    """The operating system's random source. A save's keys and nonces are drawn in one
    read each (``new_keys_and_nonces``, ``new_nonces``: the same source, one system call
    for many, where each cost one); nothing is drawn ahead and kept."""

    def new_key(self) -> bytes:
        return os.urandom(KEY_BYTES)

    def new_nonce(self) -> bytes:
        return os.urandom(NONCE_BYTES)

    def new_keys_and_nonces(self, count: int) -> list[tuple[bytes, bytes]]:
        drawn = os.urandom(count * (KEY_BYTES + NONCE_BYTES))
        step = KEY_BYTES + NONCE_BYTES
        return [
            (drawn[at : at + KEY_BYTES], drawn[at + KEY_BYTES : at + step])
            for at in range(0, len(drawn), step)
        ]

    def new_nonces(self, count: int) -> list[bytes]:
        drawn = os.urandom(count * NONCE_BYTES)
        return [drawn[at : at + NONCE_BYTES] for at in range(0, len(drawn), NONCE_BYTES)]


def _keys_and_nonces(source: KeySource, count: int) -> list[tuple[bytes, bytes]]:
    """``count`` (key, nonce) pairs, in one draw when the source can (``RandomKeys``),
    else drawn one by one in that order (a seeded source's sequence as it always was)."""
    batch = getattr(source, "new_keys_and_nonces", None)
    if batch is not None:
        return cast(list[tuple[bytes, bytes]], batch(count))
    return [(source.new_key(), source.new_nonce()) for _ in range(count)]


def _nonces(source: KeySource, count: int) -> list[bytes]:
    batch = getattr(source, "new_nonces", None)
    if batch is not None:
        return cast(list[bytes], batch(count))
    return [source.new_nonce() for _ in range(count)]


# Ciphers kept ready for data keys used again (a snapshot's state key, a session's
# rendering key); most data keys seal and open one box each, so the bound is small: a
# cipher holds its key schedule (~2.4 KB).
CIPHER_CACHE_MAX = 256
# The rings of this process: a forked child drops what their threads had reserved.
_RINGS: weakref.WeakSet[KeyRing] = weakref.WeakSet()


def _after_fork_in_child() -> None:
    for ring in list(_RINGS):
        ring._forget_reserved()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


class SeededKeys:
    """A reproducible sequence (tests, the deterministic benchmark): two runs of the same
    commit write byte-identical stores. Never for production: anyone who knows the seed
    derives every key."""

    def __init__(self, seed: str = "memory_es") -> None:
        self._seed = seed.encode()
        self._count = 0
        self._lock = threading.Lock()

    def _next(self, kind: bytes, size: int) -> bytes:
        with self._lock:
            self._count += 1
            counter = self._count.to_bytes(8, "big")
        return hashlib.sha256(self._seed + kind + counter).digest()[:size]

    def new_key(self) -> bytes:
        return self._next(b"key", KEY_BYTES)

    def new_nonce(self) -> bytes:
        return self._next(b"nonce", NONCE_BYTES)


class KeyRow(NamedTuple):
    """One stored key: a key encryption key's raw material, or a data key wrapped by
    its owner's key encryption key (nonce then ciphertext). A tuple (not a frozen
    dataclass): a rebuild reads one a belief, and a table builds them from its rows at C
    speed (``_key_rows``), where a frozen dataclass's ``__init__`` cost ~5k instructions."""

    key_id: str
    owner: str  # the principal identity (tenant/principal) whose forgetting destroys it
    material: bytes


def _key_rows(found: Iterable[Sequence[Any]]) -> list[KeyRow]:
    """``KeyRow`` of each (key id, owner, material) row, as ``KeyRow._make`` without
    its Python frame a row (the material must be ``bytes`` already)."""
    return cast(list[KeyRow], list(map(_new_row, found)))


_new_row = partial(tuple.__new__, KeyRow)


class KeyTable(Protocol):
    """Where key rows live (a port: an operator's KMS adapter implements it)."""

    def select(self, key_ids: Collection[str]) -> list[KeyRow]: ...

    def select_owner(self, owner: str) -> list[KeyRow]: ...

    def select_owned(self, owner: str, key_ids: Collection[str]) -> list[tuple[str, bytes]]:
        """(key id, material) of the rows among ``key_ids`` that are the owner's, in any
        order: a page's keys, read without a ``KeyRow`` or an owner's text a row."""

    def select_all(self) -> list[KeyRow]: ...

    def insert(self, rows: Sequence[KeyRow]) -> int:
        """Insert the rows in one transaction; a key id already stored keeps its row.
        Returns how many rows were inserted."""

    def delete(self, key_ids: Collection[str]) -> int: ...

    def delete_owner(self, owner: str) -> int: ...

    def size_bytes(self) -> int:
        """The bytes the rows hold (ids, owners, material): the key store's size."""

    def close(self) -> None: ...


class TransactionalKeyTable(KeyTable, Protocol):
    """A key table in the event store's own database: it inserts rows on the event
    store's cursor, inside the transaction that appends the events they seal."""

    def write_rows(self, cursor: Any, rows: Sequence[KeyRow]) -> None:
        """Insert the rows on ``cursor`` (a plain insert: an id stored already fails the
        transaction, and ``KeyRing.settle_failed`` finds out whose it is)."""


class KeyRowConflict(RecordConflictError):
    """A save's new data key was stored meanwhile by another writer: the save's
    transaction was rolled back, and the retry loop runs it again with the stored key."""


def _size(rows: Iterable[KeyRow]) -> int:
    return sum(len(r.key_id.encode()) + len(r.owner.encode()) + len(r.material) for r in rows)


class MemoryKeyTable:
    """The key table of a ``memory://`` store (one process, like its log)."""

    def __init__(self) -> None:
        self._rows: dict[str, KeyRow] = {}
        self._lock = threading.Lock()

    def select(self, key_ids: Collection[str]) -> list[KeyRow]:
        return [self._rows[k] for k in key_ids if k in self._rows]

    def select_owner(self, owner: str) -> list[KeyRow]:
        return [r for r in self._rows.values() if r.owner == owner]

    def select_owned(self, owner: str, key_ids: Collection[str]) -> list[tuple[str, bytes]]:
        rows = [self._rows.get(k) for k in key_ids]
        return [(r.key_id, r.material) for r in rows if r is not None and r.owner == owner]

    def select_all(self) -> list[KeyRow]:
        return list(self._rows.values())

    def insert(self, rows: Sequence[KeyRow]) -> int:
        with self._lock:
            before = len(self._rows)
            for row in rows:
                self._rows.setdefault(row.key_id, row)
            return len(self._rows) - before

    def delete(self, key_ids: Collection[str]) -> int:
        with self._lock:
            return sum(self._rows.pop(k, None) is not None for k in key_ids)

    def delete_owner(self, owner: str) -> int:
        return self.delete([r.key_id for r in self.select_owner(owner)])

    def size_bytes(self) -> int:
        return _size(self._rows.values())

    def close(self) -> None:
        pass


_TABLE = "memory_es_keys"
_CREATE = (
    f"CREATE TABLE IF NOT EXISTS {_TABLE} (key_id TEXT PRIMARY KEY, owner TEXT NOT NULL,"
    " material {blob} NOT NULL)"
)
_CREATE_OWNER = f"CREATE INDEX IF NOT EXISTS {_TABLE}_owner ON {_TABLE} (owner)"
_COLUMNS = "key_id, owner, material"
# The ids to read as one JSON array, walked by SQLite's json_each: one bound parameter
# and one index seek an id, where 500-parameter IN lists were bound and sorted into an
# ephemeral index first (a cold rebuild reads a key a belief).
_BY_IDS = f"FROM json_each(?) AS wanted CROSS JOIN {_TABLE} AS k ON k.key_id = wanted.value"
_IN_LIMIT = 500  # SQLite's bound-parameter limit, for a SQLite without json_each


class SqliteKeyTable:
    """``memory_es_keys`` in the store's SQLite file, on its own connection.

    ``secure_delete`` makes SQLite overwrite a deleted row's bytes with zeros, so a
    destroyed key does not linger in a free page of the file or its WAL."""

    def __init__(self, path: str) -> None:
        self._db = sqlite3.connect(path, timeout=30, check_same_thread=False, isolation_level=None)
        self._lock = threading.Lock()
        with self._lock:
            self._db.execute("PRAGMA secure_delete = ON")
            self._db.execute("PRAGMA journal_mode = WAL")
            # The connection's own level, restored after each ``insert_before_use``.
            self._synchronous = int(self._db.execute("PRAGMA synchronous").fetchone()[0])
            self._db.execute(_CREATE.format(blob="BLOB"))
            self._db.execute(_CREATE_OWNER)
            try:
                self._db.execute("SELECT count(*) FROM json_each('[]')")
                self._json_each = True
            except sqlite3.OperationalError:  # built without JSON (before 3.38, an option)
                self._json_each = False

    def _fetch(self, sql: str, params: Sequence[Any]) -> list[Any]:
        with self._lock:
            return self._db.execute(sql, params).fetchall()

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[KeyRow]:
        return _key_rows(self._fetch(sql, params))  # a BLOB column reads as bytes

    def _by_ids(
        self, columns: str, key_ids: Collection[str], where: str = "", params: Sequence[Any] = ()
    ) -> list[Any]:
        """The rows of ``key_ids`` (``columns`` of ``k``, ``where`` more conditions on
        it with their ``params``), in one query (in chunks without json_each)."""
        also = f" AND {where}" if where else ""
        if self._json_each:
            ids = orjson.dumps(list(key_ids)).decode()
            return self._fetch(f"SELECT {columns} {_BY_IDS}{also}", [ids, *params])
        listed, found = list(key_ids), []
        for start in range(0, len(listed), _IN_LIMIT - len(params)):
            chunk = listed[start : start + _IN_LIMIT - len(params)]
            marks = ", ".join("?" for _ in chunk)
            found += self._fetch(
                f"SELECT {columns} FROM {_TABLE} AS k WHERE k.key_id IN ({marks}){also}",
                [*chunk, *params],
            )
        return found

    def select(self, key_ids: Collection[str]) -> list[KeyRow]:
        return _key_rows(self._by_ids("k.key_id, k.owner, k.material", key_ids))

    def select_owned(self, owner: str, key_ids: Collection[str]) -> list[tuple[str, bytes]]:
        return self._by_ids("k.key_id, k.material", key_ids, "k.owner = ?", [owner])

    def select_owner(self, owner: str) -> list[KeyRow]:
        return self._rows(f"SELECT {_COLUMNS} FROM {_TABLE} WHERE owner = ?", [owner])

    def select_all(self) -> list[KeyRow]:
        return self._rows(f"SELECT {_COLUMNS} FROM {_TABLE} ORDER BY key_id")

    def insert(self, rows: Sequence[KeyRow]) -> int:
        with self._lock:
            return self._insert(rows)

    def _insert(self, rows: Sequence[KeyRow]) -> int:
        """``insert``, called under the lock."""
        self._db.execute("BEGIN IMMEDIATE")
        try:
            cursor = self._db.executemany(
                f"INSERT OR IGNORE INTO {_TABLE} ({_COLUMNS}) VALUES (?, ?, ?)",
                [(r.key_id, r.owner, r.material) for r in rows],
            )
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")
        return cursor.rowcount

    def insert_before_use(self, rows: Sequence[KeyRow]) -> int:
        """``insert`` committed without a sync of its own (``synchronous = NORMAL`` for
        this one commit), for rows only later writes depend on: a key encryption key.
        Every key it wraps is written after it, by a commit that syncs the store's WAL,
        and a WAL is synced and recovered in order: the row is durable before the first
        key it wraps is (a principal's first save paid a second fsync for it)."""
        with self._lock:
            self._db.execute("PRAGMA synchronous = NORMAL")
            try:
                return self._insert(rows)
            finally:
                self._db.execute(f"PRAGMA synchronous = {self._synchronous}")

    def write_rows(self, cursor: Any, rows: Sequence[KeyRow]) -> None:
        # A KeyRow is the (key id, owner, material) tuple the insert binds: no copy a row.
        # A say's one row is one execute (executemany's batch machinery is for many).
        statement = f"INSERT INTO {_TABLE} ({_COLUMNS}) VALUES (?, ?, ?)"
        if len(rows) == 1:
            cursor.execute(statement, rows[0])
        else:
            cursor.executemany(statement, rows)

    def delete(self, key_ids: Collection[str]) -> int:
        with self._lock:
            cursor = self._db.executemany(
                f"DELETE FROM {_TABLE} WHERE key_id = ?", [(k,) for k in key_ids]
            )
            return cursor.rowcount

    def delete_owner(self, owner: str) -> int:
        with self._lock:
            return self._db.execute(f"DELETE FROM {_TABLE} WHERE owner = ?", [owner]).rowcount

    def size_bytes(self) -> int:
        return _size(self.select_all())

    def close(self) -> None:
        with self._lock:
            self._db.close()


class PostgresKeyTable:
    """``memory_es_keys`` in the store's PostgreSQL schema."""

    def __init__(self, connect: dict[str, Any], schema: str) -> None:
        import psycopg
        from psycopg import sql

        self._sql = sql
        self._table = sql.Identifier(schema, _TABLE)
        self._connect = connect
        self._db = psycopg.connect(**connect, autocommit=True)
        self._lock = threading.Lock()
        with self._lock:
            self._db.execute(
                sql.SQL(
                    "CREATE TABLE IF NOT EXISTS {} (key_id TEXT PRIMARY KEY,"
                    " owner TEXT NOT NULL, material BYTEA NOT NULL)"
                ).format(self._table)
            )
            self._db.execute(
                sql.SQL("CREATE INDEX IF NOT EXISTS {} ON {} (owner)").format(
                    sql.Identifier(f"{_TABLE}_owner"), self._table
                )
            )

    def _live(self) -> Any:
        """The connection, opened again if the server dropped it (the read model's pool
        survives a dropped connection; so does the key table). Called under the lock."""
        import psycopg

        if self._db.closed or self._db.broken:
            self._db = psycopg.connect(**self._connect, autocommit=True)
        return self._db

    def _run(self, statement: Any, params: Sequence[Any]) -> Any:
        """Execute once, and once more on a fresh connection if this one was dropped."""
        import psycopg

        try:
            return self._live().execute(statement, params)
        except psycopg.OperationalError:
            self._db.close()
            return self._live().execute(statement, params)

    def _rows(self, where: str, params: Sequence[Any]) -> list[KeyRow]:
        statement = self._sql.SQL(f"SELECT {_COLUMNS} FROM {{}} {where}").format(self._table)
        with self._lock:
            found = self._run(statement, params).fetchall()
        return [KeyRow(k, o, bytes(m)) for k, o, m in found]

    def select(self, key_ids: Collection[str]) -> list[KeyRow]:
        return self._rows("WHERE key_id = ANY(%s)", [list(key_ids)])

    def select_owned(self, owner: str, key_ids: Collection[str]) -> list[tuple[str, bytes]]:
        statement = self._sql.SQL(
            "SELECT key_id, material FROM {} WHERE key_id = ANY(%s) AND owner = %s"
        ).format(self._table)
        with self._lock:
            found = self._run(statement, [list(key_ids), owner]).fetchall()
        return [(k, bytes(m)) for k, m in found]

    def select_owner(self, owner: str) -> list[KeyRow]:
        return self._rows("WHERE owner = %s", [owner])

    def select_all(self) -> list[KeyRow]:
        return self._rows("ORDER BY key_id", [])

    def insert(self, rows: Sequence[KeyRow], *, durable: bool = True) -> int:
        statement = self._sql.SQL(
            f"INSERT INTO {{}} ({_COLUMNS}) VALUES (%s, %s, %s) ON CONFLICT (key_id) DO NOTHING"
        ).format(self._table)
        import psycopg

        values = [(r.key_id, r.owner, r.material) for r in rows]

        def attempt() -> int:
            db = self._live()
            with db.transaction(), db.cursor() as cursor:
                if not durable:
                    cursor.execute("SET LOCAL synchronous_commit TO OFF")
                cursor.executemany(statement, values)
                return int(cursor.rowcount)

        with self._lock:
            try:
                return attempt()
            except psycopg.OperationalError:  # dropped: nothing committed, so once more
                self._db.close()
                return attempt()

    def insert_before_use(self, rows: Sequence[KeyRow]) -> int:
        """``insert`` committed asynchronously (``synchronous_commit`` off for this one
        transaction), for rows only later writes depend on: a key encryption key. Every
        key it wraps is written after it, by a synchronous commit, which flushes the WAL
        up to it, this row's record included (SQLite's ``insert_before_use``)."""
        return self.insert(rows, durable=False)

    def write_rows(self, cursor: Any, rows: Sequence[KeyRow]) -> None:
        statement = self._sql.SQL(f"INSERT INTO {{}} ({_COLUMNS}) VALUES (%s, %s, %s)").format(
            self._table
        )
        if len(rows) == 1:  # a say's one row: no pipeline of one (executemany's)
            cursor.execute(statement, tuple(rows[0]))
        else:
            cursor.executemany(statement, [(r.key_id, r.owner, r.material) for r in rows])

    def delete(self, key_ids: Collection[str]) -> int:
        statement = self._sql.SQL("DELETE FROM {} WHERE key_id = ANY(%s)").format(self._table)
        with self._lock:
            return int(self._run(statement, [list(key_ids)]).rowcount)

    def delete_owner(self, owner: str) -> int:
        statement = self._sql.SQL("DELETE FROM {} WHERE owner = %s").format(self._table)
        with self._lock:
            return int(self._run(statement, [owner]).rowcount)

    def size_bytes(self) -> int:
        return _size(self.select_all())

    def close(self) -> None:
        with self._lock:
            self._db.close()


def _grouped(wanted: Sequence[tuple[str, str]], places: list[int]) -> dict[str, list[int]]:
    """The places of ``wanted`` by the owner each asks for."""
    grouped: dict[str, list[int]] = {}
    for i in places:
        grouped.setdefault(wanted[i][1], []).append(i)
    return grouped


class KeyRing:
    """Data keys by id over a key table: created wrapped by the owner's key encryption
    key, cached unwrapped in this process, destroyed on forgetting.

    A key missing from the table (destroyed, or never imported) is ``None``: the sealing
    mapper then yields its placeholder, so replay never fails on a forgotten payload."""

    def __init__(self, table: KeyTable, source: KeySource | None = None) -> None:
        self.table = table
        self.source: KeySource = source or RandomKeys()
        self._keys: dict[str, bytes] = {}  # unwrapped data keys and raw key encryption keys
        self._wrapped: dict[str, KeyRow] = {}  # rows read but not yet unwrapped
        # Each owner's key encryption key as a ready cipher: it wraps and unwraps every
        # data key of the owner (a rebuild unwraps one a belief; the cipher's key setup
        # is most of the cost of one unwrap).
        self._kek_ciphers: dict[str, AESGCM] = {}
        # Data keys' ciphers, ready (``cipher``): bounded, and dropped with their keys.
        self._ciphers: OrderedDict[str, AESGCM] = OrderedDict()
        self._lock = threading.RLock()
        # Rows created for a save and not yet written (per thread: a save's prepare and
        # its insert run on one thread); only when a recorder writes them (with_events).
        self._pending = threading.local()
        # Nonces drawn for a save's boxes (``reserve_nonces``), per thread, each taken once.
        self._reserved = threading.local()
        self._with_events = False
        _RINGS.add(self)

    def nonce(self) -> bytes:
        """A fresh nonce: one reserved for this thread's save, else drawn now."""
        reserved: list[bytes] | None = getattr(self._reserved, "nonces", None)
        if reserved:
            return reserved.pop()
        return self.source.new_nonce()

    def reserve_nonces(self, count: int) -> None:
        """Draw the nonces of a save's ``count`` boxes at once, for this thread's next
        ``nonce`` calls (in the order drawn); any left from an earlier save are dropped
        unused (a nonce is never given twice)."""
        drawn = _nonces(self.source, count) if count else []
        drawn.reverse()  # taken from the end
        self._reserved.nonces = drawn

    def _forget_reserved(self) -> None:
        """In a forked child: the parent's reserved nonces are the parent's to use."""
        self._reserved = threading.local()
        self._pending = threading.local()

    def write_with_events(self) -> bool:
        """Called by an event recorder that inserts ``take_pending()`` in its own
        transaction (es_internals.KeyRowsWithEvents); True when the table can."""
        self._with_events = callable(getattr(self.table, "write_rows", None))
        return self._with_events

    def take_pending(self) -> list[KeyRow]:
        """The rows the last ``ensure(..., with_events=True)`` created on this thread,
        handed to the recorder that writes them with the save's events."""
        rows: list[KeyRow] = getattr(self._pending, "rows", [])
        self._pending.rows = []
        return rows

    def drop_unwritten(self) -> None:
        """Forget the keys of rows still pending on this thread: a save that failed
        before its recorder took them (its sealing raised) wrote none, so no key it
        created may seal anything later (a failed save's taken rows: ``settle_failed``).
        Called by the failed save, and again as the next save prepares."""
        with self._lock:
            stale: list[KeyRow] = getattr(self._pending, "rows", [])
            if stale:
                self._pending.rows = []
                self._drop([row.key_id for row in stale])

    def write_rows(self, cursor: Any, rows: Sequence[KeyRow]) -> None:
        """Insert the rows on the event store's cursor (``TransactionalKeyTable``)."""
        table: TransactionalKeyTable = self.table  # type: ignore[assignment]
        table.write_rows(cursor, rows)

    def settle_failed(self, rows: Sequence[KeyRow]) -> bool:
        """The save that carried ``rows`` failed (rolled back): forget those keys, and
        read back any of their ids another writer stored meanwhile (theirs win). True
        when one was: the failure was a key row's conflict."""
        with self._lock:
            self._drop([row.key_id for row in rows])
            try:
                stored = self.table.select([r.key_id for r in rows])
            except Exception:  # the store is down: the save's own error says so
                return False
            for row in stored:
                self._wrapped[row.key_id] = row
            return bool(stored)

    def ensure(
        self,
        wanted: Iterable[tuple[str, str]],
        *,
        with_events: bool = False,
        fresh: Container[str] = (),
    ) -> None:
        """Make each (key id, owner) exist, creating the missing ones (and their owners'
        key encryption keys); cached for the sealing that follows. Most keys are new by
        construction (a turn's, a belief's): inserted now, they go without a look first,
        and only when some id was stored already are the rows read back. ``with_events``
        (a save's keys, and a recorder writes them): the new rows wait for the save's
        transaction (``take_pending``), and the ids not in ``fresh`` are looked up first
        (a snapshot's key, stored by an earlier save). ``fresh``: the ids new by
        construction (a key sealing one box of an event the save appends), not looked up:
        one stored meanwhile is a lost race (``KeyRowConflict``, run again). The look was
        a query a save: on a 10k-belief store, most of what sealing added to a ``say``."""
        with self._lock:
            if with_events:
                self.drop_unwritten()
            missing = {k: o for k, o in wanted if k not in self._keys and k not in self._wrapped}
            deferred = with_events and self._with_events
            unsure = [k for k in missing if k not in fresh] if deferred else []
            if unsure:
                # A failed insert would roll the save back: look first (one read; only a
                # race between two writers now ends in KeyRowConflict and a retry).
                for stored in self.table.select(unsure):
                    self._wrapped[stored.key_id] = stored
                    del missing[stored.key_id]
            if not missing:
                return
            keks = {owner: self._kek_cipher(owner) for owner in set(missing.values())}
            rows: list[KeyRow] = []
            created: dict[str, bytes] = {}
            drawn = _keys_and_nonces(self.source, len(missing))
            for (key_id, owner), (key, nonce) in zip(missing.items(), drawn, strict=True):
                wrapped = keks[owner].encrypt(nonce, key, key_id.encode())
                rows.append(_new_row((key_id, owner, nonce + wrapped)))
                created[key_id] = key
            if deferred:
                self._keys.update(created)
                self._pending.rows = [*getattr(self._pending, "rows", []), *rows]
                return
            if self.table.insert(rows) == len(rows):
                self._keys.update(created)
                return
            # Some were stored already (another writer, an earlier run): theirs win.
            for row in self.table.select(list(created)):
                self._drop([row.key_id])
                self._wrapped[row.key_id] = row

    def _kek_cipher(self, owner: str) -> AESGCM:
        """The owner's key encryption key as a cipher, the key created if missing."""
        found = self._stored_kek_cipher(owner)
        if found is None:
            found = self._kek_ciphers[owner] = AESGCM(self._new_kek(owner))
        return found

    def _stored_kek_cipher(self, owner: str) -> AESGCM | None:
        """The owner's stored key encryption key as a cipher (None: it has none)."""
        cipher = self._kek_ciphers.get(owner)
        if cipher is None:
            kek = self._kek(owner)
            if kek is None:
                return None
            cipher = self._kek_ciphers[owner] = AESGCM(kek)
        return cipher

    def _new_kek(self, owner: str) -> bytes:
        """Create the owner's key encryption key, alone in its insert: when another
        writer created one first, the stored one is used (every data key of an owner
        must be wrapped by the one key encryption key the table holds)."""
        kek_id = KEK_PREFIX + owner
        made = KeyRow(kek_id, owner, self.source.new_key())
        self._wrapped.pop(kek_id, None)
        self._keys.pop(kek_id, None)
        # Without a sync of its own where the table can (its keys' writes carry it).
        insert = getattr(self.table, "insert_before_use", self.table.insert)
        if insert([made]) == 1:  # ours is the stored one: nothing to read back
            self._keys[kek_id] = made.material
            return made.material
        kek = self._kek(owner)  # read back: the one another writer stored first
        if kek is None:  # pragma: no cover - inserted or stored, so it is there
            raise LookupError(f"no key encryption key for {owner}")
        return kek

    def _kek(self, owner: str) -> bytes | None:
        """The owner's key encryption key if stored (None: none yet)."""
        kek_id = KEK_PREFIX + owner
        if kek_id not in self._keys and kek_id not in self._wrapped:
            for stored in self.table.select([kek_id]):
                self._wrapped[stored.key_id] = stored
        found = self._wrapped.pop(kek_id, None)
        if found is not None:
            self._keys[kek_id] = found.material
        return self._keys.get(kek_id)

    def cached(self, key_id: str) -> bytes | None:
        """The data key if this process holds it unwrapped already (a save's new keys,
        from ``ensure``; any ``key`` found), else None; reads nothing."""
        return self._keys.get(key_id)

    def cipher(self, key_id: str, *, keep: bool = True) -> AESGCM | None:
        """``cached``'s key as a ready cipher (None: not held); reads nothing. ``keep``:
        kept for the next box of the same key (``CIPHER_CACHE_MAX`` of them; a key that
        seals one box is not worth the keeping)."""
        key = self._keys.get(key_id)
        if key is None:  # never held, or destroyed: no cipher outlives its key
            return None
        cipher = self._ciphers.get(key_id)
        if cipher is not None:
            return cipher
        cipher = AESGCM(key)
        if not keep:
            return cipher
        with self._lock:
            if key_id in self._keys:  # not destroyed meanwhile
                ciphers = self._ciphers
                if len(ciphers) >= CIPHER_CACHE_MAX:
                    ciphers.popitem(last=False)  # the oldest
                ciphers[key_id] = cipher
        return cipher

    def _drop(self, key_ids: Iterable[str]) -> None:
        """Forget the keys in this process: unwrapped, wrapped and as ciphers. Called
        under the lock."""
        keys, wrapped, ciphers = self._keys, self._wrapped, self._ciphers
        for key_id in key_ids:
            keys.pop(key_id, None)
            wrapped.pop(key_id, None)
            ciphers.pop(key_id, None)
            if key_id.startswith(KEK_PREFIX):  # an owner's key encryption key: its cipher
                self._kek_ciphers.pop(key_id[len(KEK_PREFIX) :], None)

    def key(self, key_id: str, owner: str) -> bytes | None:
        """The data key (None: destroyed or never here), its row read by key. Never the
        owner's every row: a principal holds a key a turn and a belief, so a command's
        first key (its aggregate snapshot's) would read them all (issue 30: a fresh
        process's first command at 100k beliefs read 200k rows). Many keys at once go
        through ``keys_for``."""
        with self._lock:
            found = self._keys.get(key_id)
            if found is not None:
                return found
            if key_id not in self._wrapped:
                for stored in self.table.select([key_id]):
                    self._wrapped[stored.key_id] = stored
            return self._unwrap(key_id, owner)

    def keys_for(self, wanted: Sequence[tuple[str, str]]) -> list[bytes | None]:
        """``key`` of each (key id, owner), in order, for a page of sealed states: the
        keys not held yet are read owner by owner, each owner's in one query (exactly
        those: a rebuild's page of beliefs reads its beliefs' keys, not their owner's
        every turn key; ``KeyTable.select_owned``, no ``KeyRow`` a key) and unwrapped in
        one ``map`` over the owner's key encryption key's cipher (no Python frame a key:
        a cold rebuild unwraps one key a belief)."""
        with self._lock:
            held = self._keys
            found: list[bytes | None] = [held.get(k) for k, _ in wanted]
            if None not in found:
                return found
            # Where the keys to unwrap go, by owner (a rebuild's page is mostly one's).
            places = [i for i, key in enumerate(found) if key is None]
            owners = {wanted[i][1] for i in places}
            by_owner = {owners.pop(): places} if len(owners) == 1 else _grouped(wanted, places)
            for owner, at in by_owner.items():
                kek = self._stored_kek_cipher(owner)
                if kek is None:  # the owner was forgotten whole: its keys read as None
                    continue
                rows = self._owned_rows(owner, dict.fromkeys([wanted[i][0] for i in at]))
                if not rows:
                    continue
                read, materials = [k for k, _ in rows], [m for _, m in rows]
                opened = dict(
                    zip(
                        read,
                        map(
                            kek.decrypt,
                            map(nonce_of, materials),
                            map(sealed_of, materials),
                            map(str.encode, read),
                        ),
                        strict=True,
                    )
                )
                held.update(opened)
                for i in at:  # a row of another owner than the one asked for: None
                    found[i] = opened.get(wanted[i][0])
            return found

    def _owned_rows(self, owner: str, key_ids: dict[str, None]) -> list[tuple[str, bytes]]:
        """(key id, material) of the owner's rows among ``key_ids``: those read already
        and held wrapped taken (a row of another owner left for its own), the rest read
        in one query. Called under the lock."""
        wrapped = self._wrapped
        if not wrapped:
            return self.table.select_owned(owner, key_ids)
        taken: list[tuple[str, bytes]] = []
        unread: list[str] = []
        for key_id in key_ids:
            row = wrapped.get(key_id)
            if row is None:
                unread.append(key_id)
            elif row.owner == owner:
                taken.append((key_id, wrapped.pop(key_id).material))
        return taken + self.table.select_owned(owner, unread) if unread else taken

    def _unwrap(self, key_id: str, owner: str) -> bytes | None:
        """The read row of ``key_id`` unwrapped and held (None: no row, another owner's,
        or the owner's key encryption key is gone). Called under the lock."""
        row = self._wrapped.pop(key_id, None)
        if row is None or row.owner != owner:
            return None
        kek = self._stored_kek_cipher(owner)
        if kek is None:
            return None
        nonce, wrapped = row.material[:NONCE_BYTES], row.material[NONCE_BYTES:]
        key = kek.decrypt(nonce, wrapped, key_id.encode())
        self._keys[key_id] = key
        return key

    def destroy(self, key_ids: Collection[str]) -> int:
        """Delete the data keys' rows and forget them in this process."""
        with self._lock:
            self._drop(key_ids)
            return self.table.delete(key_ids) if key_ids else 0

    def destroy_owner(self, owner: str) -> int:
        """Delete every key of the owner, its key encryption key too."""
        with self._lock:
            self._drop([row.key_id for row in self.table.select_owner(owner)])
            self._keys.pop(KEK_PREFIX + owner, None)
            self._kek_ciphers.pop(owner, None)
            return self.table.delete_owner(owner)

    def export_rows(self) -> list[KeyRow]:
        """Every stored row as stored (data keys still wrapped): ``keys export``."""
        return self.table.select_all()

    def import_rows(self, rows: Sequence[KeyRow]) -> None:
        """``keys import``: rows another store exported (existing ids keep theirs)."""
        self.table.insert(rows)

    def close(self) -> None:
        self.table.close()


KEY_FILE_FORMAT = "memory-es-keys"


def write_key_file(path: Path, rows: Sequence[KeyRow]) -> int:
    """``keys export``: a header line, then one row a line (material in base64, data keys
    still wrapped by their owner's key encryption key, which is in the file too)."""
    from memory_es.errors import UsageError

    try:
        out = path.open("wb")
    except OSError as error:
        raise UsageError(f"cannot write {path}: {error.strerror}") from None
    with out:
        out.write(orjson.dumps({"format": KEY_FILE_FORMAT, "version": 1}) + b"\n")
        for row in rows:
            line = {"key_id": row.key_id, "owner": row.owner, "material": _b64(row.material)}
            out.write(orjson.dumps(line) + b"\n")
    return len(rows)


def read_key_file(path: Path) -> list[KeyRow]:
    from memory_es.errors import InvalidInput, UsageError

    try:
        lines = path.read_bytes().splitlines()
    except OSError as error:
        raise UsageError(f"cannot read {path}: {error.strerror}") from None
    try:
        header = orjson.loads(lines[0]) if lines else {}
        if header.get("format") != KEY_FILE_FORMAT:
            raise InvalidInput(f"{path}: not a memory-es key export")
        return [
            KeyRow(v["key_id"], v["owner"], base64.b64decode(v["material"], validate=True))
            for v in map(orjson.loads, filter(bytes.strip, lines[1:]))
        ]
    except (orjson.JSONDecodeError, KeyError, TypeError, ValueError) as error:
        raise InvalidInput(f"{path}: a malformed key export ({error})") from None


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")
