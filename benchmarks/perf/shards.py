"""Principals over 1, 2 and 3 PostgreSQL servers (placement): ``memory-es bench --quick
--json --phase shards``.

The servers are loopback clusters this phase creates with ``pg_createcluster`` on free
ports and drops at the end, or the comma-separated URLs in MEMORY_ES_BENCH_POSTGRES_URLS
(each arm then writes a fresh schema on each, dropped after). For each arm (the first
1, 2, 3 servers, a placement file over them, fresh stores):

- ``write``: 8 writer processes start together, each closing sessions of 5 turns for
  its own principals (placed by the placement's hash, as any principal is), through
  the placement routing and the real commands (``open_session``, ``say``, ``close_session``).
  Throughput is sessions closed per second of wall time; each writer reports its CPU,
  and with our own clusters the servers' backends report theirs (/proc), so a run that
  is CPU-bound on a small machine shows where the CPU went.
- ``recall``: recall p95 over the arm's principals, each routed to its server.
- ``rebuild`` (the 3-server arm): every server's read model rebuilt from scratch, one
  after another and then all at once (``projections rebuild`` through the placement
  store, which runs one process per server).

Keys under ``shards``: ``write_speedup_2``, ``write_speedup_3`` (throughput over one
server's), ``recall_p95_ratio`` (3 servers' p95 over one's), ``rebuild_parallel_speedup``.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import orjson

WRITERS = 8
TURNS = 5
SCALES: dict[str, dict[str, int]] = {
    "tiny": {"sessions": 2, "principals": 2, "warmup": 1, "recalls": 10},
    "quick": {"sessions": 8, "principals": 3, "warmup": 1, "recalls": 80},
    "full": {"sessions": 30, "principals": 4, "warmup": 2, "recalls": 300},
}
URLS_ENV = "MEMORY_ES_BENCH_POSTGRES_URLS"
TEXTS = (
    "I live in {city} and I work as a {job}.",
    "My favourite drink is {drink}.",
    "I am planning a trip to {city} next month.",
    "Remind me that my sister's name is {name}.",
    "I prefer {drink} in the morning and I usually cycle to work.",
)
FILL = {
    "city": ("Oslo", "Lima", "Porto", "Kyoto", "Quito", "Accra"),
    "job": ("nurse", "welder", "teacher", "pilot", "baker"),
    "drink": ("green tea", "black coffee", "cocoa", "mint tea"),
    "name": ("Ana", "Bea", "Cleo", "Dana", "Eli"),
}

Log = Callable[[str], None]


def _turn(writer: int, session: int, turn: int) -> str:
    seed = writer * 131 + session * 17 + turn
    return TEXTS[turn % len(TEXTS)].format(
        **{key: values[seed % len(values)] for key, values in FILL.items()}
    )


# -- the writer process --------------------------------------------------------------------


def writer(
    request: dict[str, Any], ready: Callable[[], None], done: Callable[[dict[str, Any]], None]
) -> None:
    """One writer: its principals' sessions, once ``ready()`` (warmed up, its stores
    open, it waits for the others) returns; ``done(figures)`` returns when the
    coordinator has read the servers' CPU (the stores' connections still open)."""
    import memory_es
    from memory_es.placement import routed_server
    from memory_es.projections.records import principal_key

    path = Path(request["placement"])
    w = int(request["writer"])
    principals = [f"w{w}p{j}" for j in range(int(request["principals"]))]
    stores: dict[str, memory_es.Memory] = {}

    def memory_for(principal: str) -> memory_es.Memory:
        server, url = routed_server(path, principal_key("default", principal), record=True)
        if server not in stores:
            stores[server] = memory_es.open(url, check_formation=False)
        return stores[server]

    def one(s: int) -> float:
        started = time.perf_counter()
        principal = principals[s % len(principals)]
        memory = memory_for(principal)
        session = memory.open_session(principal)
        for t in range(TURNS):
            memory.say(session, _turn(w, s, t))
        memory.close_session(session)
        return time.perf_counter() - started

    for s in range(int(request["warmup"])):
        one(-1 - s)
    for principal in principals:
        memory_for(principal)
    ready()
    cpu0 = os.times()
    t0 = time.time()
    latencies = [one(s) for s in range(int(request["sessions"]))]
    finished = time.time()
    cpu1 = os.times()
    done(
        {
            "sessions": len(latencies),
            "started": t0,
            "finished": finished,
            "cpu_s": (cpu1.user - cpu0.user) + (cpu1.system - cpu0.system),
            "session_ms": [round(x * 1000.0, 3) for x in latencies],
        }
    )
    for memory in stores.values():
        memory.close()


# -- servers -------------------------------------------------------------------------------


@contextmanager
def servers(count: int, log: Log) -> Iterator[tuple[list[str], list[int]]]:
    """``count`` base URLs, and the postmaster pids of the clusters made here (none for
    MEMORY_ES_BENCH_POSTGRES_URLS: the servers' CPU is then not measured)."""
    given = [u.strip() for u in os.environ.get(URLS_ENV, "").split(",") if u.strip()]
    if given:
        if len(given) < count:
            raise RuntimeError(f"{URLS_ENV} names {len(given)} servers; the phase needs {count}")
        yield given[:count], []
        return
    from memory_es.benchmarks.perf import clusters

    reason = clusters.unavailable()
    if reason is not None:
        raise RuntimeError(f"cannot create loopback clusters ({reason}): set {URLS_ENV}")
    made: list[clusters.Cluster] = []
    try:
        for i in range(count):
            log(f"shards: creating cluster {i + 1} of {count}")
            made.append(clusters.create_cluster(f"bench{i}"))
        yield [c.url for c in made], [_postmaster(c) for c in made]
    finally:
        for cluster in made:
            cluster.drop()


def _postmaster(cluster: Any) -> int:
    pid_file = Path(f"/var/lib/postgresql/{cluster.version}/{cluster.name}/postmaster.pid")
    return int(pid_file.read_text().split()[0])


def _ticks(pid: int) -> int:
    """utime + stime of a process, in clock ticks (0 when it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0
    return int(fields[11]) + int(fields[12])


def _server_ticks(postmasters: list[int]) -> dict[int, int]:
    """Every live process of the clusters (postmaster and its children) and its ticks."""
    wanted = set(postmasters)
    out: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        pid, parent = int(entry.name), int(fields[1])
        if pid in wanted or parent in wanted:
            out[pid] = int(fields[11]) + int(fields[12])
    return out


def _machine_busy() -> tuple[int, int]:
    """(busy, total) clock ticks of every CPU so far (/proc/stat)."""
    values = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = values[3] + values[4]
    return sum(values) - idle, sum(values)


class LockSampler:
    """Every 50 ms during the write window: on each server, how many backends run a
    statement and how many of those wait on a lock (pg_stat_activity) — whether one
    server serializes the writers' commits under its table lock, or something else
    (the CPU) holds them back."""

    def __init__(self, urls: list[str]) -> None:
        import threading

        self._urls = urls
        self._stop = threading.Event()
        self._samples: list[list[tuple[int, int]]] = [[] for _ in urls]
        self._waited: list[dict[str, int]] = [{} for _ in urls]
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        import psycopg

        from memory_es.stores import parse_store_url

        dbs = [
            psycopg.connect(**parse_store_url(u).pg_connect, autocommit=True) for u in self._urls
        ]
        try:
            while not self._stop.wait(0.05):
                for db, samples in zip(dbs, self._samples, strict=True):
                    row = db.execute(
                        "SELECT count(*) FILTER (WHERE state = 'active'),"
                        " count(*) FILTER (WHERE state = 'active' AND wait_event_type = 'Lock')"
                        " FROM pg_stat_activity WHERE datname = current_database()"
                        " AND pid <> pg_backend_pid()"
                    ).fetchone()
                    samples.append((int(row[0]), int(row[1])) if row else (0, 0))
                for db, waited in zip(dbs, self._waited, strict=True):
                    for kind, count in db.execute(
                        "SELECT locktype || ':' || coalesce(relation::regclass::text, ''),"
                        " count(*) FROM pg_locks WHERE NOT granted GROUP BY 1"
                    ).fetchall():
                        waited[str(kind)] = waited.get(str(kind), 0) + int(count)
        finally:
            for db in dbs:
                db.close()

    def __enter__(self) -> LockSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def summary(self) -> list[dict[str, Any]]:
        return [
            {
                "mean_active": round(statistics.fmean(a for a, _ in s), 2) if s else 0.0,
                "mean_lock_waiting": round(statistics.fmean(w for _, w in s), 2) if s else 0.0,
                # The locks waited on (lock type: relation), in samples x waiters.
                "locks_waited": dict(sorted(w.items(), key=lambda kv: -kv[1])[:4]),
            }
            for s, w in zip(self._samples, self._waited, strict=True)
        ]


def _schema_urls(bases: list[str], arm: int) -> list[str]:
    tag = uuid.uuid4().hex[:8]
    return [
        f"{b}{'&' if '?' in b else '?'}schema=shards_{arm}_{i}_{tag}" for i, b in enumerate(bases)
    ]


def _drop_schemas(urls: list[str]) -> None:
    import psycopg

    from memory_es.stores import parse_store_url

    for url in urls:
        spec = parse_store_url(url)
        try:
            with psycopg.connect(**spec.pg_connect, autocommit=True) as db:
                db.execute(f'DROP SCHEMA IF EXISTS "{spec.pg_schema}" CASCADE')
        except psycopg.Error:
            pass


# -- the arms ------------------------------------------------------------------------------


def _write_arm(
    placement: Path, cfg: dict[str, int], postmasters: list[int], urls: list[str]
) -> dict[str, Any]:
    procs = []
    for w in range(WRITERS):
        request = {
            "placement": str(placement),
            "writer": w,
            "principals": cfg["principals"],
            "sessions": cfg["sessions"],
            "warmup": cfg["warmup"],
        }
        proc = subprocess.Popen(
            [sys.executable, "-m", "memory_es.benchmarks.perf.shards", "writer"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert proc.stdin is not None
        proc.stdin.write(orjson.dumps(request) + b"\n")
        proc.stdin.flush()
        procs.append(proc)
    for proc in procs:  # every writer has opened its stores and warmed up
        assert proc.stdout is not None
        if proc.stdout.readline().strip() != b"ready":
            _, err = proc.communicate()
            tail = err.decode(errors="replace").strip().splitlines()[-3:]
            raise RuntimeError("shards writer failed: " + " | ".join(tail))
    server0 = _server_ticks(postmasters)
    busy0, total0 = _machine_busy()
    window = time.perf_counter()
    results = []
    with LockSampler(urls) as sampler:
        for proc in procs:
            assert proc.stdin is not None
            proc.stdin.write(b"go\n")
            proc.stdin.flush()
        for proc in procs:
            assert proc.stdout is not None
            line = proc.stdout.readline()
            if not line.strip():
                _, err = proc.communicate()
                tail = err.decode(errors="replace").strip().splitlines()[-3:]
                raise RuntimeError("shards writer failed: " + " | ".join(tail))
            results.append(orjson.loads(line))
    window = time.perf_counter() - window
    busy1, total1 = _machine_busy()
    server1 = _server_ticks(postmasters)  # the writers' backends are still connected
    for proc in procs:
        proc.communicate(b"bye\n")
    wall = max(r["finished"] for r in results) - min(r["started"] for r in results)
    sessions = sum(r["sessions"] for r in results)
    tick = os.sysconf("SC_CLK_TCK")
    writer_cpu = sum(r["cpu_s"] for r in results)
    server_cpu = (
        sum(t - server0.get(pid, 0) for pid, t in server1.items()) / tick if postmasters else None
    )
    machine_cpu = (busy1 - busy0) / tick
    cores = os.cpu_count() or 1
    latencies = sorted(ms for r in results for ms in r["session_ms"])
    return {
        "sessions": sessions,
        "wall_s": round(wall, 3),
        "sessions_per_s": round(sessions / wall, 3),
        "session_ms_p50": latencies[len(latencies) // 2],
        "session_ms_p95": latencies[min(len(latencies) - 1, round(0.95 * (len(latencies) - 1)))],
        # Per server: backends running a statement, and waiting on a lock, on average.
        "servers": sampler.summary(),
        "cpu": {
            "cores": cores,
            "window_s": round(window, 3),
            # The writers' share of their own wall time spent on a CPU (the rest: waiting
            # for the server, a lock, or a CPU the machine's other work holds).
            "writer_on_cpu_fraction": round(writer_cpu / (wall * WRITERS), 3),
            # The whole machine's busy share over the run (every process, others' too).
            "machine_busy_fraction": round((busy1 - busy0) / max(1, total1 - total0), 3),
            "machine_cpu_s": round(machine_cpu, 2),
            "writers_cpu_s": round(writer_cpu, 2),
            "servers_cpu_s": None if server_cpu is None else round(server_cpu, 2),
            "writer_cpu_ms_per_session": round(writer_cpu * 1000.0 / sessions, 1),
            "server_cpu_ms_per_session": None
            if server_cpu is None
            else round(server_cpu * 1000.0 / sessions, 1),
        },
    }


def _recall_arm(placement: Path, cfg: dict[str, int]) -> dict[str, Any]:
    import memory_es
    from memory_es.placement import load_placement, routed_server
    from memory_es.projections.records import principal_key

    principals = [f"w{w}p{j}" for w in range(WRITERS) for j in range(cfg["principals"])]
    queries = ("where do I live", "what do I drink", "my sister", "trip next month", "my job")
    stores: dict[str, memory_es.Memory] = {
        name: memory_es.open(url, check_formation=False, create=False)
        for name, url in load_placement(placement).servers.items()
    }
    try:
        samples: list[float] = []
        for i in range(cfg["recalls"] + 10):
            principal = principals[i % len(principals)]
            started = time.perf_counter()
            server, _ = routed_server(placement, principal_key("default", principal), record=False)
            stores[server].recall(principal, queries[i % len(queries)])
            if i >= 10:  # the first ten warm the caches
                samples.append(time.perf_counter() - started)
    finally:
        for memory in stores.values():
            memory.close()
    ordered = sorted(samples)
    return {
        "recalls": len(samples),
        "p50_ms": round(statistics.median(ordered) * 1000.0, 3),
        "p95_ms": round(
            ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))] * 1000.0, 3
        ),
    }


def _rebuild_arm(placement: Path) -> dict[str, Any]:
    from memory_es.placement import load_placement

    def cli(store: str) -> None:
        subprocess.run(
            [
                sys.executable,
                "-m",
                "memory_es",
                "--store",
                store,
                "projections",
                "rebuild",
                "--from-scratch",
            ],
            check=True,
            capture_output=True,
        )

    started = time.perf_counter()
    for url in load_placement(placement).servers.values():
        cli(url)
    one_after_another = time.perf_counter() - started
    started = time.perf_counter()
    cli(f"placement:///{placement}")  # every server at once, a process each
    parallel = time.perf_counter() - started
    return {
        "one_after_another_s": round(one_after_another, 3),
        "parallel_s": round(parallel, 3),
    }


def measure(scale: str, log: Log) -> dict[str, Any]:
    from memory_es.placement import init_placement

    cfg = SCALES[scale]
    out: dict[str, Any] = {"writers": WRITERS, "turns_per_session": TURNS, **cfg}
    with servers(3, log) as (bases, postmasters), tempfile.TemporaryDirectory() as folder:
        out["servers_from"] = "env" if not postmasters else "pg_createcluster"
        arms: dict[str, Any] = {}
        for arm in (1, 2, 3):
            urls = _schema_urls(bases[:arm], arm)
            placement = Path(folder) / f"placement-{arm}.json"
            init_placement(placement, {f"pg{i + 1}": u for i, u in enumerate(urls)})
            try:
                log(f"shards: {arm} server(s): {WRITERS} writers")
                result = {"write": _write_arm(placement, cfg, postmasters[:arm], urls)}
                log(f"shards: {arm} server(s): recall")
                result["recall"] = _recall_arm(placement, cfg)
                if arm == 3:
                    log("shards: rebuild, one server after another, then all at once")
                    result["rebuild"] = _rebuild_arm(placement)
                from memory_es.placement import load_placement

                placed = load_placement(placement).principals.values()
                result["principals_per_server"] = {
                    name: sum(1 for s in placed if s == name) for name in sorted(set(placed))
                }
            finally:
                _drop_schemas(urls)
            arms[str(arm)] = result
        out["arms"] = arms
    one = arms["1"]["write"]["sessions_per_s"]
    out["write_speedup_2"] = round(arms["2"]["write"]["sessions_per_s"] / one, 3)
    out["write_speedup_3"] = round(arms["3"]["write"]["sessions_per_s"] / one, 3)
    out["recall_p95_ratio"] = round(
        arms["3"]["recall"]["p95_ms"] / arms["1"]["recall"]["p95_ms"], 3
    )
    rebuild = arms["3"]["rebuild"]
    out["rebuild_parallel_speedup"] = round(
        rebuild["one_after_another_s"] / rebuild["parallel_s"], 3
    )
    busy = arms["1"]["write"]["cpu"]["machine_busy_fraction"]
    out["cpu_bound"] = busy >= 0.9
    return out


def main() -> int:
    if sys.argv[1:] != ["writer"]:
        raise SystemExit("usage: python -m memory_es.benchmarks.perf.shards writer < request.json")
    request = orjson.loads(sys.stdin.buffer.readline())

    def ready() -> None:
        sys.stdout.buffer.write(b"ready\n")
        sys.stdout.buffer.flush()
        sys.stdin.buffer.readline()  # "go": every writer starts at once

    def done(figures: dict[str, Any]) -> None:
        sys.stdout.buffer.write(orjson.dumps(figures) + b"\n")
        sys.stdout.buffer.flush()
        sys.stdin.buffer.readline()  # "bye": the servers' CPU has been read

    writer(request, ready, done)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
