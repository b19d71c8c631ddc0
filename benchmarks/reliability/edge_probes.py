"""Probes of the edges: ingest killed and run again, re-ingest, repeated JSON keys, bad
command-line inputs, ``--now``, and the hazard corpus through the ingest path.

Each probe counts what it tried and how many of those went wrong (docs/reliability.md):

- kill -9 mid-ingest, run again: an ``ingest`` process is killed once its first batch is
  in the log; the same command run again must end in the state an uninterrupted ingest
  leaves (the note sums the events the re-runs added beyond it: 0 is the promise).
- re-ingest: a file ingested twice (the second time by another process where the store
  outlives one) adds no event.
- repeated keys: a line that repeats any field, plainly or spelt with an escape, is
  refused with its line number; a field name used as a value is not.
- bad inputs: every case must end with one line on stderr, the documented exit status,
  no traceback, and no store created or changed.
- ``--now``: 1970 through 2200 accepted (the system clock's future included), anything
  else refused, and going back in time inside an open session refused.
- secrets and injections: the hazard corpus (benchmarks/hazards/corpus.py), ingested:
  a secret found raw anywhere in the log, or an injection style that formed a belief,
  is a failure.

The command-line cases run as real processes (``python -m memory_es``); with
``benchmarks.reliability.quick()`` they run in-process through ``memory_es.cli.main``,
and the counts are smaller.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from unittest import mock

import orjson

import memory_es
from memory_es import es_internals
from memory_es import ingest as ingest_module
from memory_es.benchmarks.hazards.__main__ import CONVERSATIONAL
from memory_es.benchmarks.hazards.corpus import INJECTIONS, PROBED_INJECTIONS, leaked, secret_cases
from memory_es.benchmarks.perf.synthetic import ingest_lines
from memory_es.benchmarks.reliability import quick
from memory_es.benchmarks.reliability.probe import ProbeResult
from memory_es.domain.values import DEFAULT_TENANT
from memory_es.errors import MemoryEsError
from memory_es.stores import parse_store_url

# -- shared -------------------------------------------------------------------------------


def ingest_end_state(memory: memory_es.Memory, lines: Sequence[bytes | str]) -> dict[str, Any]:
    """What an ingest of ``lines`` leaves, ids aside (belief and turn ids come from the id
    port): the log's length and topics, each session's turns, each principal's beliefs."""
    stored = memory.app.recorder.select_notifications(start=None, limit=10_000_000)
    rows = [orjson.loads(line) for line in lines if line.strip()]
    keys = {row["session"]: row["principal"] for row in rows}
    sessions = {}
    for key, principal in sorted(keys.items()):
        session_id = ingest_module.ingest_session_id(DEFAULT_TENANT, principal, key)
        session = memory.session(session_id)
        sessions[key] = (
            session.opened_at,
            session.closed_at,
            [(t.role, t.text, t.at) for t in memory.session_turns(session_id)],
        )
    beliefs = {
        principal: sorted(
            (b.statement, str(b.status), b.valid_from, b.formed_at)
            for b in memory.list_beliefs(principal)
        )
        for principal in sorted(set(keys.values()))
    }
    return {
        "events": len(stored),
        "topics": Counter(n.topic for n in stored),
        "sessions": sessions,
        "beliefs": beliefs,
    }


@contextlib.contextmanager
def postgres_schema(base: str) -> Iterator[str]:
    """A fresh schema on the server at ``base``, dropped afterwards."""
    import psycopg
    from psycopg import sql

    schema = f"rel_{uuid.uuid4().hex[:12]}"
    separator = "&" if "?" in base else "?"
    try:
        yield f"{base}{separator}schema={schema}"
    finally:
        with psycopg.connect(**parse_store_url(base).pg_connect, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema)))


def stored_event_count(url: str) -> int:
    """Events in a persistent store's log, read beside the writer (0 before it exists)."""
    spec = parse_store_url(url)
    if spec.kind == "sqlite":
        if not Path(spec.sqlite_path).exists():
            return 0
        with contextlib.closing(sqlite3.connect(spec.sqlite_path, timeout=30)) as conn:
            try:
                return int(conn.execute("SELECT count(*) FROM stored_events").fetchone()[0])
            except sqlite3.OperationalError:
                return 0  # the table is not there yet
    import psycopg
    from psycopg import sql

    with psycopg.connect(**spec.pg_connect, autocommit=True) as conn:
        try:
            query = sql.SQL("SELECT count(*) FROM {}.memory_es_events").format(
                sql.Identifier(spec.pg_schema)
            )
            row = conn.execute(query).fetchone()
        except psycopg.Error:
            return 0
        return int(row[0]) if row else 0


@contextlib.contextmanager
def fresh_store(kind: str, workdir: Path, postgres_url: str | None) -> Iterator[str]:
    """The URL of a new, empty store of ``kind``: memory, sqlite or postgres."""
    if kind == "memory":
        yield "memory://"
    elif kind == "sqlite":
        yield f"sqlite:///{workdir / f'store-{uuid.uuid4().hex[:8]}.db'}"
    else:
        assert postgres_url is not None
        with postgres_schema(postgres_url) as url:
            yield url


def kinds(postgres_url: str | None, *, memory: bool = True) -> list[str]:
    return [*(["memory"] if memory else []), "sqlite", *(["postgres"] if postgres_url else [])]


# -- the command line, as a process or in-process ----------------------------------------


@dataclass(frozen=True)
class Outcome:
    code: int
    out: str
    err: str
    traceback: bool = False


def _environment(env: dict[str, str] | None) -> dict[str, str]:
    merged = {k: v for k, v in os.environ.items() if k != "MEMORY_ES_STORE"}
    merged.update(env or {})
    return merged


def cli(argv: Sequence[str | bytes], *, cwd: Path, env: dict[str, str] | None = None) -> Outcome:
    """``memory-es ARGV``: a real process, or (quick) ``memory_es.cli.main`` in-process."""
    if not quick():
        done = subprocess.run(
            [sys.executable, "-m", "memory_es", *argv],
            cwd=cwd,
            env=_environment(env),
            capture_output=True,
            timeout=300,
            check=False,
        )
        err = done.stderr.decode("utf-8", "replace")
        return Outcome(
            done.returncode, done.stdout.decode("utf-8", "replace"), err, "Traceback" in err
        )
    from memory_es.cli import main

    # What Python makes of argv bytes: undecodable ones become lone surrogates.
    arguments = [a.decode("utf-8", "surrogateescape") if isinstance(a, bytes) else a for a in argv]
    printed, complained = io.StringIO(), io.StringIO()
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(_environment(env))
    try:
        with (
            contextlib.chdir(cwd),
            contextlib.redirect_stdout(printed),
            contextlib.redirect_stderr(complained),
        ):
            try:
                code = main(arguments)
            except SystemExit as exit_:
                code = int(exit_.code or 0) if not isinstance(exit_.code, str) else 1
            except Exception as error:  # what a process would print as a traceback
                return Outcome(1, printed.getvalue(), f"{type(error).__name__}: {error}", True)
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return Outcome(code, printed.getvalue(), complained.getvalue())


def one_clean_line(outcome: Outcome, expected_code: int) -> bool:
    err = outcome.err
    return (
        outcome.code == expected_code
        and not outcome.traceback
        and err.startswith("memory-es: error: ")
        and err.count("\n") == 1
    )


# -- ingest: kill -9, re-ingest, repeated keys ---------------------------------------------

START = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


def _lines(sessions: int) -> list[bytes]:
    return ingest_lines(sessions=sessions, turns_per_session=5, principals=6, seed=14)


def _reference(lines: list[bytes]) -> dict[str, Any]:
    with memory_es.open("memory://") as memory:
        memory.ingest(lines)
        return ingest_end_state(memory, lines)


def kill_mid_ingest(workdir: Path, postgres_url: str | None) -> list[ProbeResult]:
    trials = 1 if quick() else 3
    lines = _lines(40 if quick() else 120)
    path = workdir / "kill.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    reference = _reference(lines)
    rng = random.Random(14)
    results = []
    for kind in kinds(postgres_url, memory=False):
        failed = extra = landed = 0
        for _ in range(trials):
            with fresh_store(kind, workdir, postgres_url) as url:
                argv = ["--store", url, "ingest", "--batch-events", "60", str(path)]
                process = subprocess.Popen(
                    [sys.executable, "-m", "memory_es", *argv],
                    cwd=workdir,
                    env=_environment(None),
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
                deadline = time.monotonic() + 120
                while process.poll() is None and time.monotonic() < deadline:
                    if stored_event_count(url) > 0:
                        time.sleep(rng.uniform(0, 0.3))  # somewhere past the first batch
                        break
                    time.sleep(0.005)
                with contextlib.suppress(ProcessLookupError):
                    os.kill(process.pid, signal.SIGKILL)
                process.wait()
                cut = stored_event_count(url)
                landed += 0 < cut < reference["events"]
                again = subprocess.run(
                    [sys.executable, "-m", "memory_es", *argv],
                    cwd=workdir,
                    env=_environment(None),
                    capture_output=True,
                    check=False,
                )
                with memory_es.open(url) as memory:
                    state = ingest_end_state(memory, lines)
                extra += state["events"] - reference["events"]
                failed += again.returncode != 0 or state != reference
        results.append(
            ProbeResult(
                "ingest",
                f"kill -9 mid-ingest, run again ({kind})",
                trials,
                failed,
                f"{landed} kills landed mid-ingest; events beyond an uninterrupted ingest: {extra}",
            )
        )
    return results


def re_ingest(workdir: Path, postgres_url: str | None) -> list[ProbeResult]:
    lines = _lines(10 if quick() else 40)
    tried = failed = added = 0
    for kind in kinds(postgres_url):
        with fresh_store(kind, workdir, postgres_url) as url:
            with memory_es.open(url) as memory:
                memory.ingest(lines)
                head = memory.projection_status().log_head
                memory.ingest(lines)
                grown = memory.projection_status().log_head - head
            if kind != "memory":  # and from another Memory, as another process would
                with memory_es.open(url) as memory:
                    memory.ingest(lines)
                    grown = memory.projection_status().log_head - head
        tried += 1
        added += grown
        failed += grown != 0
    return [
        ProbeResult(
            "ingest",
            "re-ingest of an ingested file",
            tried,
            failed,
            f"memory, SQLite{', PostgreSQL' if postgres_url else ''}; events added: {added}",
        )
    ]


def _escaped(name: str) -> str:
    return f"\\u{ord(name[0]):04x}{name[1:]}"


def repeated_keys() -> list[ProbeResult]:
    base: dict[str, str] = {
        "principal": "ana",
        "session": "s1",
        "project": "general",
        "at": "2026-03-02T09:00:00Z",
        "role": "user",
        "text": "I live in Oslo.",
    }
    other = {
        "principal": "bo",
        "session": "s2",
        "project": "acme",
        "at": "2026-03-02T10:00:00Z",
        "role": "assistant",
        "text": "I live in Rome.",
    }
    bad: list[str] = []
    for name in base:
        body = ", ".join(f'"{k}": "{v}"' for k, v in base.items())
        for spelt in (name, _escaped(name)):
            bad.append(f'{{{body}, "{spelt}": "{other[name]}"}}')  # last
            bad.append(f'{{"{spelt}": "{other[name]}", {body}}}')  # first
            bad.append(f'{{{body}, "{spelt}": "{base[name]}"}}')  # the same value twice
    good = orjson.dumps(base).decode()
    refused = 0
    for line in bad:
        try:
            ingest_module.validate([good, line])
        except ingest_module.IngestError as error:
            refused += error.bad[0].line == 2 and "appears more than once" in str(error)
    look_alikes = [orjson.dumps({**base, "session": name}).decode() for name in base] + [
        orjson.dumps({**base, "text": f'He said "{name}" twice: "{name}".'}).decode()
        for name in base
    ]
    accepted = 0
    for line in look_alikes:
        with contextlib.suppress(ingest_module.IngestError):
            accepted += len(ingest_module.validate([line])) == 1
    return [
        ProbeResult("ingest", "lines repeating a key refused", len(bad), len(bad) - refused),
        ProbeResult(
            "ingest",
            "field names as values accepted",
            len(look_alikes),
            len(look_alikes) - accepted,
        ),
    ]


# -- full disk mid-ingest ------------------------------------------------------------------


def disk_full_mid_ingest(workdir: Path) -> list[ProbeResult]:
    """ENOSPC from the store's batch save (simulated: no small filesystem to fill here),
    at each of the first batches: one line and exit 2, then a re-run completes."""
    lines = _lines(8)
    path = workdir / "full.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    reference = _reference(lines)
    real = es_internals.save_collected
    points = range(1, 4 if quick() else 9)
    failed = 0
    for fail_on in points:
        url = f"sqlite:///{workdir / f'full-{fail_on}.db'}"
        calls = [0]

        def save(*args: Any, _fail_on: int = fail_on, _calls: list[int] = calls) -> None:
            _calls[0] += 1
            if _calls[0] == _fail_on:
                raise OSError(errno.ENOSPC, "No space left on device")
            real(*args)

        argv = ["--store", url, "ingest", "--batch-events", "4", str(path)]
        with mock.patch.object(ingest_module, "save_collected", save), _forced_in_process():
            full = cli(argv, cwd=workdir)
        with _forced_in_process():
            again = cli(argv, cwd=workdir)
        with memory_es.open(url) as memory:
            state = ingest_end_state(memory, lines)
        failed += not (
            one_clean_line(full, 2)
            and "No space left on device" in full.err
            and again.code == 0
            and state == reference
        )
    return [
        ProbeResult(
            "ingest",
            "disk full mid-ingest (ENOSPC), run again",
            len(points),
            failed,
            "simulated at the batch save; one line, exit 2, the re-run completes",
        )
    ]


@contextlib.contextmanager
def _forced_in_process() -> Iterator[None]:
    """A patched save lives in this process: run the command line here for it."""
    from memory_es.benchmarks.reliability import QUICK_ENV

    saved = os.environ.get(QUICK_ENV)
    os.environ[QUICK_ENV] = "1"
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop(QUICK_ENV, None)
        else:
            os.environ[QUICK_ENV] = saved


# -- bad command-line inputs ---------------------------------------------------------------


@dataclass(frozen=True)
class BadInput:
    name: str
    argv: tuple[str | bytes, ...]
    env: dict[str, str] = field(default_factory=dict)
    code: int = 2


def bad_inputs(workdir: Path, postgres_url: str | None) -> list[ProbeResult]:
    db = workdir / "bad.db"
    store = f"sqlite:///{db}"
    malformed = workdir / "malformed.jsonl"
    malformed.write_text('{"principal": "ana", "session": "s", "at": "2026-01-01T00:00:00Z"\n')
    repeated = workdir / "repeated.jsonl"
    repeated.write_text(
        '{"principal": "ana", "session": "s", "at": "2026-01-01T00:00:00Z",'
        ' "text": "Hi.", "principal": "bo"}\n'
    )
    open_ana = ("session", "open", "--principal", "ana")
    cases = [
        BadInput(
            "principal not UTF-8", ("--store", store, "session", "open", "--principal", b"caf\xe9")
        ),
        BadInput(
            "turn text not UTF-8",
            ("--store", store, "session", "say", str(uuid.uuid4()), b"I live in caf\xe9."),
        ),
        BadInput(
            "query not UTF-8", ("--store", store, "recall", "--principal", "ana", b"\xff\xfe")
        ),
        BadInput("store URL not UTF-8", ("--store", b"sqlite:///caf\xe9.db", *open_ana)),
        BadInput(
            "port abc", ("--store", "postgresql://postgres@127.0.0.1:abc/postgres", *open_ana)
        ),
        BadInput(
            "port 99999", ("--store", "postgresql://postgres@127.0.0.1:99999/postgres", *open_ana)
        ),
        BadInput("port 0", ("--store", "postgresql://postgres@127.0.0.1:0/postgres", *open_ana)),
        BadInput("--store ''", ("--store", "", *open_ana)),
        BadInput("MEMORY_ES_STORE=''", open_ana, env={"MEMORY_ES_STORE": ""}),
        BadInput("unsupported scheme", ("--store", "mysql://localhost/db", *open_ana)),
        BadInput("sqlite :memory:", ("--store", "sqlite:///:memory:", *open_ana)),
        BadInput("memory:// for a stateful command", ("--store", "memory://", *open_ana)),
        BadInput(
            "PostgreSQL unreachable",
            ("--store", "postgresql://postgres@127.0.0.1:1/postgres", *open_ana),
        ),
        BadInput(
            "ingest a missing file", ("--store", store, "ingest", str(workdir / "nope.jsonl"))
        ),
        BadInput("ingest malformed JSON", ("--store", store, "ingest", str(malformed))),
        BadInput("ingest a repeated key", ("--store", store, "ingest", str(repeated))),
        BadInput(
            "ingest --batch-events 0",
            ("--store", store, "ingest", "--batch-events", "0", str(malformed)),
        ),
        BadInput(
            "say to an unknown session",
            ("--store", store, "session", "say", str(uuid.uuid4()), "Hi."),
        ),
        BadInput(
            "say to a session id that is no id", ("--store", store, "session", "say", "nope", "Hi.")
        ),
        BadInput("reject an unknown belief", ("--store", store, "memory", "reject", "deadbeef")),
        BadInput(
            "recall --limit abc",
            ("--store", store, "recall", "--principal", "ana", "--limit", "abc", "x"),
        ),
        BadInput("unknown command", ("--store", store, "frobnicate")),
        BadInput(
            "--now without a timezone",
            ("--store", store, "--now", "2026-01-01T00:00:00", *open_ana),
        ),
        BadInput("--now garbage", ("--store", store, "--now", "yesterday", *open_ana)),
    ]
    if postgres_url:
        base = postgres_url.split("?")[0].rsplit("/", 1)[0]
        cases.append(
            BadInput(
                "a URL part adding port=1", ("--store", f"{base}/postgres%20port=1", *open_ana)
            )
        )
    failed: list[str] = []
    for case in cases:
        outcome = cli(case.argv, cwd=workdir, env=case.env)
        created = (workdir / ".memory_es").exists()
        if not one_clean_line(outcome, case.code) or created:
            failed.append(case.name)
    return [
        ProbeResult(
            "cli",
            "bad inputs: one line, exit 2, no traceback, no store made",
            len(cases),
            len(failed),
            "; ".join(failed) if failed else f"{'in-process' if quick() else 'as processes'}",
        )
    ]


# -- --now ---------------------------------------------------------------------------------


def now_edges(workdir: Path) -> list[ProbeResult]:
    future = (datetime.now(tz=UTC) + timedelta(days=365 * 50)).isoformat()
    accepted = ["1970-01-01T00:00:00Z", "2200-12-31T23:59:59Z", "2200-12-31T18:00:00-05:00", future]
    refused = [
        "1969-12-31T23:59:59Z",
        "2201-01-01T00:00:00Z",
        "9999-12-31T00:00:00Z",
        "9999-12-31T23:00:00-05:00",
        "0001-01-01T00:00:00+01:00",
    ]
    failed: list[str] = []
    for n, now in enumerate(accepted):
        store = f"sqlite:///{workdir / f'now-ok-{n}.db'}"
        outcome = cli(
            ("--store", store, "--now", now, "session", "open", "--principal", "a"), cwd=workdir
        )
        if outcome.code != 0:
            failed.append(f"refused {now}")
    for n, now in enumerate(refused):
        never = workdir / f"now-bad-{n}.db"
        outcome = cli(
            ("--store", f"sqlite:///{never}", "--now", now, "session", "open", "--principal", "a"),
            cwd=workdir,
        )
        if not one_clean_line(outcome, 2) or never.exists():
            failed.append(f"accepted {now}")
    # Back in time inside an open session: a turn, and the close, before its last turn.
    store = f"sqlite:///{workdir / 'now-back.db'}"
    opened = cli(
        ("--store", store, "--now", "2026-03-02T09:00:00Z", "session", "open", "--principal", "a"),
        cwd=workdir,
    )
    session = opened.out.strip()
    cli(
        (
            "--store",
            store,
            "--now",
            "2026-03-02T10:00:00Z",
            "session",
            "say",
            session,
            "I live in Oslo.",
        ),
        cwd=workdir,
    )
    back = 0
    for args in (("say", session, "I live in Rome."), ("close", session)):
        back += 1
        before = stored_event_count(store)
        outcome = cli(
            ("--store", store, "--now", "2026-03-02T09:30:00Z", "session", *args), cwd=workdir
        )
        if not one_clean_line(outcome, 2) or stored_event_count(store) != before:
            failed.append(f"went back in time: {args[0]}")
    return [
        ProbeResult(
            "clock",
            "--now from 1970 through 2200; back in time in a session refused",
            len(accepted) + len(refused) + back,
            len(failed),
            "; ".join(failed),
        )
    ]


# -- secrets and injections through ingest -------------------------------------------------


def _turn(principal: str, session: str, n: int, text: str) -> bytes:
    at = (START + timedelta(minutes=n)).isoformat().replace("+00:00", "Z")
    return orjson.dumps({"principal": principal, "session": session, "at": at, "text": text})


def _strings(value: object) -> str:
    """Every string in a decoded event, one per line (JSON escapes undone)."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return "\n".join(_strings(v) for v in value.values())
    if isinstance(value, list):
        return "\n".join(_strings(v) for v in value)
    return ""


def secrets_ingested() -> list[ProbeResult]:
    """Each generated secret sentence ingested into a store of its own; raw anywhere in
    its log is a failure."""
    cases = secret_cases()
    if quick():
        cases = cases[::25]
    raw: Counter[str] = Counter()
    for n, case in enumerate(cases):
        with memory_es.open("memory://") as memory:
            memory.ingest([_turn("ana", "s", n, case.text)])
            stored = memory.app.recorder.select_notifications(start=None, limit=10_000)
            log = "\n".join(_strings(orjson.loads(n.state)) for n in stored)
            if leaked(case, log) or any(case.secret.encode() in n.state for n in stored):
                raw[case.kind] += 1
    worst = ", ".join(f"{kind} {count}" for kind, count in raw.most_common(4))
    return [
        ProbeResult(
            "hazards",
            "secrets in natural sentences, ingested: raw in the log",
            len(cases),
            sum(raw.values()),
            worst,
        )
    ]


def injections_ingested() -> list[ProbeResult]:
    """Each injection style its own principal's session (conversational profile)."""
    styles = INJECTIONS + PROBED_INJECTIONS
    if quick():
        styles = styles[::10]
    lines = [_turn(f"p{n}", f"inj-{n}", n, text) for n, text in enumerate(styles)]
    with memory_es.open("memory://", profile=CONVERSATIONAL) as memory:
        memory.ingest(lines)
        formed = sum(bool(memory.list_beliefs(f"p{n}")) for n in range(len(styles)))
    return [
        ProbeResult(
            "hazards",
            "injection styles, ingested: formed a belief",
            len(styles),
            formed,
            "conversational profile",
        )
    ]


# -- the suite's entry -------------------------------------------------------------------


def run(workdir: Path, *, postgres_url: str | None) -> list[ProbeResult]:
    probes: list[Callable[[], list[ProbeResult]]] = [
        lambda: kill_mid_ingest(workdir, postgres_url),
        lambda: re_ingest(workdir, postgres_url),
        repeated_keys,
        lambda: disk_full_mid_ingest(workdir),
        lambda: bad_inputs(workdir, postgres_url),
        lambda: now_edges(workdir),
        secrets_ingested,
        injections_ingested,
    ]
    results: list[ProbeResult] = []
    for probe in probes:
        try:
            results.extend(probe())
        except MemoryEsError as error:  # a probe that could not run says so in its row
            results.append(
                ProbeResult("suite", getattr(probe, "__name__", "probe"), 1, 1, str(error))
            )
    return results
