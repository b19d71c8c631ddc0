"""The recall index: the read model every adapter implements identically.

A writer is one transaction: the rows it writes and the tracked position commit
together (exactly once). Reads never see a half-applied page.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any

from projections.records import BeliefRecord, Candidate, SessionRecord

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

    # -- sessions (formation: the idle sweep reads which are open) -------------------------

    @abstractmethod
    def open_session(self, record: SessionRecord) -> None: ...

    @abstractmethod
    def update_session(self, session_id: str, **changes: Any) -> None: ...


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

    # -- context (issue 5): no-text queries for the session snapshot and the recall delta --

    @abstractmethod
    def recent_candidates(
        self,
        principal: str,
        *,
        project: str,
        cap: int,
        min_position: int = 0,
        max_position: int | None = None,
        belief_types: Sequence[str] | None = None,
        exclude: Sequence[str] = (),
        statuses: Sequence[str] = LIVE,
    ) -> list[Candidate]:
        """Candidates chosen without query text: newest first, then belief id; matched=0.

        Positions in ``(min_position, max_position]``; ``belief_types`` None means every
        type; ``exclude`` ids are removed before the cap. Scope and status filter as in
        ``candidates``. The session snapshot and the recall delta are these queries.
        """

    @abstractmethod
    def idle_sessions(self, *, last_activity_before: str, limit: int) -> list[SessionRecord]:
        """Open sessions whose last activity is at or before the instant, oldest first."""

    @abstractmethod
    def dump(self) -> dict[str, Any]:
        """Every row in a canonical order, to compare two builds of the read model."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release connections."""
