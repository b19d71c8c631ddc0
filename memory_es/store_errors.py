"""Driver errors become the library's own, at the edge where a driver is called.

Three families of errors come from below memory_es: ``sqlite3.Error``, ``psycopg.Error``
and eventsourcing's ``PersistenceError`` (its recorders translate their driver's errors
into it). Each adapter catches its driver's family where it calls the driver — the read
models in their ``_execute``/``_transaction`` (``projections/sqlite.py``,
``projections/postgres.py``), the event store where the service layer and the log
follower call eventsourcing (``event_store_errors``) — and raises ``store_failure(error)``
instead, a ``StoreUnavailable`` naming what failed in one line. Nothing above the
adapters sees a driver exception, and the command line prints one line for it.

eventsourcing's ``RecordConflictError`` (a lost optimistic-concurrency race) is not a
failure: it passes untranslated to the one retry loop (``run_retrying``). An ``OSError``
met while the event store works (a full disk, a vanished folder) is a store failure too.
"""

from __future__ import annotations

import sqlite3
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from eventsourcing.persistence import (
    InterfaceError,
    OperationalError,
    PersistenceError,
    RecordConflictError,
)

from memory_es.errors import StoreUnavailable


def first_line(error: BaseException) -> str:
    text = str(error).strip() or type(error).__name__
    return text.splitlines()[0]


def store_failure(error: BaseException) -> StoreUnavailable:
    """The library's error for a driver error (raise it ``from error``)."""
    return StoreUnavailable(f"the store failed: {first_line(error)} ({type(error).__name__})")


def driver_errors() -> tuple[type[Exception], ...]:
    """Every driver error family loaded in this process (psycopg only if imported)."""
    families: tuple[type[Exception], ...] = (PersistenceError, sqlite3.Error)
    psycopg = sys.modules.get("psycopg")
    if psycopg is not None:
        families = (*families, psycopg.Error)
    return families


def store_unreachable(error: BaseException) -> bool:
    """Whether ``error`` (or what it was raised from) says the store itself failed —
    unreachable, locked, out of disk, a lost connection — rather than refused one write.

    The projector quarantines an event only when applying it failed for a reason of the
    event's own (a value a column cannot hold, a row it contradicts, a belief never
    formed); when the store failed, nothing is skipped and the error goes up."""
    unreachable: tuple[type[BaseException], ...] = (
        OperationalError,
        InterfaceError,
        sqlite3.OperationalError,
        sqlite3.InterfaceError,
        OSError,
    )
    psycopg = sys.modules.get("psycopg")
    if psycopg is not None:
        unreachable = (*unreachable, psycopg.OperationalError, psycopg.InterfaceError)
    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, unreachable):
            return True
        seen = seen.__cause__
    return False


@contextmanager
def event_store_errors() -> Iterator[None]:
    """Translate what the event store (eventsourcing and its drivers) raises."""
    failures: tuple[type[Exception], ...] = (*driver_errors(), OSError)
    try:
        yield
    except RecordConflictError:
        raise  # a lost race: run_retrying runs the command again
    except failures as error:
        raise store_failure(error) from error
