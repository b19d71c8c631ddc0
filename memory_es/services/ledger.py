"""The formation ledger: which policy each closed session was last consolidated under.

Read from the log itself — every consolidation (close, the idle sweep, remember, replay,
rederive) records a ``ConsolidationRecorded`` audit event naming its session, the
formation version and the extractor's identity — so it needs no read model. One pass
over those events (filtered by topic in the recorder's own query, in pages) gives every
principal's closed sessions in the order they were first consolidated and the latest
policy of each. It is an operator read — ``memory rederive`` calls it, a serving path
never does (docs/operations.md gives its cost); whether a re-derivation is pending
(start-up, ``projections status``) is read from the read model instead, which keeps
each session's latest formation key (``counted_status``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from eventsourcing.application import Application
from eventsourcing.utils import get_topic

from memory_es.domain.principal import PrincipalMemory
from memory_es.policy import formation_key
from memory_es.store_errors import event_store_errors

LEDGER_PAGE = 1000


@dataclass
class PrincipalLedger:
    tenant: str
    principal: str
    # session id -> the formation key of its latest consolidation, in the order the
    # sessions were first consolidated (closed).
    sessions: dict[str, str] = field(default_factory=dict)
    # The principal aggregate's version at the last consolidation read: a later one
    # (another process's) is read from the aggregate's own events (``consolidated_since``).
    version: int = 0

    @property
    def key(self) -> str:
        return f"{self.tenant}/{self.principal}"

    def stale(self, current: str) -> list[str]:
        """The sessions consolidated under another policy than ``current``, in order."""
        return [s for s, k in self.sessions.items() if k != current]


@dataclass(frozen=True)
class FormationStatus:
    """Whether a re-derivation is pending: sessions consolidated under another policy."""

    current: str  # the formation key this code consolidates under
    sessions: int
    stale_sessions: int
    stale_principals: int
    stale_policies: tuple[str, ...]  # the other keys, sorted

    @property
    def pending(self) -> bool:
        return self.stale_sessions > 0

    def message(self) -> str:
        """One line: what is stale and the command that fixes it."""
        principals = f"{self.stale_principals} principal" + (
            "" if self.stale_principals == 1 else "s"
        )
        return (
            f"{self.stale_sessions} of {self.sessions} sessions ({principals})"
            f" were formed under {', '.join(self.stale_policies)}; this code"
            f" forms under {self.current}: run `memory-es memory rederive --all --dry-run`,"
            " then `--confirm`"
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "current": self.current,
            "sessions": self.sessions,
            "stale_sessions": self.stale_sessions,
            "stale_principals": self.stale_principals,
            "stale_policies": list(self.stale_policies),
            "pending": self.pending,
        }


def formation_ledger(app: Application[UUID]) -> dict[str, PrincipalLedger]:
    """Every principal's ledger by aggregate id, in the order principals were created."""
    with event_store_errors():
        return _ledger(app)


def formation_status_from_log(app: Application[UUID], extractor: str) -> FormationStatus:
    """The status as the log's ledger gives it (the read model's must agree: a test)."""
    counts = [
        (ledger.key, key, 1)
        for ledger in formation_ledger(app).values()
        for key in ledger.sessions.values()
    ]
    return counted_status(counts, extractor)


def counted_status(counts: Iterable[tuple[str, str, int]], extractor: str) -> FormationStatus:
    """The same status from the read model's (principal, formation key, sessions) counts
    (``RecallIndex.formation_counts``): what start-up reads, with no scan of the log."""
    current = formation_key(extractor)
    stale_keys: set[str] = set()
    stale_owners: set[str] = set()
    sessions = stale_sessions = 0
    for principal, key, n in counts:
        sessions += n
        if key != current:
            stale_keys.add(key)
            stale_owners.add(principal)
            stale_sessions += n
    return FormationStatus(
        current=current,
        sessions=sessions,
        stale_sessions=stale_sessions,
        stale_principals=len(stale_owners),
        stale_policies=tuple(sorted(stale_keys)),
    )


def _ledger(app: Application[UUID]) -> dict[str, PrincipalLedger]:
    ledgers: dict[str, PrincipalLedger] = {}
    for event in _events(app):
        owner = str(event.originator_id)
        if isinstance(event, PrincipalMemory.Created):
            ledgers.setdefault(owner, PrincipalLedger(event.tenant, event.principal))
            continue
        ledger = ledgers.get(owner)
        if ledger is not None:
            ledger.sessions[event.session_id] = formation_key(event.extractor, event.policy)
            ledger.version = event.originator_version
    return ledgers


def _events(app: Application[UUID]) -> Iterator[Any]:
    recorder = app.recorder
    topics = (
        get_topic(PrincipalMemory.Created),
        get_topic(PrincipalMemory.ConsolidationRecorded),
    )
    head = recorder.max_notification_id() or 0
    after = 0
    while after < head:
        page = recorder.select_notifications(
            start=after, limit=LEDGER_PAGE, stop=head, topics=topics, inclusive_of_start=False
        )
        if not page:
            return
        for notification in page:
            yield app.mapper.to_domain_event(notification)
        after = page[-1].id


def consolidated_since(events: Iterable[Any]) -> dict[str, str]:
    """The formation key of each session consolidated in ``events`` (a principal's,
    after the version its ledger was read at), the latest winning."""
    return {
        e.session_id: formation_key(e.extractor, e.policy)
        for e in events
        if isinstance(e, PrincipalMemory.ConsolidationRecorded)
    }
