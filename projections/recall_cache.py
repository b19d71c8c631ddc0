"""What recall read and decoded, kept for the next recall while the read model holds.

A recall over a SQL store reads each query term's postings (at 100k beliefs a common
word's blocks are ~1 MB) and scores them, then fetches and decodes the best beliefs' rows:
most of its time, and the same work again for the next query sharing those words or
beliefs. This cache keeps both per process, for one *token* of the read model at a
time: the recall index's tracked position and a generation the store changes whenever
its tables are swapped (SQLite's schema version, PostgreSQL's row version of the
tracking row). Every write to the read model commits a new tracked position in the same
transaction (the runner's tracking) and a rebuild's swap changes the generation, so a
token read now names one state of the rows and postings; the statistics statement of
every recall reads it (no extra round trip) and a different token empties the cache.

What is kept cannot be newer than its token allows: a row or postings read after the
token may come from a later commit, but then every later token differs and the cache is
emptied before it is used. Inside an open transaction of this thread (whose reads may
see rows that roll back) nothing is kept or used. The cache only spares reads: a hit
returns the values a read would, so answers are identical (tests/test_recall_cache.py
compares cached and uncached recalls across writes by another process and a rebuild).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from itertools import islice
from typing import TYPE_CHECKING, Any

from memory_es.projections.records import BeliefRecord

if TYPE_CHECKING:
    from memory_es.projections.candidates import TermScores

# Bounds (a principal of 100k beliefs holds ~1.1M postings; a decoded row is ~2.8 KB,
# so ~45 MB of rows at most): past them the oldest quarter goes (insertion order).
ROWS_MAX = 16_384
POSTINGS_MAX = 2_097_152  # scored postings: 16 bytes each


class RecallCache:
    def __init__(self) -> None:
        self._token: tuple[int, int] | None = None
        self.scored: dict[tuple[Any, ...], TermScores] = {}
        self._postings = 0
        self._rows: dict[tuple[str, int], BeliefRecord] = {}

    def check(self, token: tuple[int, int] | None) -> None:
        """The read model's token for the read about to run (None: keep nothing)."""
        if token is None or token != self._token:
            self.clear()
        self._token = token

    def clear(self) -> None:
        self.scored = {}
        self._postings = 0
        self._rows = {}

    def keep_scored(self, key: tuple[Any, ...], scored: TermScores) -> None:
        if self._token is None:
            return
        self.scored[key] = scored
        self._postings += len(scored.numbers)
        if self._postings > POSTINGS_MAX:
            while self.scored and self._postings > POSTINGS_MAX * 3 // 4:
                oldest = next(iter(self.scored))
                self._postings -= len(self.scored.pop(oldest).numbers)

    def rows_of(self, principal: str, numbers: Iterable[int]) -> dict[int, BeliefRecord]:
        rows = self._rows
        return {n: row for n in numbers if (row := rows.get((principal, n))) is not None}

    def keep_rows(
        self, principal: str, records: Mapping[int, BeliefRecord], numbers: Iterable[int]
    ) -> None:
        if self._token is None:
            return
        rows = self._rows
        for n in numbers:
            record = records.get(n)
            if record is not None:
                rows[(principal, n)] = record
        if len(rows) > ROWS_MAX:
            for key in list(islice(rows, len(rows) - ROWS_MAX * 3 // 4)):
                del rows[key]
