"""The recall index: the read model every adapter implements identically.

A writer is one transaction: the rows it writes and the tracked position commit
together (exactly once). Reads never see a half-applied page.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Collection, Sequence
from contextlib import AbstractContextManager
from typing import Any

from projections.records import BeliefRecord, Candidate

RECALL_INDEX = "recall_index"
REBUILD_SUFFIX = ":rebuild"

LIVE = ("active", "provisional")


class IndexWriter(ABC):
    @abstractmethod
    def tracked_position(self) -> int: ...

    @abstractmethod
    def set_tracking(self, position: int) -> None: ...

    @abstractmethod
    def name_principal(self, aggregate_id: str, principal: str) -> None: ...

    @abstractmethod
    def principal_of(self, aggregate_id: str) -> str: ...

    @abstractmethod
    def get(self, belief_id: str) -> BeliefRecord | None: ...

    @abstractmethod
    def insert_belief(self, record: BeliefRecord, terms: Counter[str]) -> None: ...

    @abstractmethod
    def update_belief(self, belief_id: str, **changes: Any) -> None: ...

    @abstractmethod
    def raise_head(self, principal: str, position: int) -> None: ...

    def prefetch(self, belief_ids: Collection[str]) -> None:  # noqa: B027 - optional hook
        """A hint: these beliefs will be read in this transaction (fetch them at once)."""


class RecallIndex(ABC):
    """Current-state beliefs, their lexemes, and each principal's head position."""

    @abstractmethod
    def writer(self, *, rebuild: bool = False) -> AbstractContextManager[IndexWriter]:
        """One transaction over the live tables, or over the fresh rebuild tables."""

    @abstractmethod
    def start_rebuild(self) -> None:
        """Create empty rebuild tables (dropping any left by an interrupted rebuild)."""

    @abstractmethod
    def finish_rebuild(self) -> None:
        """Swap the rebuild tables in, with their tracked position, in one transaction."""

    @abstractmethod
    def tracked_position(self) -> int: ...

    @abstractmethod
    def stored_version(self) -> str | None:
        """The read-model version the tables were built under (None when never built)."""

    @abstractmethod
    def head_position(self, principal: str) -> int: ...

    @abstractmethod
    def get(self, belief_id: str) -> BeliefRecord | None: ...

    @abstractmethod
    def beliefs(self, principal: str) -> list[BeliefRecord]:
        """Every belief of the principal, any status, in store-position order."""

    @abstractmethod
    def find_by_short_id(self, short_id: str) -> list[BeliefRecord]: ...

    @abstractmethod
    def candidates(
        self,
        principal: str,
        terms: Sequence[str],
        *,
        project: str,
        cap: int,
        min_position: int = 0,
        statuses: Sequence[str] = LIVE,
    ) -> list[Candidate]:
        """Any-term lexical candidates, most terms matched first, newest first on ties.

        Validity and scope filter here, before anything is ranked.
        """

    @abstractmethod
    def dump(self) -> dict[str, Any]:
        """Every row in a canonical order, to compare two builds of the read model."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release connections."""
