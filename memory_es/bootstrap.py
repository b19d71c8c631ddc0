"""The composition root: the eventsourcing Application and ``memory_es.open``.

Everything with I/O is wired here: the store, the read model, the key ring, the clock,
the ids; the facade (``memory_es/app.py``) gets them built. The domain below it stays
pure; the read model follows the log inline after every save.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal
from uuid import UUID

from eventsourcing.persistence import Mapper

from memory_es.app import Memory, _extractor
from memory_es.errors import (
    RebuildInProgress,
    StaleFormationWarning,
    StaleReadModel,
    StoreUnavailable,
)
from memory_es.es_internals import IntervalsByTopic, SnapshotsFromMemory
from memory_es.policy import PROJECTION_SCHEMA_VERSION, retrieval_policy
from memory_es.ports import Clock, IdGenerator, RandomIds, SequentialIds, SystemClock
from memory_es.profile_document import PROFILE_ENV, SHIPPED_SEMANTIC_ENABLED
from memory_es.projections.vectors import Embedder, VectorEncoder
from memory_es.store_errors import driver_errors, first_line
from memory_es.stores import StoreMissing, StoreSpec, holds_store, parse_store_url, prepare_store

# What only some commands need is imported where it is used (light start-up:
# memory_es/startup.py): `session say`
# records a turn without loading the recall stack, formation, numpy or pydantic; the
# profile is validated, the retriever and the extractor built, on first use.
if TYPE_CHECKING:
    from memory_es.formation.extractor import Extractor
    from memory_es.keys import KeyRing, KeySource
    from memory_es.profiles import MemoryProfile
    from memory_es.projections.base import RecallIndex

__all__ = ["MemoryApplication", "open"]


class MemoryApplication(SnapshotsFromMemory):
    name = "memory_es"
    # Snapshots bound how many events a cold load replays; the cache makes a warm
    # command cost one fast-forward read instead of a replay.
    # By topic: a command that saves a session only never imports the principal's module.
    snapshotting_intervals: ClassVar[dict[type[Any], int]] = IntervalsByTopic(
        {
            "memory_es.domain.principal:PrincipalMemory": 200,
            "memory_es.domain.session:Session": 200,
        }
    )
    env: ClassVar[dict[str, str]] = {
        "AGGREGATE_CACHE_MAXSIZE": "1000",
        # Commands run under one write lock per process and evict on failure, so the
        # cached aggregate can be handed out without a deep copy (which is O(state)).
        "DEEPCOPY_FROM_AGGREGATE_CACHE": "n",
        # The json module's stored format, parsed and written by orjson (transcoder.py).
        "TRANSCODER_TOPIC": "memory_es.transcoder:OrjsonTranscoder",
    }

    def __init__(self, env: dict[str, str] | None = None, *, keys: KeyRing | None = None) -> None:
        # Set before the library builds the mapper (construct_mapper) in its __init__.
        self.keys = keys
        if keys is None:
            super().__init__(env=env)
            return
        from memory_es.es_internals import join_key_ring, keyed_recorder_env

        # The recorder that writes a save's new key rows in the save's transaction.
        super().__init__(env=keyed_recorder_env(env))
        join_key_ring(self.recorder, keys)

    def construct_mapper(self) -> Mapper[UUID]:
        """With a key ring, the sealing mapper: user-derived text is encrypted under keys
        kept outside the log (memory_es/sealing.py); without one, the library's."""
        if self.keys is None:
            return super().construct_mapper()
        from memory_es.sealing import SealingMapper

        return SealingMapper(transcoder=self.construct_transcoder(), keys=self.keys)


def open(
    url: str,
    *,
    clock: Clock | None = None,
    ids: IdGenerator | None = None,
    extractor: Extractor | None = None,
    on_stale: Literal["refuse", "rebuild", "ignore"] = "refuse",
    profile: MemoryProfile | str | Path | None = None,
    embedder: Embedder | None = None,
    check_formation: bool = True,
    sealing: bool = True,
    key_source: KeySource | None = None,
    create: bool = True,
    sources: str | Path | None = None,
) -> Memory:
    """Open a store: create its tables, apply migrations, catch the read model up.

    ``create=False`` opens only a store that exists (``StoreMissing`` otherwise, and
    nothing is written): what a command that reads does.

    A read model built by other code (``on_stale``) is refused with a clear message,
    rebuilt from position 0, or left alone for an operator command to inspect.
    ``profile`` is a MemoryProfile or an overlay YAML path (default: MEMORY_ES_PROFILE,
    else the shipped profiles.yaml). With ``retrieval.semantic_enabled`` the vector arm
    runs with ``embedder`` (default: the profile's) and the read model holds its vectors.
    With ``check_formation`` a store whose sessions were formed under another formation
    policy (version or extractor) warns (``StaleFormationWarning``) and sets
    ``Memory.formation_staleness``; the fix is ``memory-es memory rederive --all``.
    With ``sealing`` (the default) user-derived text in new events is encrypted under
    keys in the store's key table, from ``key_source`` (default: the system's random
    source), so that ``Memory.forget`` can shred it (memory_es/sealing.py); events
    written without sealing read as before either way.
    ``sources`` (default: env MEMORY_ES_SOURCES) is a source declarations file
    (memory_es/evidence/config.py), applied once the store is open: idempotent, and
    validated whole before anything is written.
    """
    spec = parse_store_url(url)
    resolved: MemoryProfile | None = None  # the shipped profile, validated on first use
    overlay = (os.environ.get(PROFILE_ENV) or None) if profile is None else profile
    if overlay is not None or SHIPPED_SEMANTIC_ENABLED:
        # An operator's profile is validated now, so a bad one fails here, before any
        # write (and so is the shipped one if it ever turned the vector arm on).
        from memory_es.profiles import resolve_profile

        resolved = resolve_profile(profile)
    if resolved is not None and resolved.retrieval.semantic_enabled:
        from memory_es.retrieval.embedding import make_embedder

        embedder = embedder or make_embedder(resolved.retrieval.embedder)
    else:
        embedder = None
    try:
        if create:
            prepare_store(spec)
        elif not holds_store(spec, MemoryApplication.name):
            raise StoreMissing(spec)
        index = _make_index(spec, VectorEncoder(embedder) if embedder else None)
        with index.setup_lock():  # first opens race to create the tables: one at a time
            keys = _make_key_ring(spec, key_source) if sealing else None
            app = MemoryApplication(env=spec.env, keys=keys)
    except StoreMissing:
        raise
    except Exception as error:
        # driver_errors() after the fact: psycopg is imported only for a PostgreSQL store.
        if not isinstance(error, (*driver_errors(), OSError, StoreUnavailable)):
            raise
        # The read model's adapter translated its driver's error already: name its cause.
        cause = error.__cause__ if isinstance(error, StoreUnavailable) else error
        reason = first_line(cause or error)
        raise StoreUnavailable(f"cannot open store {spec.display}: {reason}") from None
    if spec.persistent and isinstance(ids, SequentialIds):
        # Other processes may write this store with sequential ids too: take numbers
        # from the store's sequence, never a second copy of someone else's.
        ids.bind(index.reserve_ids)
    memory = Memory(
        spec,
        app,
        index,
        clock=clock or SystemClock(),
        ids=ids or RandomIds(),
        # An operator's extractor (a provider needs its MEMORY_ES_MODEL_* settings) is
        # built now; the shipped profile's clause extractor on first use.
        extractor=extractor or (_extractor(resolved) if resolved is not None else None),
        profile=resolved,
        embedder=embedder,
    )
    status = memory.projection_status()
    if status.stale and on_stale == "ignore":
        return memory
    if status.stale and caught_up_once(status.version, status.expected_version):
        _catch_up_once(memory, status.version or "", status.expected_version)
    elif status.stale:
        if on_stale == "refuse":
            memory.close()
            raise StaleReadModel(
                f"the read model was built as {status.version}, this code reads "
                f"{status.expected_version}: run `memory-es projections rebuild`"
            )
        memory.rebuild_projections()
    else:
        memory.catch_up()
    declarations = sources if sources is not None else os.environ.get("MEMORY_ES_SOURCES")
    if declarations:
        from memory_es.evidence.config import apply_declarations

        try:
            apply_declarations(memory, declarations)
        except BaseException:
            memory.close()
            raise
    if check_formation:
        _check_formation(memory)
    return memory


# Read models this code brings up to date by itself, once, at start-up, as (schema,
# retrieval policy) pairs: main's 8 and retrieval@5, before schema 9 added what the
# resolver reads (migration 0010) and 10 each turn's antecedent words (0011), with
# retrieval@6 reading them. All of it is derived from the log, so a rebuild from the log
# is the whole upgrade. Any other stale read model is refused (or rebuilt when asked).
CAUGHT_UP_ONCE = ((8, 5),)


def caught_up_once(version: str | None, expected: str) -> bool:
    """Whether a read model built as ``version`` is one start-up rebuilds by itself: one
    of CAUGHT_UP_ONCE, the rest of its version (vectors) as this code's."""
    current = f"recall_index@{PROJECTION_SCHEMA_VERSION};{retrieval_policy()}"
    if version is None or not expected.startswith(current):
        return False
    rest = expected[len(current) :]
    return any(
        version == f"recall_index@{schema};retrieval@{retrieval}{rest}"
        for schema, retrieval in CAUGHT_UP_ONCE
    )


def _catch_up_once(memory: Memory, version: str, expected: str) -> None:
    """The one-time rebuild, said on stderr (a hook's output is its own, on stdout)."""
    head = memory.projection_status().log_head
    sys.stderr.write(
        f"memory-es: the read model was built as {version}; this code reads {expected}:"
        f" rebuilding it once from the log ({head} positions)\n"
    )
    try:
        memory.rebuild_projections()
    except RebuildInProgress:
        memory.close()
        raise StaleReadModel(
            f"the read model was built as {version} and another process is rebuilding it"
            f" as {expected}: try again when it finishes"
        ) from None


def _check_formation(memory: Memory) -> None:
    """Warn when a re-derivation is pending (one scan of the consolidation audit
    events: docs/operations.md gives its cost)."""
    import warnings

    status = memory.formation_status()
    if status.pending:
        memory.formation_staleness = status
        warnings.warn(StaleFormationWarning(status.message()), stacklevel=3)


def _make_key_ring(spec: StoreSpec, source: KeySource | None) -> KeyRing:
    """The key ring over the store's own key table (memory_es/keys.py)."""
    from memory_es.keys import KeyRing, MemoryKeyTable, PostgresKeyTable, SqliteKeyTable

    if spec.kind == "sqlite":
        return KeyRing(SqliteKeyTable(spec.sqlite_path), source)
    if spec.kind == "postgres":
        return KeyRing(PostgresKeyTable(spec.pg_connect, spec.pg_schema), source)
    return KeyRing(MemoryKeyTable(), source)


def _make_index(spec: StoreSpec, encoder: VectorEncoder | None = None) -> RecallIndex:
    index: RecallIndex
    if spec.kind == "memory":
        from memory_es.projections.memory import MemoryRecallIndex

        index = MemoryRecallIndex()
    elif spec.kind == "sqlite":
        from memory_es.projections.sqlite import SqliteRecallIndex

        sqlite_index = SqliteRecallIndex(spec.sqlite_path)
        sqlite_index.migrate()
        index = sqlite_index
    else:
        from memory_es.projections.postgres import PostgresRecallIndex

        pg_index = PostgresRecallIndex(spec.pg_connect, schema=spec.pg_schema)
        pg_index.migrate()
        index = pg_index
    index.vector_encoder = encoder
    return index
