"""Ports for what the domain must not do itself: read the clock, invent identifiers."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Protocol


class Clock(Protocol):
    def now(self) -> datetime: ...


class IdGenerator(Protocol):
    def new_id(self) -> str: ...


class SystemClock:
    def now(self) -> datetime:
        return datetime.now(tz=UTC)


class FixedClock:
    """A clock that only moves when told to: replays, tests, the benchmark."""

    def __init__(self, at: datetime) -> None:
        if at.tzinfo is None:
            raise ValueError("a fixed clock needs a timezone-aware instant")
        self._at = at.astimezone(UTC)

    def now(self) -> datetime:
        return self._at

    def advance(self, seconds: float) -> datetime:
        if seconds < 0:
            raise ValueError("a clock never moves backwards")
        self._at = self._at + timedelta(seconds=seconds)
        return self._at

    def set(self, at: datetime) -> None:
        if at.tzinfo is None:
            raise ValueError("a fixed clock needs a timezone-aware instant")
        self._at = at.astimezone(UTC)


class RandomIds:
    def new_id(self) -> str:
        return str(uuid.uuid4())


# An odd multiplier is a bijection modulo 2**32, so sequential counters give distinct,
# varied-looking eight-hex prefixes (the short ids a model cites).
_SCRAMBLE = 0x9E3779B1


# Numbers a SequentialIds bound to a store reserves at a time.
ID_BLOCK = 1024


class SequentialIds:
    """Deterministic ids whose first eight hex digits differ for every id issued.

    On a persistent store (``memory_es.open`` binds it) the numbers come from the
    store's own sequence, reserved ``ID_BLOCK`` at a time, so two processes sharing a
    store never issue one id twice; a single process on a fresh store still issues
    1, 2, 3, ... from ``start`` exactly as an unbound one does (a block no process
    finishes is skipped, never reissued)."""

    def __init__(self, start: int = 1) -> None:
        self._next = start
        self._end: int | None = None  # past the reserved block (None: unbound)
        self._reserve: Callable[[int, int], int] | None = None
        self._lock = threading.Lock()

    def bind(self, reserve: Callable[[int, int], int]) -> None:
        """Take numbers from a shared sequence: ``reserve(count, at_least)`` returns
        the first of ``count`` numbers no other caller was given, none below
        ``at_least``."""
        with self._lock:
            self._reserve = reserve
            self._end = self._next  # the next id reserves a block first

    def new_id(self) -> str:
        with self._lock:
            if self._reserve is not None and self._end is not None and self._next >= self._end:
                first = self._reserve(ID_BLOCK, self._next)
                self._next, self._end = first, first + ID_BLOCK
            n = self._next
            self._next += 1
        head = (n * _SCRAMBLE) & 0xFFFFFFFF
        return str(uuid.UUID(f"{head:08x}0000400080000000{n & 0xFFFFFFFF:08x}"))


# The instants a clock may be set to from outside (``--now``, an ingest line's ``at``):
# 1970 through 2200, the system clock's future included. Past 2200 an instant is a typo
# or an attack (``9999-12-31`` dates a belief past anything that could supersede it);
# before 1970 nothing was said to an agent.
EARLIEST_INSTANT = datetime(1970, 1, 1, tzinfo=UTC)
LATEST_INSTANT = datetime(2200, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)


def check_instant(at: datetime) -> datetime:
    """``at`` if it lies in [EARLIEST_INSTANT, LATEST_INSTANT]; ValueError otherwise."""
    if at.tzinfo is None:
        raise ValueError("an instant needs a timezone")
    if not EARLIEST_INSTANT <= at <= LATEST_INSTANT:
        raise ValueError(f"{at.isoformat()} is outside 1970 through 2200 (UTC)")
    return at


def iso(at: datetime) -> str:
    """The one text form of an instant in events and read models (UTC, seconds)."""
    return at.astimezone(UTC).isoformat().replace("+00:00", "Z")


def instant_second(at: datetime) -> str:
    """``iso`` at whole seconds: the form validity windows and traces record."""
    return iso(at.replace(microsecond=0))


def second_key(instant: str) -> str:
    """A stored instant's comparable key: whole seconds, no zone ("YYYY-MM-DDTHH:MM:SS").

    Stored instants are ``iso`` text, with or without microseconds; cut to their first
    19 characters they compare as text in instant order (the SQL does the same with
    ``substr(..., 1, 19)``)."""
    return instant[:19]


def parse_iso(text: str) -> datetime:
    value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    if value.tzinfo is None:
        raise ValueError(f"instant without a timezone: {text!r}")
    try:
        return value.astimezone(UTC)
    except OverflowError:  # 9999-12-31T23:00-05:00 and 0001-01-01T00:00+01:00
        raise ValueError(f"instant out of range: {text!r}") from None
