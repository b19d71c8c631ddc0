"""The library's own errors. Driver errors are translated into these at the edges."""

from __future__ import annotations


class MemoryEsError(Exception):
    """Base class; ``exit_code`` is what the command line returns for it."""

    exit_code = 2


class UsageError(MemoryEsError):
    """The call itself is wrong: a bad argument, a store that cannot do this."""


class InvalidInput(MemoryEsError):
    """Input that cannot be recorded: empty text, a malformed line."""


class UnknownSession(MemoryEsError):
    def __init__(self, session_id: str) -> None:
        super().__init__(f"unknown session: {session_id}")
        self.session_id = session_id


class SessionClosed(MemoryEsError):
    def __init__(self, session_id: str) -> None:
        super().__init__(f"session is closed: {session_id}")
        self.session_id = session_id


class UnknownBelief(MemoryEsError):
    def __init__(self, belief_id: str) -> None:
        super().__init__(f"unknown belief: {belief_id}")
        self.belief_id = belief_id


class StoreUnavailable(MemoryEsError):
    """The store URL is unsupported, the store cannot be reached, or it failed an
    operation: every driver error (sqlite3, psycopg, eventsourcing's) becomes this at
    the adapter that met it (memory_es/store_errors.py), its cause chained."""


class StaleReadModel(MemoryEsError):
    """A read model was built under another policy version; rebuild it."""


class RebuildInProgress(MemoryEsError):
    """Another rebuild of this read model holds the rebuild lock (exit 2)."""

    def __init__(self) -> None:
        super().__init__(
            "another `projections rebuild` is running on this store: wait for it to"
            " finish (`memory-es projections status` shows its progress)"
        )


class StaleFormationWarning(UserWarning):
    """Sessions were formed under another formation policy: ``memory-es memory rederive
    --all`` (a dry run first) re-derives them under this one."""


class FixedBodyOverflow(MemoryEsError):
    """A context pack's fixed body alone — prefix, correction lines, user turn — overflows.

    Correction lines are never dropped for budget, so when they cannot fit the window is
    too small for this turn: the caller must shorten the turn or widen the window.
    """

    def __init__(self, *, prefix: int, corrections: int, turn: int, window: int) -> None:
        needed = prefix + corrections + turn
        super().__init__(
            f"context overflow: the fixed body needs {needed} tokens (prefix {prefix},"
            f" correction lines {corrections}, user turn {turn}) but the window holds"
            f" {window}; correction lines are never dropped"
        )
        self.needed = needed
        self.window = window


class WriteConflict(MemoryEsError):
    """Other writers kept saving the same principal first, past the retry budget.

    Nothing of the command was written; running it again is safe."""

    exit_code = 1

    def __init__(self, principals: tuple[str, ...], attempts: int, seconds: float) -> None:
        who = ", ".join(principals) or "an aggregate"
        super().__init__(
            f"write conflict on principal {who}: other writers saved first {attempts} times"
            f" in {seconds:.1f} s; nothing was written, retry the command"
        )
        self.principals = principals
        self.attempts = attempts
