"""Library append: turns appended through the library beside raw appends of the same rows."""

from __future__ import annotations

import gc
import statistics
import time
from typing import Any
from uuid import UUID

import memory_es
from memory_es.benchmarks.perf import library_path
from memory_es.benchmarks.perf.phases.common import _open
from memory_es.domain.session import Session
from memory_es.domain.values import DEFAULT_TENANT, GENERAL_SCOPE
from memory_es.es_internals import save_collected
from memory_es.stores import parse_store_url


def _turn_session(ids: Any, principal: str, turns: int, n: int) -> Session:
    """A session of ``turns`` user turns, unsaved: the event shapes the append phases
    time (benchmarks/perf/pairs.py keeps its own copy: it runs in other checkouts)."""
    session = Session(
        id=UUID(ids.new_id()),
        tenant=DEFAULT_TENANT,
        principal=principal,
        project=GENERAL_SCOPE,
        opened_at="2026-01-05T09:00:00Z",
    )
    for t in range(turns):
        session.record_turn(
            turn_id=ids.new_id(),
            role="user",
            text=f"I live in City{t}. My manager is Dana{n}.",
            trusted=True,
            at="2026-01-05T09:01:00Z",
            redactions=[],
            hazards=[],
        )
    return session


def phase_append(store: dict[str, Any], cfg: dict[str, Any]) -> dict[str, Any]:
    """eventsourcing + our transcoder: turn events saved 1000 per transaction and one each."""
    with _open(store["url"]) as memory:
        app, ids = memory.app, memory.ids
        n = cfg["physical_rows"]
        sessions = []
        for s in range(0, n, 500):
            sessions.append(_turn_session(ids, f"append{s}", 499, s))
        events = sum(len(s.pending_events) for s in sessions)
        gc.collect()
        t0 = time.perf_counter()
        for start in range(0, len(sessions), 2):  # ~1000 events a save
            app.save(*sessions[start : start + 2])
        batched = time.perf_counter() - t0

        session = Session(
            id=UUID(ids.new_id()),
            tenant=DEFAULT_TENANT,
            principal="append-one",
            project=GENERAL_SCOPE,
            opened_at="2026-01-05T09:00:00Z",
        )
        app.save(session)
        per_tx = cfg["per_tx_rows"]
        t0 = time.perf_counter()
        for t in range(per_tx):
            session.record_turn(
                turn_id=ids.new_id(),
                role="user",
                text=f"I live in City{t}.",
                trusted=True,
                at="2026-01-05T09:01:00Z",
                redactions=[],
                hazards=[],
            )
            app.save(session)
        one = time.perf_counter() - t0
        beside = _append_beside_library(memory, store, min(n, 20_000))
    out = {
        "append_events_per_s": events / batched,
        "append_one_per_tx_events_per_s": per_tx / one,
        "append_events": events,
    }
    out.update(beside)
    return out


def _append_beside_library(
    memory: memory_es.Memory, store: dict[str, Any], n: int, rounds: int = 5
) -> dict[str, Any]:
    """The same turn events built and saved ~1000 a transaction, timed from the first
    command to the last commit, three ways in five alternating rounds (medians): ours
    (``Session.record_turn``, our transcoder and snapshotting, saved through our unit of
    work's ``save_collected``), the library's aggregate path (``library_path``: an
    ``Aggregate`` with ``@event`` methods, a stock ``Application.save``), and the
    library's bare ``insert_events`` of the already encoded events."""
    n = max(500, n // 500 * 500)  # whole sessions of 500 events (an Opened, 499 turns)
    spec = parse_store_url(store["url"])
    library = library_path.open_library(spec.env)
    app, ids = memory.app, memory.ids
    per_session = 499

    def ours() -> float:
        t0 = time.perf_counter()
        batch: list[Session] = []
        for s in range(0, n, per_session + 1):
            batch.append(_turn_session(ids, f"ours{s}", per_session, s))
            if len(batch) == 2:
                save_collected(app, [e for b in batch for e in b.collect_events()], batch)
                batch = []
        if batch:
            save_collected(app, [e for b in batch for e in b.collect_events()], batch)
        return time.perf_counter() - t0

    def theirs() -> float:
        t0 = time.perf_counter()
        built = library_path.sessions(n, per_session)
        for start in range(0, len(built), 2):
            library.save(*built[start : start + 2])
        return time.perf_counter() - t0

    def bare() -> float:
        events = library_path.stored(library, library_path.sessions(n, per_session))
        t0 = time.perf_counter()
        library_path.insert_events(library, events, 1000)
        return time.perf_counter() - t0

    times: dict[str, list[float]] = {"ours": [], "library": [], "bare": []}
    try:
        for r in range(rounds):
            order = [("ours", ours), ("library", theirs), ("bare", bare)]
            for name, run in order if r % 2 == 0 else order[::-1]:
                gc.collect()
                times[name].append(run())
    finally:
        library.close()
    rate = {k: n / statistics.median(v) for k, v in times.items()}
    return {
        "append_record_save_events_per_s": rate["ours"],
        "append_library_events_per_s": rate["library"],
        "append_library_insert_events_per_s": rate["bare"],
        "append_of_library": rate["ours"] / rate["library"],
        "append_of_library_insert": rate["ours"] / rate["bare"],
        "append_library_events": n,
    }
