"""The ``Memory`` facade: each method builds a command or a query and hands it on.

The store, the read model and the services are built by the composition root
(``memory_es/bootstrap.py``, ``memory_es.open``); the read side's own status is in
``memory_es/views.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast
from uuid import UUID

from memory_es.domain.inputs import check_position
from memory_es.domain.values import DEFAULT_TENANT, GENERAL_SCOPE, Role, normalize_name
from memory_es.errors import InvalidInput, UnknownSession, UsageError
from memory_es.ports import Clock, IdGenerator, instant_second, parse_iso
from memory_es.profile_document import shipped_profile
from memory_es.projections.records import BeliefRecord, principal_key
from memory_es.projections.runner import Progress, ProjectionRunner
from memory_es.projections.vectors import Embedder
from memory_es.services import Adapters, CommandBus, commands
from memory_es.services.results import TurnReceipt
from memory_es.services.unit_of_work import load_session, parse_session_id
from memory_es.store_errors import event_store_errors
from memory_es.stores import StoreSpec
from memory_es.views import ProjectionStatus

# What only some commands need is imported where it is used (light start-up:
# memory_es/startup.py): `session say`
# records a turn without loading the recall stack, formation, numpy or pydantic; the
# profile is validated, the retriever and the extractor built, on first use.
if TYPE_CHECKING:
    from memory_es.bootstrap import MemoryApplication
    from memory_es.context.episodes import EpisodeSearch
    from memory_es.context.pack import ContextPack
    from memory_es.domain.session import Session
    from memory_es.evidence.api import Sources
    from memory_es.forgetting import ForgetReport
    from memory_es.formation.consolidation import ConsolidationResult
    from memory_es.formation.established import EstablishedFact
    from memory_es.formation.extractor import Extractor, SourceTurn
    from memory_es.history import BeliefEvent
    from memory_es.ingest import IngestReport
    from memory_es.keys import KeyRing
    from memory_es.lifecycle.conflicts import PendingConflict
    from memory_es.lifecycle.usage import UsageReceipt
    from memory_es.logio import LogTransfer
    from memory_es.maintenance import MaintenanceReport
    from memory_es.profiles import MemoryProfile
    from memory_es.projections.base import RecallIndex
    from memory_es.projections.traces import TraceRecord, TraceStore
    from memory_es.retrieval.recall import RecallResult, Retriever
    from memory_es.review.api import Review
    from memory_es.services.formation_results import FactsReceipt, RederiveReport
    from memory_es.services.ledger import FormationStatus

__all__ = ["Memory", "ProjectionStatus", "TurnReceipt"]


class Memory:
    """One memory store: record turns, close sessions, recall, rebuild read models.

    A thin facade: each write builds a command and hands it to the service layer
    (``memory_es/services/``), which runs its handler in a unit of work."""

    def __init__(
        self,
        spec: StoreSpec,
        app: MemoryApplication,
        index: RecallIndex,
        *,
        clock: Clock,
        ids: IdGenerator,
        extractor: Extractor | None = None,
        profile: MemoryProfile | None = None,
        traces: TraceStore | None = None,
        embedder: Embedder | None = None,
    ) -> None:
        """``profile`` None is the shipped profile and ``extractor`` None the profile's,
        each built on first use, as is the retriever (``memory_es.open`` resolves an
        operator's overlay before it gets here)."""
        self.spec = spec
        self.app = app
        # Set by open(check_formation=True) when sessions were formed under another
        # formation policy: what is stale and the command that fixes it.
        self.formation_staleness: FormationStatus | None = None
        self.index = index
        self.ids = ids
        self._traces = traces or None  # else made on first use (Memory.traces)
        self.runner = ProjectionRunner(app.recorder, app.mapper, index)
        memory = self

        def make_profile() -> MemoryProfile:
            from memory_es.profiles import load_profile

            return profile or load_profile()

        def make_retriever(adapters: Adapters) -> Retriever:
            # The one retriever: recall, in-turn recall, the session snapshot and the
            # context pack all read through it (its profile, its clock, its vector arm).
            from memory_es.retrieval.recall import Retriever

            # No profile given: the shipped one's knobs as plain data (no pydantic, no
            # yaml: profile_document.py), the values Memory.profile validates.
            knobs = profile or cast("MemoryProfile", shipped_profile())
            return Retriever(
                adapters.index,
                memory.traces,
                profile=knobs,
                clock=adapters.clock,
                ids=adapters.ids,
                embedder=embedder,
                evidence_of=lambda record: memory.sources.for_belief(record),
            )

        def make_extractor(resolved: MemoryProfile) -> Extractor:
            return extractor or _extractor(resolved)

        self.services = CommandBus(
            Adapters(
                app=app,
                index=index,
                runner=self.runner,
                clock=clock,
                ids=ids,
                make_profile=make_profile,
                make_retriever=make_retriever,
                make_extractor=make_extractor,
            )
        )

    @property
    def traces(self) -> TraceStore:
        """The recall traces' store (the read model's, else in memory), made on first use:
        a command that recalls nothing (`session say`) never loads the trace module. One
        per Memory, made under the adapters' lock: the retriever queues into the store
        that close() flushes."""
        with self.services.adapters.lock:
            if self._traces is None:
                from memory_es.projections.traces import trace_store_for

                self._traces = trace_store_for(self.index)
            return self._traces

    @property
    def profile(self) -> MemoryProfile:
        return self.services.adapters.profile

    @property
    def retriever(self) -> Retriever:
        return self.services.adapters.retriever

    @property
    def clock(self) -> Clock:
        return self.services.adapters.clock

    @clock.setter
    def clock(self, clock: Clock) -> None:
        # One clock for commands and recall (the demo and replays swap it in).
        self.services.adapters.set_clock(clock)

    @property
    def extractor(self) -> Extractor:
        return self.services.adapters.extractor

    @extractor.setter
    def extractor(self, extractor: Extractor) -> None:
        self.services.adapters.extractor = extractor

    # -- lifecycle -------------------------------------------------------------------------

    def close(self) -> None:
        try:
            if self._traces is not None:  # made on first use: else nothing was queued
                self._traces.flush()  # the recall traces a store deferred: none lost on close
        finally:
            try:
                self.index.close()
            finally:
                self.app.close()
                if self.app.keys is not None:
                    self.app.keys.close()

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
        return self.services.handle(
            commands.OpenSession(principal, project=project, tenant=tenant, snapshot=snapshot)
        )

    def say(self, session_id: str, text: str, *, role: str = "user") -> TurnReceipt:
        try:
            role_value = Role(role)
        except ValueError:
            raise InvalidInput(f"unknown role {role!r}: use user or assistant") from None
        return self.services.handle(commands.Say(session_id, text, role=role_value))

    def close_session(
        self, session_id: str, *, trigger: str = "session_close"
    ) -> ConsolidationResult:
        """Close the session and form beliefs from it; both saved in one transaction."""
        return self.services.handle(commands.CloseSession(session_id, trigger=trigger))

    # -- formation: established facts, remember, rejection, replay, idle sweep ------------

    def establish_facts(self, session_id: str, facts: Sequence[EstablishedFact]) -> FactsReceipt:
        """Facts the agent established in an open session, each with the turn ids that
        back it; formation admits them at AFFIRMED when the session closes."""
        return self.services.handle(commands.EstablishFacts(session_id, facts))

    def remember(
        self,
        principal: str,
        text: str,
        *,
        project: str | None = None,
        tenant: str = DEFAULT_TENANT,
        from_user: bool = False,
    ) -> ConsolidationResult:
        """The remember tool: the statement forms at AFFIRMED, its own evidence; with
        ``from_user`` it is a statement the user made to memory directly (USER)."""
        return self.services.handle(
            commands.Remember(principal, text, project=project, tenant=tenant, from_user=from_user)
        )

    def reject(
        self, belief_ref: str, *, principal: str | None = None, tenant: str = DEFAULT_TENANT
    ) -> BeliefRecord:
        """Durable user rejection: a full id, or an eight-hex short id within ``principal``
        (a short id resolves only within one principal)."""
        return self.services.handle(commands.Reject(belief_ref, _owner(principal, tenant)))

    def replay_session(self, session_id: str, *, confirm: bool = False) -> ConsolidationResult:
        """Opt-in re-derivation of a closed session under the current formation policy."""
        return self.services.handle(commands.ReplaySession(session_id, confirm=confirm))

    def rederive(
        self,
        principal: str | None = None,
        *,
        tenant: str = DEFAULT_TENANT,
        confirm: bool = False,
        progress: Callable[[int, int], None] | None = None,
    ) -> RederiveReport:
        """Re-derive the principal's (None: every principal's) closed sessions that were
        consolidated under another formation policy, in order, from their turns; a dry
        run (nothing written) unless ``confirm``. Idempotent and resumable: a session
        re-derived under the current policy is skipped (docs/operations.md)."""
        if principal is not None and not principal.strip():
            raise InvalidInput("a principal needs a non-empty name")
        report = self.services.handle(
            commands.Rederive(principal, tenant=tenant, confirm=confirm, progress=progress)
        )
        if confirm and self.formation_staleness is not None:
            status = self.formation_status()
            self.formation_staleness = status if status.pending else None
        return report

    def formation_status(self) -> FormationStatus:
        """Whether a re-derivation is pending: closed sessions consolidated under another
        formation policy (version or extractor) than this store's — from the read model,
        which keeps each session's latest formation key (no scan of the log)."""
        from memory_es.services.ledger import counted_status

        return counted_status(self.index.formation_counts(), self.extractor.name)

    def run_maintenance(self, *, dry_run: bool = False) -> MaintenanceReport:
        """Operator maintenance: the idle-session sweep, the decay sweep, L1 (a dry run
        unless ``lifecycle.l1.enabled``) and recall-trace expiry (memory_es/maintenance.py)."""
        from memory_es.maintenance import run_maintenance

        return run_maintenance(self, dry_run=dry_run)

    # -- lifecycle: usage feedback, conflicts, L1, pins, stats -------------------

    def record_usage(self, session_id: str, run_id: str, final_message: str) -> UsageReceipt:
        """Usage feedback from a completed run's final message: the short ids it cites
        credit utility (never confidence); once per run id (memory_es/lifecycle/usage.py)."""
        from memory_es.lifecycle import commands as lifecycle

        return self.services.handle(lifecycle.RecordUsage(session_id, run_id, final_message))

    def confirm(
        self, belief_id: str, *, principal: str | None = None, tenant: str = DEFAULT_TENANT
    ) -> BeliefRecord:
        """Settle a conflict the user answered: this belief holds at USER authority, each
        live partner is superseded, the links are closed."""
        from memory_es.lifecycle import commands as lifecycle

        return self.services.handle(lifecycle.Confirm(belief_id, _owner(principal, tenant)))

    def conflicts(self, principal: str, *, tenant: str = DEFAULT_TENANT) -> list[PendingConflict]:
        """The principal's beliefs whose conflicts await confirmation."""
        from memory_es.lifecycle.conflicts import pending as pending_conflicts

        self.runner.catch_up()
        return pending_conflicts(self.index, principal_key(tenant, principal))

    def pin(
        self, belief_id: str, *, principal: str | None = None, tenant: str = DEFAULT_TENANT
    ) -> BeliefRecord:
        """Protect a belief from every automatic action (decay, L1, session end)."""
        from memory_es.lifecycle import commands as lifecycle

        return self.services.handle(
            lifecycle.SetPinned(belief_id, pinned=True, owner=_owner(principal, tenant))
        )

    def unpin(
        self, belief_id: str, *, principal: str | None = None, tenant: str = DEFAULT_TENANT
    ) -> BeliefRecord:
        from memory_es.lifecycle import commands as lifecycle

        return self.services.handle(
            lifecycle.SetPinned(belief_id, pinned=False, owner=_owner(principal, tenant))
        )

    def reactivate(
        self, belief_id: str, *, principal: str | None = None, tenant: str = DEFAULT_TENANT
    ) -> BeliefRecord:
        """Undo a deactivation: the same belief in its prior status, a new interval."""
        from memory_es.lifecycle import commands as lifecycle

        return self.services.handle(lifecycle.Reactivate(belief_id, _owner(principal, tenant)))

    def end_session(self, session_id: str) -> list[str]:
        """``session_end``: a closed session's session-tier beliefs (uncorroborated
        inferences it formed) are deactivated, recoverably; returns their ids."""
        from memory_es.lifecycle import commands as lifecycle

        return self.services.handle(lifecycle.EndSession(session_id))

    def stats(
        self, principal: str | None = None, *, tenant: str = DEFAULT_TENANT
    ) -> dict[str, Any]:
        """The tracked lifecycle metrics (integers only) from the log and the trace store."""
        from memory_es.lifecycle.stats import lifecycle_stats

        return lifecycle_stats(self, principal, tenant=tenant)

    @property
    def sources(self) -> Sources:
        """Source evidence declarations (memory_es/evidence/api.py)."""
        from memory_es.evidence.api import Sources

        return Sources(self)

    @property
    def review(self) -> Review:
        """L2 review: proposals, approval, decline (memory_es/review/api.py)."""
        from memory_es.review.api import Review

        return Review(self)

    # -- queries -----------------------------------------------------------------------------

    def session_turns(self, session_id: str) -> list[SourceTurn]:
        from memory_es.services.handlers import source_turns

        return source_turns(self.session_events(parse_session_id(session_id)))

    def session(self, session_id: str) -> Session:
        return load_session(self.app, session_id)

    def session_events(self, session_uuid: UUID) -> Iterator[Any]:
        """The session's stored events, in order."""
        with event_store_errors():
            return iter(self.app.events.get(session_uuid))

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
        as_of_position: int | None = None,
    ) -> RecallResult:
        """Recall for a query; ``as_of`` reads what was believed at that instant (valid
        time); ``as_of_position`` what memory held when the log stood at that position
        (transaction time: before a later correction, rejection or re-derivation),
        folded from the log and read by the same retriever. A past read is not traced."""
        from memory_es.retrieval.recall import RecallQuery

        if limit < 1:
            raise InvalidInput("limit must be at least 1")
        q = RecallQuery(
            principal=principal_key(tenant, principal),
            text=query,
            project=normalize_name(project or "") or GENERAL_SCOPE,
            limit=limit,
            as_of=_instant(as_of),
            include_superseded=include_superseded,
        )
        if as_of_position is None:
            return self.retriever.recall(q)
        past = self.read_model_at(as_of_position, principal, tenant=tenant)
        return self.retriever.over(past).recall(q, traced=False)

    def read_model_at(
        self, position: int, principal: str, *, tenant: str = DEFAULT_TENANT
    ) -> RecallIndex:
        """The principal's read model as it stood when the log stood at ``position``: its
        events up to there folded by the projector into a fresh in-memory index."""
        from memory_es.projections.memory import MemoryRecallIndex
        from memory_es.services.unit_of_work import principal_aggregate_ids

        check_position(position, self.runner.log_head())
        past = MemoryRecallIndex()
        past.vector_encoder = self.index.vector_encoder
        with event_store_errors():
            originators = principal_aggregate_ids(self.app, tenant, principal)
        self.runner.fold(past, until=position, originators=originators)
        return past

    def list_beliefs(self, principal: str, *, tenant: str = DEFAULT_TENANT) -> list[BeliefRecord]:
        return self.index.beliefs(principal_key(tenant, principal))

    def belief_history(self, belief_id: str) -> list[BeliefEvent]:
        """The events of one belief (a full id) with their store positions, from the log."""
        from memory_es.history import belief_history

        return belief_history(self, belief_id)

    # -- forgetting (memory_es/forgetting.py) ------------------------------------------------

    def forget(
        self,
        *,
        turn: str | None = None,
        session: str | None = None,
        principal: str | None = None,
        tenant: str = DEFAULT_TENANT,
        confirm: bool = False,
        reason: str = "",
    ) -> ForgetReport:
        """Forget one turn, session or principal by destroying its keys; a dry run
        (nothing written) unless ``confirm``."""
        from memory_es.forgetting import forget

        return forget(
            self,
            turn=turn,
            session=session,
            principal=principal,
            tenant=tenant,
            confirm=confirm,
            reason=reason,
        )

    # -- moving a store (memory_es/logio.py) ------------------------------------------------

    def export_log(
        self,
        path: Path,
        *,
        until: int | None = None,
        progress: Progress | None = None,
        decrypted: bool = False,
    ) -> LogTransfer:
        """Write the whole log (up to position ``until``) to a JSON-Lines file: sealed
        text as ciphertext, or with ``decrypted`` opened by this store's keys."""
        from memory_es.logio import export_log

        return export_log(self, path, until=until, progress=progress, decrypted=decrypted)

    def export_keys(self, path: Path) -> int:
        """Write every key of the store to ``path`` (``keys export``); returns the count."""
        from memory_es.keys import write_key_file

        return write_key_file(path, self._key_ring().export_rows())

    def import_keys(self, path: Path) -> int:
        """Add the keys of a ``keys export`` file to this store (existing ids keep theirs)."""
        from memory_es.keys import read_key_file

        rows = read_key_file(path)
        self._key_ring().import_rows(rows)
        return len(rows)

    def _key_ring(self) -> KeyRing:
        if self.app.keys is None:
            raise UsageError("this store was opened without sealing: it has no key store")
        return self.app.keys

    def import_log(
        self,
        path: Path,
        *,
        progress: Progress | None = None,
        rebuild_progress: Progress | None = None,
    ) -> LogTransfer:
        """Carry an exported log into this store (it must hold no event); then rebuild."""
        from memory_es.logio import import_log

        with self.services.adapters.lock:
            return import_log(self, path, progress=progress, rebuild_progress=rebuild_progress)

    # -- retrieval: in-turn recall and recall traces (memory_es/retrieval/) ----------------

    def recall_in_session(self, session_id: str, text: str, *, limit: int = 10) -> RecallResult:
        """In-turn recall: the query former at the session's own project scope."""
        from memory_es.retrieval.recall import RecallQuery

        session = self.session(session_id)
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
        """Null the operator tier of traces past their expiry; idempotent
        (gate.memory.trace_retention)."""
        return self.traces.expire_operator_fields(instant_second(now or self.clock.now()), limit)

    def head_position(self, principal: str, *, tenant: str = DEFAULT_TENANT) -> int:
        return self.index.head_position(principal_key(tenant, principal))

    # -- context: context packs and episode search --------------------------------

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
        from memory_es.context.pack import build_context_pack
        from memory_es.lifecycle.sweeps import record_context_trace

        with self.services.adapters.lock:
            self.runner.catch_up()  # the delta must see another process's writes too
            pack = build_context_pack(
                self.retriever,
                self.session(session_id),
                text,
                now=self.clock.now(),
                window_tokens=window_tokens,
                recall_items=recall_items,
                recall_tokens=recall_tokens,
            )
            # The in-turn trace usage feedback credits (record_usage).
            record_context_trace(self.services, pack)
            return pack

    def search_episodes(
        self,
        principal: str,
        text: str,
        *,
        limit: int = 10,
        cursor: int = 0,
        tenant: str = DEFAULT_TENANT,
        page_size: int | None = None,
        max_pages: int | None = None,
    ) -> EpisodeSearch:
        """Turns of the principal's sessions matching ``text``: a bounded page loop
        (``page_size`` and ``max_pages`` default to memory_es/context/budget.py's)."""
        from memory_es.context.budget import EPISODE_MAX_PAGES, EPISODE_PAGE_SIZE
        from memory_es.context.episodes import search_episodes

        def owner(session_uuid: UUID) -> str | None:
            try:
                session = self.session(str(session_uuid))
            except UnknownSession:
                return None
            return principal_key(session.tenant, session.principal)

        with event_store_errors():
            return search_episodes(
                self.app.recorder,
                self.app.mapper,
                owner,
                tenant=tenant,
                principal=principal,
                text=text,
                limit=limit,
                cursor=cursor,
                page_size=EPISODE_PAGE_SIZE if page_size is None else page_size,
                max_pages=EPISODE_MAX_PAGES if max_pages is None else max_pages,
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
            self.services,
            turns,
            tenant=tenant,
            batch_events=batch_events or ingest.DEFAULT_BATCH_EVENTS,
            flush_each_session=flush_each_session,
            progress=progress,
        )

    # -- read models ------------------------------------------------------------------------

    def catch_up(self) -> int:
        return self.runner.catch_up()

    def rebuild_projections(
        self, *, progress: Progress | None = None, resume: bool = True, workers: int = 1
    ) -> int:
        """Rebuild the read model beside the serving one and swap it in; exclusive
        (``RebuildInProgress``), and an interrupted one resumes (``resume``). ``workers``
        2: a second process tokenizes ahead of the projector (the same read model)."""
        with self.services.adapters.lock:
            return self.runner.rebuild(progress=progress, resume=resume, workers=workers)

    def projection_status(self, *, probe_rebuild: bool = False) -> ProjectionStatus:
        """``probe_rebuild``: also ask whether a rebuild holds the lock now."""
        leftover = self.index.rebuild_leftover()
        return ProjectionStatus(
            name="recall_index",
            tracked_position=self.index.tracked_position(),
            log_head=self.runner.log_head(),
            version=self.index.stored_version(),
            expected_version=self.index.version,
            rebuild_position=None if leftover is None else leftover[0],
            rebuild_version=None if leftover is None else leftover[1],
            rebuild_running=probe_rebuild and self.index.rebuild_running(),
            quarantined=len(self.index.quarantined()),
        )


def _owner(principal: str | None, tenant: str) -> str | None:
    """The principal a belief reference resolves within (None: a full id, anyone's)."""
    return None if principal is None else principal_key(tenant, principal)


def _instant(value: datetime | str | None) -> datetime | None:
    if value is None or isinstance(value, datetime):
        if isinstance(value, datetime) and value.tzinfo is None:
            raise InvalidInput("as_of needs a timezone-aware instant")
        return value
    try:
        return parse_iso(value)
    except ValueError:
        raise InvalidInput(f"as_of needs an ISO-8601 instant with a timezone: {value!r}") from None


def _extractor(profile: MemoryProfile) -> Extractor:
    from memory_es.formation.extractor import make_extractor

    return make_extractor(profile.formation)
