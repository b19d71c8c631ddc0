"""The eventsourcing Application and the composition root (``memory_es.open``).

Everything with I/O is wired here: the store, the read model, the clock, the ids. The
domain below it stays pure; the read model follows the log inline after every save.
"""

from __future__ import annotations

import itertools
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal, TypeVar
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError, Application, ProcessingEvent
from eventsourcing.persistence import PersistenceError, RecordConflictError

from memory_es.context.budget import (
    EPISODE_MAX_PAGES,
    EPISODE_PAGE_SIZE,
)
from memory_es.context.episodes import EpisodeSearch, search_episodes
from memory_es.context.pack import ContextPack, build_context_pack
from memory_es.context.snapshot import take_session_snapshot
from memory_es.domain.principal import PrincipalMemory
from memory_es.domain.session import Session
from memory_es.domain.values import (
    DEFAULT_TENANT,
    GENERAL_SCOPE,
    Role,
    principal_aggregate_id,
)
from memory_es.errors import (
    InvalidInput,
    StaleReadModel,
    StoreUnavailable,
    UnknownSession,
)
from memory_es.formation import service as formation_service
from memory_es.formation.consolidation import ConsolidationResult
from memory_es.formation.established import EstablishedFact
from memory_es.formation.extractor import ClauseExtractor, Extractor, SourceTurn
from memory_es.formation.hazards import screen
from memory_es.history import BeliefEvent, belief_history
from memory_es.maintenance import MaintenanceReport, run_maintenance
from memory_es.ports import Clock, IdGenerator, RandomIds, SystemClock, iso, parse_iso
from memory_es.profiles import MemoryProfile, resolve_profile
from memory_es.retrieval.embedding import make_embedder
from memory_es.retrieval.recall import RecallQuery, RecallResult, Retriever
from memory_es.stores import StoreSpec, parse_store_url
from memory_es.unit_of_work import PendingWrites
from projections.base import RecallIndex
from projections.memory import MemoryRecallIndex
from projections.records import BeliefRecord, principal_key
from projections.runner import Progress, ProjectionRunner
from projections.traces import TraceRecord, TraceStore, trace_store_for
from projections.vectors import Embedder, VectorEncoder

if TYPE_CHECKING:
    from memory_es.ingest import IngestReport

T = TypeVar("T")

# A concurrent writer to the same principal makes a save fail on its version check;
# the command is re-run on fresh state. Bounded, because a conflict that keeps coming
# back is a bug, not contention.
MAX_COMMAND_ATTEMPTS = 8


class MemoryApplication(Application[UUID]):
    name = "memory_es"
    # Snapshots bound how many events a cold load replays; the cache makes a warm
    # command cost one fast-forward read instead of a replay.
    snapshotting_intervals: ClassVar[dict[type[Any], int]] = {
        PrincipalMemory: 200,
        Session: 200,
    }
    env: ClassVar[dict[str, str]] = {
        "AGGREGATE_CACHE_MAXSIZE": "1000",
        # Commands run under one write lock per process and evict on failure, so the
        # cached aggregate can be handed out without a deep copy (which is O(state)).
        "DEEPCOPY_FROM_AGGREGATE_CACHE": "n",
        # The json module's stored format, parsed and written by orjson (transcoder.py).
        "TRANSCODER_TOPIC": "memory_es.transcoder:OrjsonTranscoder",
    }

    def _take_snapshots(self, processing_event: ProcessingEvent[UUID]) -> None:
        """Snapshot a saved aggregate from memory when the event that reaches its interval
        is its last: it is that version already. The library would first reconstruct it
        from the store (a cold load of the whole state: a principal's every belief);
        an interval reached inside a batch is still left to it."""
        if self.snapshots is None or not self.snapshotting_intervals:
            return
        for event in processing_event.events:
            aggregate = processing_event.aggregates.get(event.originator_id)
            interval = self.snapshotting_intervals.get(type(aggregate))
            if aggregate is None or interval is None or event.originator_version % interval:
                continue
            snapshot_class = getattr(type(aggregate), "Snapshot", None)
            if snapshot_class is not None and aggregate.version == event.originator_version:
                self.snapshots.put([snapshot_class.take(aggregate)])
            else:
                self.take_snapshot(event.originator_id, version=event.originator_version)


@dataclass(frozen=True)
class TurnReceipt:
    session_id: str
    turn_id: str
    seq: int
    trusted: bool
    redactions: tuple[str, ...]


@dataclass(frozen=True)
class ProjectionStatus:
    name: str
    tracked_position: int
    log_head: int
    version: str | None
    expected_version: str

    @property
    def lag(self) -> int:
        return max(0, self.log_head - self.tracked_position)

    @property
    def stale(self) -> bool:
        return self.version is not None and self.version != self.expected_version


class Memory:
    """One memory store: record turns, close sessions, recall, rebuild read models."""

    def __init__(
        self,
        spec: StoreSpec,
        app: MemoryApplication,
        index: RecallIndex,
        *,
        clock: Clock,
        ids: IdGenerator,
        extractor: Extractor,
        profile: MemoryProfile | None = None,
        traces: TraceStore | None = None,
        embedder: Embedder | None = None,
    ) -> None:
        self.spec = spec
        self.app = app
        self.index = index
        self.ids = ids
        self.extractor = extractor
        self.profile = profile or resolve_profile()
        self.traces = traces or trace_store_for(index)
        self.retriever = Retriever(
            index, self.traces, profile=self.profile, clock=clock, ids=ids, embedder=embedder
        )
        self.clock = clock
        self.runner = ProjectionRunner(app.recorder, app.mapper, index)
        self._write_lock = threading.RLock()
        # Installed by the bulk path (memory_es/ingest.py): saves collect, flush writes.
        self._pending: PendingWrites | None = None

    @property
    def clock(self) -> Clock:
        return self._clock

    @clock.setter
    def clock(self, clock: Clock) -> None:
        # One clock for commands and recall (the demo and replays swap it in).
        self._clock = clock
        self.retriever.clock = clock

    # -- lifecycle -------------------------------------------------------------------------

    def close(self) -> None:
        self.index.close()
        self.app.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- commands ----------------------------------------------------------------------------

    def open_session(
        self,
        principal: str,
        *,
        project: str | None = None,
        tenant: str = DEFAULT_TENANT,
        snapshot: bool = True,
    ) -> str:
        """Open a session; with ``snapshot`` (the default) its session snapshot is taken
        and recorded in the same save (see memory_es/context/snapshot.py)."""
        principal = _require_name("principal", principal)

        def command() -> str:
            now = self.clock.now()
            session = Session(
                id=UUID(self.ids.new_id()),
                tenant=tenant,
                principal=principal,
                project=(project or GENERAL_SCOPE).strip() or GENERAL_SCOPE,
                opened_at=iso(now),
            )
            if snapshot:
                self.runner.catch_up()  # another process may have written since
                frozen = take_session_snapshot(
                    self.index,
                    principal_key(tenant, principal),
                    project=session.project,
                    session_id=str(session.id),
                    now=now,
                    profile=self.profile,
                )
                session.take_session_snapshot(**frozen.event_fields())
            self._save(session)
            return str(session.id)

        return self._command(command)

    def say(self, session_id: str, text: str, *, role: str = "user") -> TurnReceipt:
        try:
            role_value = Role(role)
        except ValueError:
            raise InvalidInput(f"unknown role {role!r}: use user or assistant") from None
        if not text or not text.strip():
            raise InvalidInput("a turn needs non-empty text")
        # Secrets are redacted before the event exists: the log can never be scrubbed.
        screened = screen(text)

        def command() -> TurnReceipt:
            session = self._get_session(session_id)
            turn_id = self.ids.new_id()
            session.record_turn(
                turn_id=turn_id,
                role=role_value.value,
                text=screened.text,
                trusted=role_value is Role.USER and not screened.injection,
                at=iso(self.clock.now()),
                redactions=list(screened.redactions),
                hazards=list(screened.hazards),
            )
            self._save(session)
            return TurnReceipt(
                session_id=str(session.id),
                turn_id=turn_id,
                seq=session.turn_count,
                trusted=role_value is Role.USER and not screened.injection,
                redactions=screened.redactions,
            )

        return self._command(command)

    def close_session(
        self, session_id: str, *, trigger: str = "session_close"
    ) -> ConsolidationResult:
        """Close the session and form beliefs from it; both saved in one transaction."""
        return formation_service.close_session(self, session_id, trigger=trigger)

    # -- formation: established facts, remember, rejection, replay, idle sweep ------------

    def establish_facts(
        self, session_id: str, facts: Sequence[EstablishedFact]
    ) -> formation_service.FactsReceipt:
        """Facts the agent established in an open session, each with the turn ids that
        back it; formation admits them at AFFIRMED when the session closes."""
        return formation_service.establish_facts(self, session_id, facts)

    def remember(
        self,
        principal: str,
        text: str,
        *,
        project: str | None = None,
        tenant: str = DEFAULT_TENANT,
    ) -> ConsolidationResult:
        """The remember tool: the statement forms at AFFIRMED, its own evidence."""
        return formation_service.remember(self, principal, text, project=project, tenant=tenant)

    def reject(self, belief_ref: str) -> BeliefRecord:
        """Durable user rejection (a full id or an eight-hex short id)."""
        return formation_service.reject(self, belief_ref)

    def replay_session(self, session_id: str, *, confirm: bool = False) -> ConsolidationResult:
        """Opt-in re-derivation of a closed session under the current formation policy."""
        return formation_service.replay(self, session_id, confirm=confirm)

    def run_maintenance(self, *, dry_run: bool = False) -> MaintenanceReport:
        """Operator maintenance: the idle-session sweep and recall-trace expiry."""
        return run_maintenance(self, dry_run=dry_run)

    # -- queries -----------------------------------------------------------------------------

    def session_turns(self, session_id: str) -> list[SourceTurn]:
        session_uuid = _parse_session_id(session_id)
        return [
            SourceTurn(
                turn_id=e.turn_id, seq=e.seq, role=e.role, text=e.text, trusted=e.trusted, at=e.at
            )
            for e in self._turn_events(session_uuid)
        ]

    def session(self, session_id: str) -> Session:
        return self._get_session(session_id)

    def recall(
        self,
        principal: str,
        query: str,
        *,
        project: str | None = None,
        limit: int = 10,
        tenant: str = DEFAULT_TENANT,
        as_of: datetime | str | None = None,
        include_superseded: bool = False,
    ) -> RecallResult:
        """Recall for a query; ``as_of`` reads what was believed at that instant."""
        if limit < 1:
            raise InvalidInput("limit must be at least 1")
        return self.retriever.recall(
            RecallQuery(
                principal=principal_key(tenant, principal),
                text=query,
                project=project or GENERAL_SCOPE,
                limit=limit,
                as_of=_instant(as_of),
                include_superseded=include_superseded,
            )
        )

    def list_beliefs(self, principal: str, *, tenant: str = DEFAULT_TENANT) -> list[BeliefRecord]:
        return self.index.beliefs(principal_key(tenant, principal))

    def belief_history(self, belief_id: str) -> list[BeliefEvent]:
        """The events of one belief (a full id) with their store positions, from the log."""
        return belief_history(self, belief_id)

    # -- retrieval: in-turn recall and recall traces (memory_es/retrieval/) ----------------

    def recall_in_session(self, session_id: str, text: str, *, limit: int = 10) -> RecallResult:
        """In-turn recall: the query former at the session's own project scope."""
        session = self._get_session(session_id)
        return self.retriever.recall(
            RecallQuery(
                principal=principal_key(session.tenant, session.principal),
                text=text,
                project=session.project,
                limit=limit,
                kind="in_turn",
                session_id=str(session.id),
            )
        )

    def trace(self, trace_id: str) -> TraceRecord | None:
        return self.traces.get(trace_id)

    def expire_operator_fields(self, now: datetime | None = None, limit: int | None = None) -> int:
        """Null the operator tier of traces past their expiry; idempotent (seed gate 11)."""
        at = (now or self.clock.now()).replace(microsecond=0)
        return self.traces.expire_operator_fields(iso(at), limit)

    def head_position(self, principal: str, *, tenant: str = DEFAULT_TENANT) -> int:
        return self.index.head_position(principal_key(tenant, principal))

    # -- context (issue 5): context packs and episode search --------------------------------

    def context(
        self,
        session_id: str,
        text: str,
        *,
        window_tokens: int | None = None,
        recall_items: int | None = None,
        recall_tokens: int | None = None,
    ) -> ContextPack:
        """The context pack for the session's next model call (memory_es/context/pack.py)."""
        with self._write_lock:
            self.runner.catch_up()  # the delta must see another process's writes too
            return build_context_pack(
                self.index,
                self._get_session(session_id),
                text,
                now=self.clock.now(),
                window_tokens=window_tokens,
                recall_items=recall_items,
                recall_tokens=recall_tokens,
                profile=self.profile,
            )

    def search_episodes(
        self,
        principal: str,
        text: str,
        *,
        limit: int = 10,
        cursor: int = 0,
        tenant: str = DEFAULT_TENANT,
        page_size: int = EPISODE_PAGE_SIZE,
        max_pages: int = EPISODE_MAX_PAGES,
    ) -> EpisodeSearch:
        """Turns of the principal's sessions matching ``text``: a bounded page loop."""

        def owner(session_uuid: UUID) -> str | None:
            try:
                session = self._get_session(str(session_uuid))
            except UnknownSession:
                return None
            return principal_key(session.tenant, session.principal)

        return search_episodes(
            self.app.recorder,
            self.app.mapper,
            owner,
            tenant=tenant,
            principal=principal,
            text=text,
            limit=limit,
            cursor=cursor,
            page_size=page_size,
            max_pages=max_pages,
        )

    # -- bulk ingest (perf: memory_es/ingest.py) -------------------------------------------

    def ingest(
        self,
        lines: Iterable[bytes | str],
        *,
        tenant: str = DEFAULT_TENANT,
        batch_events: int | None = None,
        flush_each_session: bool = False,
        progress: Callable[[int], None] | None = None,
    ) -> IngestReport:
        """Validate JSON-Lines turns (all or nothing), then open, record and close sessions."""
        from memory_es import ingest

        turns = ingest.validate(lines)
        return ingest.ingest(
            self,
            turns,
            tenant=tenant,
            batch_events=batch_events or ingest.DEFAULT_BATCH_EVENTS,
            flush_each_session=flush_each_session,
            progress=progress,
        )

    # -- read models ------------------------------------------------------------------------

    def catch_up(self) -> int:
        return self.runner.catch_up()

    def rebuild_projections(self, *, progress: Progress | None = None) -> int:
        with self._write_lock:
            return self.runner.rebuild(progress=progress)

    def projection_status(self) -> ProjectionStatus:
        return ProjectionStatus(
            name="recall_index",
            tracked_position=self.index.tracked_position(),
            log_head=self.runner.log_head(),
            version=self.index.stored_version(),
            expected_version=self.index.version,
        )

    # -- internals ---------------------------------------------------------------------------

    def _command(self, command: Callable[[], T]) -> T:
        """Run a command under the write lock; re-run it on a concurrency conflict."""
        for attempt in range(1, MAX_COMMAND_ATTEMPTS + 1):
            with self._write_lock:
                try:
                    return command()
                except RecordConflictError:
                    self._evict_cache()
                    if attempt == MAX_COMMAND_ATTEMPTS:
                        raise
                except BaseException:
                    self._evict_cache()
                    raise
        raise AssertionError("unreachable")

    def _evict_cache(self) -> None:
        """A failed command may have mutated cached aggregates: forget them all."""
        cache = self.app.repository.cache
        if cache is not None:
            self.app._repository = self.app.construct_repository()

    def _save(self, *aggregates: Any) -> None:
        with self._write_lock:
            if self._pending is not None:
                self._pending.collect(*aggregates)
                return
            self.app.save(*aggregates)
            self.runner.catch_up()

    def _get_session(self, session_id: str) -> Session:
        session_uuid = _parse_session_id(session_id)
        if self._pending is not None and (pending := self._pending.get(session_uuid)):
            return pending  # type: ignore[no-any-return]
        try:
            session: Session = self.app.repository.get(session_uuid)
        except AggregateNotFoundError:
            raise UnknownSession(session_id) from None
        if not isinstance(session, Session):
            raise UnknownSession(session_id)
        return session

    def _get_or_create_principal(self, tenant: str, principal: str) -> PrincipalMemory:
        aggregate_id = principal_aggregate_id(principal, tenant)
        if self._pending is not None and (pending := self._pending.get(aggregate_id)):
            return pending  # type: ignore[no-any-return]
        try:
            aggregate: PrincipalMemory = self.app.repository.get(aggregate_id)
            return aggregate
        except AggregateNotFoundError:
            return PrincipalMemory(tenant=tenant, principal=principal)

    def session_events(self, session_uuid: UUID) -> Iterator[Any]:
        """The session's events: those stored, then those pending in an ingest batch."""
        pending = self._pending.events_of(session_uuid) if self._pending is not None else []
        # A session opened in the pending batch has nothing in the store yet.
        opened_here = bool(pending) and pending[0].originator_version == 1
        stored = () if opened_here else self.app.events.get(session_uuid)
        return itertools.chain(stored, pending)

    def _turn_events(self, session_uuid: UUID) -> Iterator[Any]:
        for event in self.session_events(session_uuid):
            if isinstance(event, Session.TurnRecorded):
                yield event


def _parse_session_id(session_id: str) -> UUID:
    try:
        return UUID(session_id.strip())
    except (ValueError, AttributeError):
        raise UnknownSession(str(session_id)) from None


def _instant(value: datetime | str | None) -> datetime | None:
    if value is None or isinstance(value, datetime):
        if isinstance(value, datetime) and value.tzinfo is None:
            raise InvalidInput("as_of needs a timezone-aware instant")
        return value
    try:
        return parse_iso(value)
    except ValueError:
        raise InvalidInput(f"as_of needs an ISO-8601 instant with a timezone: {value!r}") from None


def _require_name(what: str, value: str) -> str:
    value = (value or "").strip()
    if not value:
        raise InvalidInput(f"a {what} needs a non-empty name")
    return value


def open(
    url: str,
    *,
    clock: Clock | None = None,
    ids: IdGenerator | None = None,
    extractor: Extractor | None = None,
    on_stale: Literal["refuse", "rebuild", "ignore"] = "refuse",
    profile: MemoryProfile | str | Path | None = None,
    embedder: Embedder | None = None,
) -> Memory:
    """Open a store: create its tables, apply migrations, catch the read model up.

    A read model built by other code (``on_stale``) is refused with a clear message,
    rebuilt from position 0, or left alone for an operator command to inspect.
    ``profile`` is a MemoryProfile or an overlay YAML path (default: MEMORY_ES_PROFILE,
    else the shipped profiles.yaml). With ``retrieval.semantic_enabled`` the vector arm
    runs with ``embedder`` (default: the profile's) and the read model holds its vectors.
    """
    spec = parse_store_url(url)
    resolved = resolve_profile(profile)
    if resolved.retrieval.semantic_enabled:
        embedder = embedder or make_embedder(resolved.retrieval.embedder)
    else:
        embedder = None
    unavailable: tuple[type[Exception], ...] = (
        *_driver_errors(spec),
        sqlite3.Error,
        PersistenceError,
        OSError,
    )
    try:
        index = _make_index(spec, VectorEncoder(embedder) if embedder else None)
        with index.setup_lock():
            app = MemoryApplication(env=spec.env)
    except unavailable as error:
        raise StoreUnavailable(f"cannot open store {spec.display}: {_first_line(error)}") from None
    memory = Memory(
        spec,
        app,
        index,
        clock=clock or SystemClock(),
        ids=ids or RandomIds(),
        extractor=extractor or ClauseExtractor(residue=resolved.formation.residue_enabled),
        profile=resolved,
        embedder=embedder,
    )
    status = memory.projection_status()
    if status.stale and on_stale == "ignore":
        return memory
    if status.stale:
        if on_stale == "refuse":
            memory.close()
            raise StaleReadModel(
                f"the read model was built as {status.version}, this code reads "
                f"{status.expected_version}: run `memory-es projections rebuild`"
            )
        memory.rebuild_projections()
    else:
        memory.catch_up()
    return memory


def _driver_errors(spec: StoreSpec) -> tuple[type[Exception], ...]:
    """psycopg is imported only for a PostgreSQL store (it costs start-up time)."""
    if spec.kind != "postgres":
        return ()
    import psycopg

    return (psycopg.Error,)


def _make_index(spec: StoreSpec, encoder: VectorEncoder | None = None) -> RecallIndex:
    index: RecallIndex
    if spec.kind == "memory":
        index = MemoryRecallIndex()
    elif spec.kind == "sqlite":
        from projections.sqlite import SqliteRecallIndex

        sqlite_index = SqliteRecallIndex(spec.sqlite_path)
        sqlite_index.migrate()
        index = sqlite_index
    else:
        from projections.postgres import PostgresRecallIndex

        pg_index = PostgresRecallIndex(spec.pg_conninfo, schema=spec.pg_schema)
        pg_index.migrate()
        index = pg_index
    index.vector_encoder = encoder
    return index


def _first_line(error: BaseException) -> str:
    text = str(error).strip() or type(error).__name__
    return text.splitlines()[0]
