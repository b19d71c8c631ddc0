"""The store's probes in the reliability suite (docs/reliability.md): concurrency,
first opens, bad bytes, isolation, sequential ids — each a count tried and failed.

``run(workdir, postgres_url=...)`` measures on a SQLite file under ``workdir`` and, given
a PostgreSQL URL, on fresh schemas of that server (dropped afterwards); the in-process
store joins the probes that need no second process. Real processes race where the
promise is about processes (a barrier starts them together), started by the
``forkserver`` method: like ``spawn`` it imports the caller's main module in each child,
so a script that calls ``run`` must do so under ``if __name__ == "__main__":``.
"""

from __future__ import annotations

import json
import multiprocessing
import pathlib
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any, NoReturn

import memory_es
from memory_es.benchmarks.reliability.edge_probes import postgres_schema
from memory_es.benchmarks.reliability.probe import ProbeResult
from memory_es.domain.principal import PrincipalMemory
from memory_es.domain.values import principal_aggregate_id
from memory_es.errors import InvalidInput, MemoryEsError, UnknownBelief, UsageError
from memory_es.ports import FixedClock, iso

WRITERS = 8
CLOSES = 10
FIRST_OPENS = 4
FIRST_OPEN_TRIALS = 3
SEQUENTIAL_SESSIONS = 5
START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)

# Characters the log refuses (memory_es/domain/inputs.py), each said through every path.
BAD_BYTES: dict[str, str] = {
    "NUL": "\x00",
    "BEL": "\x07",
    "ESC": "\x1b",
    "DEL": "\x7f",
    "C1 NEL": "\x85",
    "lone surrogate": "\udcff",
}
WRITE_PATHS = ("say", "ingest", "remember")
# Pairs the old "tenant/principal" key made one principal.
SLASH_PAIRS: tuple[tuple[tuple[str, str], tuple[str, str]], ...] = (
    (("acme", "x/y"), ("acme/x", "y")),
    (("a/b", "c"), ("a", "b/c")),
    (("t", "/p"), ("t/", "p")),
    (("default", "bob/x"), ("default/bob", "x")),
)


def run(workdir: pathlib.Path, *, postgres_url: str | None) -> list[ProbeResult]:
    workdir.mkdir(parents=True, exist_ok=True)
    results: list[ProbeResult] = []
    stores: list[tuple[str, Callable[[], Any]]] = [
        ("sqlite", lambda: _sqlite(workdir)),
    ]
    if postgres_url:
        stores.append(("postgres", lambda: postgres_schema(postgres_url)))
    for kind, make in stores:
        with make() as url:
            results.append(_concurrent_closes(kind, url))
        with make() as url:
            results.append(_sequential_ids(kind, url))
    if postgres_url:
        results.append(_first_opens(postgres_url))
    in_process: list[tuple[str, Callable[[], Any]]] = [("memory", _memory), *stores]
    for kind, make in in_process:
        with make() as url:
            results.append(_bad_bytes(kind, url))
        with make() as url:
            results.append(_bad_events(kind, url))
        with make() as url:
            results.extend(_isolation(kind, url))
    return results


# -- the stores -------------------------------------------------------------------------


@contextmanager
def _memory() -> Iterator[str]:
    yield "memory://"


@contextmanager
def _sqlite(workdir: pathlib.Path) -> Iterator[str]:
    path = workdir / f"store-{uuid.uuid4().hex[:8]}.db"
    try:
        yield f"sqlite:///{path}"
    finally:
        for leftover in workdir.glob(f"{path.name}*"):
            leftover.unlink()


# -- processes ----------------------------------------------------------------------------


def told(memory: memory_es.Memory, principal: str, text: str, **names: Any) -> None:
    """A session of one turn, closed (formation runs)."""
    session = memory.open_session(principal, **names)
    memory.say(session, text)
    memory.close_session(session)


def close_writer(url: str, writer: int, barrier: Any) -> None:
    with memory_es.open(url) as memory:
        barrier.wait(timeout=300)
        for n in range(CLOSES):
            told(memory, "shared", f"I live in City{writer}x{n}.")


def sequential_writer(url: str, writer: int, barrier: Any) -> None:
    with memory_es.open(url, ids=memory_es.SequentialIds()) as memory:
        barrier.wait(timeout=300)
        for n in range(SEQUENTIAL_SESSIONS):
            told(memory, f"p{writer}", f"I live in City{writer}x{n}.")


def first_open(url: str, barrier: Any) -> None:
    barrier.wait(timeout=300)
    with memory_es.open(url) as memory:
        told(memory, "ana", "I live in Oslo.")


def race(target: Callable[..., None], args: list[tuple[Any, ...]]) -> list[int | None]:
    """One process per ``args`` tuple, started together (a barrier, passed last); their
    exit codes."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(
        ["memory_es", "memory_es.app", "memory_es.bootstrap", "memory_es.formation"]
    )
    barrier = context.Barrier(len(args))
    processes = [context.Process(target=target, args=(*a, barrier)) for a in args]
    for p in processes:
        p.start()
    for p in processes:
        p.join(timeout=600)
    return [p.exitcode for p in processes]


def _consolidations(memory: memory_es.Memory) -> int:
    return sum(
        1
        for n in memory.app.recorder.select_notifications(start=None, limit=1_000_000)
        if n.topic.endswith("ConsolidationRecorded")
    )


def _concurrent_closes(kind: str, url: str) -> ProbeResult:
    memory_es.open(url).close()
    codes = race(close_writer, [(url, w) for w in range(WRITERS)])
    with memory_es.open(url) as memory:
        formed = {b.statement for b in memory.list_beliefs("shared")}
        closed = _consolidations(memory)
    expected = {f"User lives in City{w}x{n}." for w in range(WRITERS) for n in range(CLOSES)}
    lost = WRITERS * CLOSES - closed
    return ProbeResult(
        "concurrency",
        f"{WRITERS} processes x {CLOSES} session closes on one principal ({kind})",
        tried=WRITERS * CLOSES,
        failed=max(lost, len(expected - formed)),
        note=f"writers that failed: {sum(1 for c in codes if c != 0)}",
    )


def _sequential_ids(kind: str, url: str) -> ProbeResult:
    memory_es.open(url).close()
    codes = race(sequential_writer, [(url, w) for w in (1, 2)])
    with memory_es.open(url) as memory:
        beliefs = [b for w in (1, 2) for b in memory.list_beliefs(f"p{w}")]
        quarantined = memory.projection_status().quarantined
    duplicates = len(beliefs) - len({b.belief_id for b in beliefs})
    missing = 2 * SEQUENTIAL_SESSIONS - len(beliefs)
    return ProbeResult(
        "identity",
        f"two processes writing with SequentialIds on one store ({kind})",
        tried=2 * SEQUENTIAL_SESSIONS,
        failed=max(0, missing) + duplicates + quarantined,
        note=f"writers that failed: {sum(1 for c in codes if c != 0)}",
    )


def _first_opens(base: str) -> ProbeResult:
    failed = 0
    for _ in range(FIRST_OPEN_TRIALS):
        with postgres_schema(base) as url:
            codes = race(first_open, [(url,)] * FIRST_OPENS)
            failed += sum(1 for c in codes if c != 0)
    return ProbeResult(
        "concurrency",
        f"{FIRST_OPENS} concurrent first opens of a fresh PostgreSQL schema,"
        f" {FIRST_OPEN_TRIALS} trials",
        tried=FIRST_OPENS * FIRST_OPEN_TRIALS,
        failed=failed,
    )


# -- in one process -----------------------------------------------------------------------


def force_unappliable_events(
    memory: memory_es.Memory, owner: str, other: str, speaker: str, *, at: str
) -> str:
    """Write past the edge, straight into the log, what no read model can apply: a pin
    of a belief ``owner`` never formed, and ``owner``'s first belief formed again under
    its id by ``other`` (what colliding id sources write); and, in an open session of
    ``speaker`` (returned; its close forms from it), a turn holding a NUL byte, which
    PostgreSQL's text cannot hold. ``owner`` and ``other`` must have formed already."""
    owned: object = memory.app.repository.get(principal_aggregate_id(principal=owner))
    copier: object = memory.app.repository.get(principal_aggregate_id(principal=other))
    assert isinstance(owned, PrincipalMemory) and isinstance(copier, PrincipalMemory)
    owned.pin_belief(belief_id=str(uuid.UUID(int=7)), at=at)
    formed = next(
        e for e in memory.app.events.get(owned.id) if isinstance(e, PrincipalMemory.BeliefFormed)
    )
    copier.form_belief(formed)  # the event is the formed belief's value (FormedBelief)
    session_id = memory.open_session(speaker)
    session = memory.session(session_id)
    session.record_turn(
        turn_id=str(uuid.uuid4()),
        role="user",
        text="I live in Ber\x00lin.",
        trusted=True,
        at=at,
        redactions=[],
        hazards=[],
    )
    memory.app.save(owned, copier, session)
    return session_id


def _bad_events(kind: str, url: str) -> ProbeResult:
    """Events no read model can apply, forced into the log: every operation after them
    still works (open, close, recall, status, rebuild, a later write and its recall)."""
    clock = FixedClock(START)
    probe = f"operations after events no read model can apply, forced into the log ({kind})"
    memory = memory_es.open(url, clock=clock)
    told(memory, "ana", "I live in Oslo.")
    told(memory, "dan", "I live in Kyiv.")
    session_id = force_unappliable_events(memory, "ana", "dan", "bea", at=iso(clock.now()))
    operations: list[Callable[[memory_es.Memory], object]] = [
        lambda m: m.close_session(session_id),
        lambda m: m.recall("ana", "where do I live").lines() or _fail(),
        lambda m: m.projection_status().lag == 0 or _fail(),
        lambda m: m.rebuild_projections(),
        lambda m: told(m, "cho", "I live in Lima."),
        lambda m: m.recall("cho", "live").lines() or _fail(),
    ]
    if memory.spec.persistent:
        memory.close()
        try:
            memory = memory_es.open(url, clock=clock)  # the open catches up past them
        except Exception:  # a store that cannot open can do none of the rest either
            tried = 1 + len(operations)
            return ProbeResult("bad events", probe, tried=tried, failed=tried, note="no open")
    else:
        memory.catch_up()
    failed = 0
    with memory:
        for operation in operations:
            try:
                operation(memory)
            except Exception:  # a probe counts what fails, whatever it raises
                failed += 1
        quarantined = memory.projection_status().quarantined
    return ProbeResult(
        "bad events",
        probe,
        tried=1 + len(operations),  # the open, then each operation
        failed=failed,
        note=f"{quarantined} events quarantined",
    )


def _fail() -> NoReturn:
    raise AssertionError("the operation answered nothing")


def _write(memory: memory_es.Memory, path: str, text: str) -> None:
    if path == "say":
        session = memory.open_session("ana")
        memory.say(session, text)
    elif path == "remember":
        memory.remember("ana", text)
    else:
        line = {"principal": "ana", "session": "s", "at": "2026-03-02T09:00:00Z", "text": text}
        memory.ingest([json.dumps(line)])


def _bad_bytes(kind: str, url: str) -> ProbeResult:
    """Each control character through each write path: a turn (say, ingest) keeps its
    text cleaned (memory_es/domain/inputs.py), a statement to remember refuses it with
    InvalidInput, and the store still records, recalls and reports afterwards with
    nothing quarantined."""
    failed = tried = 0
    with memory_es.open(url, clock=FixedClock(START)) as memory:
        told(memory, "ana", "I live in Oslo.")
        for char in BAD_BYTES.values():
            for path in WRITE_PATHS:
                tried += 1
                try:
                    _write(memory, path, f"I live in Ber{char}lin.")
                except InvalidInput:
                    if path == "remember":
                        continue  # refused, as promised
                except Exception:
                    pass
                else:
                    if path != "remember":
                        continue  # kept, as promised
                failed += 1
        told(memory, "ana", "I work at Acme.")
        usable = bool(memory.recall("ana", "where do I live").lines())
        quarantined = memory.projection_status().quarantined
    return ProbeResult(
        "bad input",
        f"NUL and control characters through say, ingest and remember ({kind})",
        tried=tried,
        failed=failed + (0 if usable else 1) + quarantined,
        note=", ".join(BAD_BYTES),
    )


def _isolation(kind: str, url: str) -> list[ProbeResult]:
    clock = FixedClock(START)
    slash_failed = 0
    short_failed = short_tried = 0
    with memory_es.open(url, clock=clock) as memory:
        for n, ((t1, p1), (t2, p2)) in enumerate(SLASH_PAIRS):
            told(memory, p1, f"I live in Oslo{n}.", tenant=t1)
            told(memory, p2, f"I live in Rome{n}.", tenant=t2)
            one = [b.statement for b in memory.list_beliefs(p1, tenant=t1)]
            other = [b.statement for b in memory.list_beliefs(p2, tenant=t2)]
            if one != [f"User lives in Oslo{n}."] or other != [f"User lives in Rome{n}."]:
                slash_failed += 1
        told(memory, "eve", "I live in Paris.")
        for victim in ("x/y", "y"):
            tenant = "acme" if victim == "x/y" else "acme/x"
            for record in memory.list_beliefs(victim, tenant=tenant):
                for action in (memory.reject, memory.pin, memory.confirm):
                    short_tried += 2
                    try:
                        action(record.short_id, principal="eve")  # another principal's
                        short_failed += 1
                    except UnknownBelief:
                        pass
                    try:
                        action(record.short_id)  # no principal at all
                        short_failed += 1
                    except UsageError:
                        pass
                    except MemoryEsError:
                        short_failed += 1
    return [
        ProbeResult(
            "isolation",
            f"(tenant, principal) pairs with slashes kept apart ({kind})",
            tried=len(SLASH_PAIRS),
            failed=slash_failed,
            note="pairs the old tenant/principal key made one principal",
        ),
        ProbeResult(
            "isolation",
            f"short ids of another principal's beliefs (reject, pin, confirm) ({kind})",
            tried=short_tried,
            failed=short_failed,
        ),
    ]
