"""Units of work: the repositories a command handler reads and writes through, one
transaction per commit, and the one retry loop for optimistic-concurrency conflicts.

A handler gets aggregates from ``uow.sessions`` and ``uow.principals``, changes them,
``add``\\ s them back and calls ``uow.commit()``: every aggregate added since the last
commit is saved in one ``Application.save`` (one transaction, in the order they were
added) and the inline read model catches up. Leaving the ``with`` block without a
commit discards the changes; leaving it on an error also evicts the aggregate cache,
because a failed command may have mutated cached aggregates.

``BatchUnitOfWork`` is the bulk path's (``memory_es/ingest.py``): ``commit`` collects
the events instead of saving them, later commands of the batch read the aggregates it
touched from it, and ``flush`` writes the whole batch in one transaction.

``run_retrying`` is the only retry loop, and where a command's event-store errors
become the library's (``event_store_errors``): a save that lost a race to another writer
(``RecordConflictError``, which includes the ``IntegrityError`` SQLite's unique
``(originator_id, originator_version)`` key raises when two processes append the same
version) is run again on a fresh unit of work after a backoff with full jitter. When
the budget is spent it raises ``WriteConflict`` naming the principal.
"""

from __future__ import annotations

import itertools
import random
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeVar
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError, Application
from eventsourcing.persistence import RecordConflictError

from memory_es.domain.session import Session
from memory_es.domain.values import legacy_principal_aggregate_id, principal_aggregate_id
from memory_es.errors import UnknownSession, WriteConflict
from memory_es.es_internals import evict_cache, save_collected
from memory_es.ports import Clock, IdGenerator
from memory_es.projections.base import RecallIndex
from memory_es.projections.records import principal_key
from memory_es.projections.runner import ProjectionRunner
from memory_es.store_errors import event_store_errors

if TYPE_CHECKING:
    from memory_es.domain.belief_reads import BeliefReads
    from memory_es.domain.principal import PrincipalMemory
    from memory_es.formation.extractor import Extractor
    from memory_es.profiles import MemoryProfile
    from memory_es.retrieval.recall import Retriever

T = TypeVar("T")
U = TypeVar("U", bound="UnitOfWork")

# The retry budget: enough that eight processes racing on one principal all get through
# (tests/reliability_conformance.py: 8 x 10 closes; docs/architecture.md "Concurrency").
# The budget must outlast the others' serialized work: eight writers' 80 closes took
# ~20 s on a loaded 2-core machine, and 40 attempts / 20 s lost closes there. A low cap
# keeps a writer that lost often trying as often as the newcomers.
MAX_ATTEMPTS = 100
RETRY_BUDGET_SECONDS = 60.0
BACKOFF_BASE_SECONDS = 0.002
BACKOFF_CAP_SECONDS = 0.5

SaveBatch = Callable[[Application[UUID], list[Any], list[Any]], None]

_jitter = random.Random()  # backoff only; never the domain's ids


@dataclass
class Adapters:
    """What the composition root (``memory_es.open``) wires: the event store, the read
    model and its runner, the clock, the ids; and, built on first use from the factories
    it passes, the profile, the one retriever and the extractor (a command that needs
    none of them, ``say``, never imports the recall stack, formation or pydantic)."""

    app: Application[UUID]
    index: RecallIndex
    runner: ProjectionRunner
    clock: Clock
    ids: IdGenerator
    make_profile: Callable[[], MemoryProfile]
    make_retriever: Callable[[Adapters], Retriever]
    make_extractor: Callable[[MemoryProfile], Extractor]
    # Commands in one process run one at a time; across processes the version check
    # and run_retrying keep writes from being lost.
    lock: threading.RLock = field(default_factory=threading.RLock)

    @cached_property
    def profile(self) -> MemoryProfile:
        return self._once("profile", self.make_profile)

    @cached_property
    def retriever(self) -> Retriever:
        return self._once("retriever", lambda: self.make_retriever(self))

    @cached_property
    def extractor(self) -> Extractor:
        return self._once("extractor", lambda: self.make_extractor(self.profile))

    def _once(self, name: str, make: Callable[[], T]) -> T:
        """Build a lazy member once, even when two threads ask at once (one retriever)."""
        with self.lock:
            built: T | None = self.__dict__.get(name)
            if built is None:
                built = self.__dict__[name] = make()
            return built

    def set_clock(self, clock: Clock) -> None:
        """One clock for commands and recall (the demo and replays swap it in)."""
        self.clock = clock
        if "retriever" in self.__dict__:  # built already; a later one reads self.clock
            self.retriever.clock = clock

    def evict_cache(self) -> None:
        """Forget every cached aggregate (a failed command may have mutated them)."""
        evict_cache(self.app)


def parse_session_id(session_id: str) -> UUID:
    try:
        return UUID(session_id.strip())
    except (ValueError, AttributeError):
        raise UnknownSession(str(session_id)) from None


def load_session(app: Application[UUID], session_id: str) -> Session:
    """A stored session, for reads outside a unit of work."""
    try:
        with event_store_errors():
            session: Any = app.repository.get(parse_session_id(session_id))
    except AggregateNotFoundError:
        raise UnknownSession(session_id) from None
    if not isinstance(session, Session):
        raise UnknownSession(session_id)
    return session


class SessionRepository:
    def __init__(self, uow: UnitOfWork) -> None:
        self._uow = uow

    def get(self, session_id: str) -> Session:
        session = self._load(parse_session_id(session_id))
        if session is None:
            raise UnknownSession(session_id)
        return session

    def find(self, session_id: str) -> Session | None:
        """The stored (or pending) session, or None if there is none by that id. For an
        id that is usually new (ingest's, derived from a session key): a missing one
        costs one indexed read of the log, not a load."""
        aggregate_id = parse_session_id(session_id)
        if not self._uow.stored(aggregate_id):
            return None
        return self._load(aggregate_id)

    def _load(self, aggregate_id: UUID) -> Session | None:
        session = self._uow.load(aggregate_id)
        if not isinstance(session, Session):
            return None
        self._uow.principals_seen.add(principal_key(session.tenant, session.principal))
        return session

    def add(self, session: Session) -> None:
        self._uow.principals_seen.add(principal_key(session.tenant, session.principal))
        self._uow.add(session)

    def events(self, session_id: UUID) -> Iterator[Any]:
        """The session's events: those stored, then those pending in this unit of work."""
        return self._uow.events(session_id)


def legacy_principal(
    load: Callable[[UUID], Any | None], tenant: str, principal: str
) -> PrincipalMemory | None:
    """A principal whose name holds a "/", written before the structured key: the
    aggregate the old ``tenant/principal`` key named, if it was created for exactly this
    pair (another pair the old key confused with it starts afresh under its own key)."""
    legacy = legacy_principal_aggregate_id(principal=principal, tenant=tenant)
    if legacy is None:
        return None
    from memory_es.domain.principal import PrincipalMemory  # see PrincipalRepository

    old = load(legacy)
    if isinstance(old, PrincipalMemory) and (old.tenant, old.principal) == (tenant, principal):
        return old
    return None


def principal_aggregate_ids(app: Application[UUID], tenant: str, principal: str) -> set[UUID]:
    """Every aggregate holding the principal's memory, for reads of the log (history,
    stats): its own, and the legacy one ``legacy_principal`` finds."""
    ids = {principal_aggregate_id(principal=principal, tenant=tenant)}

    def load(aggregate_id: UUID) -> Any | None:
        try:
            return app.repository.get(aggregate_id)
        except AggregateNotFoundError:
            return None

    legacy = legacy_principal(load, tenant, principal)
    if legacy is not None:
        ids.add(legacy.id)
    return ids


class PrincipalRepository:
    # The principal's module (its ~40 event classes) is imported by the first command
    # that touches a principal: `session say` never does.
    def __init__(self, uow: UnitOfWork) -> None:
        self._uow = uow

    def get_or_create(self, tenant: str, principal: str) -> PrincipalMemory:
        from memory_es.domain.principal import PrincipalMemory

        self._uow.principals_seen.add(principal_key(tenant, principal))
        found = self._uow.load(principal_aggregate_id(principal=principal, tenant=tenant))
        if isinstance(found, PrincipalMemory):
            return found
        return legacy_principal(self._uow.load, tenant, principal) or PrincipalMemory(
            tenant=tenant, principal=principal
        )

    def add(self, principal: PrincipalMemory) -> None:
        self._uow.add(principal)

    def events_since(self, principal: PrincipalMemory, version: int) -> Iterator[Any]:
        """The principal's stored events after ``version``, in order."""
        return iter(self._uow.adapters.app.events.get(principal.id, gt=version))


class UnitOfWork:
    def __init__(self, adapters: Adapters, *, clock: Clock | None = None) -> None:
        self.adapters = adapters
        self.clock = clock or adapters.clock
        self.ids = adapters.ids
        self.index = adapters.index
        self.sessions = SessionRepository(self)
        self.principals = PrincipalRepository(self)
        self.principals_seen: set[str] = set()  # "tenant/principal", for WriteConflict
        self._added: dict[UUID, Any] = {}
        self._loaded = False  # a stored aggregate was handed out: evict it on failure

    def __enter__(self: U) -> U:
        self.adapters.lock.acquire()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        try:
            # On an error, or changes left uncommitted (discarded), cached aggregates
            # this unit of work handed out may be mutated: forget them.
            if exc_type is not None or self._added:
                self.rollback()
                if self._loaded:
                    self.adapters.evict_cache()
        finally:
            self.adapters.lock.release()

    # The profile, the retriever and the extractor: the adapters', built on first use.

    @property
    def retriever(self) -> Retriever:
        return self.adapters.retriever

    @property
    def extractor(self) -> Extractor:
        return self.adapters.extractor

    @property
    def profile(self) -> MemoryProfile:
        return self.adapters.profile

    # -- what the repositories use --------------------------------------------------------

    def load(self, aggregate_id: UUID) -> Any | None:
        self._loaded = True
        try:
            return self.adapters.app.repository.get(aggregate_id)
        except AggregateNotFoundError:
            return None

    def stored(self, aggregate_id: UUID) -> bool:
        """Whether the log has any event of the aggregate: one indexed read, no replay."""
        recorder = self.adapters.app.recorder
        return bool(recorder.select_events(aggregate_id, desc=True, limit=1))

    def add(self, aggregate: Any) -> None:
        self._added.setdefault(aggregate.id, aggregate)

    def logged_version(self, aggregate_id: UUID) -> int:
        """The aggregate's last version in the log (0: none): one indexed read."""
        recorder = self.adapters.app.recorder
        last = recorder.select_events(aggregate_id, desc=True, limit=1)
        return int(last[0].originator_version) if last else 0

    def events(self, aggregate_id: UUID) -> Iterator[Any]:
        return iter(self.adapters.app.events.get(aggregate_id))

    # -- the transaction --------------------------------------------------------------------

    def commit(self) -> None:
        """Save every aggregate added since the last commit, in one transaction."""
        if not self._added:
            return
        aggregates = list(self._added.values())
        self._added.clear()
        self._write(aggregates)

    def rollback(self) -> None:
        self._added.clear()

    def beliefs(self, principal: PrincipalMemory) -> BeliefReads:
        """The principal's beliefs at the version of ``principal`` this unit of work saves
        on, with what its pending events formed or changed: where the resolver's
        candidates and the lifecycle's checks by id are read. The read model is caught
        up to the log first (memory_es/services/read_model_beliefs.py)."""
        from memory_es.services.read_model_beliefs import ReadModelBeliefs

        # The version the log held when the aggregate was loaded: less what is pending.
        stored = principal.version - len(self.unprojected(principal, 0))
        self.adapters.runner.catch_up()
        # Read after the catch-up: a read model past the loaded version (another writer
        # saved since) would offer beliefs the aggregate never met, and whatever this
        # command decided on them could not be saved on that version anyway.
        logged = self.logged_version(principal.id)
        if logged != stored:
            raise RecordConflictError(
                f"principal {principal.principal!r} is at version {logged} in the log,"
                f" loaded at {stored}"
            )
        return ReadModelBeliefs(
            self.index,
            principal_key(principal.tenant, principal.principal),
            stored,
            lambda after: self.unprojected(principal, after),
        )

    def unprojected(self, principal: PrincipalMemory, after: int) -> Sequence[Any]:
        """The principal's events the read model has not seen, past version ``after``:
        those pending on it."""
        return _past(principal.pending_events, after)

    def catch_up(self) -> int:
        """Bring the read model up to the log (another process may have written)."""
        return self.adapters.runner.catch_up()

    def _write(self, aggregates: list[Any]) -> None:
        self.adapters.app.save(*aggregates)
        self.adapters.runner.catch_up()


class PendingWrites:
    """A batch's pending writes: many commands' events kept in command order, saved in
    one transaction by ``flush`` (the events are those the one-at-a-time path writes;
    only the transactions are fewer)."""

    def __init__(self) -> None:
        self.events: list[Any] = []
        self._by_originator: dict[UUID, list[Any]] = {}
        # Every aggregate touched since the last flush, by id: later commands in the
        # same batch read them from here (the store has not seen their events yet).
        self.aggregates: dict[UUID, Any] = {}

    def collect(self, *aggregates: Any) -> None:
        for aggregate in aggregates:
            new = aggregate.collect_events()
            self.events.extend(new)
            self._by_originator.setdefault(aggregate.id, []).extend(new)
            self.aggregates[aggregate.id] = aggregate

    def get(self, aggregate_id: UUID) -> Any | None:
        return self.aggregates.get(aggregate_id)

    def events_of(self, aggregate_id: UUID) -> list[Any]:
        return self._by_originator.get(aggregate_id, [])

    def __len__(self) -> int:
        return len(self.events)

    def take(self) -> tuple[list[Any], list[Any]]:
        """Everything collected so far, emptied: (events in order, aggregates)."""
        events, aggregates = self.events, list(self.aggregates.values())
        self.events, self.aggregates, self._by_originator = [], {}, {}
        return events, aggregates


class BatchUnitOfWork(UnitOfWork):
    """Many commands, one transaction: ``commit`` collects, ``flush`` saves."""

    def __init__(
        self, adapters: Adapters, *, clock: Clock | None = None, save: SaveBatch = save_collected
    ) -> None:
        super().__init__(adapters, clock=clock)
        self.pending = PendingWrites()
        self._save_batch = save

    def load(self, aggregate_id: UUID) -> Any | None:
        pending = self.pending.get(aggregate_id)
        return pending if pending is not None else super().load(aggregate_id)

    def stored(self, aggregate_id: UUID) -> bool:
        return self.pending.get(aggregate_id) is not None or super().stored(aggregate_id)

    def events(self, aggregate_id: UUID) -> Iterator[Any]:
        pending = self.pending.events_of(aggregate_id)
        # A session opened in the pending batch has nothing in the store yet.
        opened_here = bool(pending) and pending[0].originator_version == 1
        stored: Iterator[Any] = iter(()) if opened_here else super().events(aggregate_id)
        return itertools.chain(stored, pending)

    def unprojected(self, principal: PrincipalMemory, after: int) -> Sequence[Any]:
        """Also the events collected since the last flush (before those pending)."""
        pending = principal.pending_events
        if pending and pending[0].originator_version <= after + 1:
            return _past(pending, after)
        return [*_past(self.pending.events_of(principal.id), after), *pending]

    def __len__(self) -> int:
        """Events collected and not yet flushed."""
        return len(self.pending)

    def flush(self) -> None:
        """Write everything collected in one transaction; catch the read model up once."""
        self.commit()
        events, aggregates = self.pending.take()
        if events:
            self._save_batch(self.adapters.app, events, aggregates)
            self.adapters.runner.catch_up()

    def rollback(self) -> None:
        super().rollback()
        self.pending.take()

    def _write(self, aggregates: list[Any]) -> None:
        self.pending.collect(*aggregates)


def _past(events: Sequence[Any], after: int) -> Sequence[Any]:
    """The events past version ``after`` of a run of one aggregate's consecutive
    versions."""
    if not events or events[0].originator_version > after:
        return events
    return events[after + 1 - events[0].originator_version :]


def run_retrying(make_uow: Callable[[], U], work: Callable[[U], T]) -> T:
    """Run ``work`` in a fresh unit of work; on a lost race, back off and run it again.

    Full jitter: attempt ``n`` waits a uniform time in [0, min(cap, base * 2**n)], so
    writers that collided do not collide again in lockstep. Gives up after
    ``MAX_ATTEMPTS`` or ``RETRY_BUDGET_SECONDS`` with ``WriteConflict``.
    """
    started = time.monotonic()
    for attempt in itertools.count(1):
        uow = make_uow()
        try:
            with event_store_errors(), uow:
                return work(uow)
        except RecordConflictError as error:
            elapsed = time.monotonic() - started
            if attempt >= MAX_ATTEMPTS or elapsed >= RETRY_BUDGET_SECONDS:
                principals = tuple(sorted(uow.principals_seen))
                raise WriteConflict(principals, attempt, elapsed) from error
            ceiling = min(BACKOFF_CAP_SECONDS, BACKOFF_BASE_SECONDS * 2 ** (attempt - 1))
            time.sleep(_jitter.uniform(0, ceiling))
    raise AssertionError("unreachable")
