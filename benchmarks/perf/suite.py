"""The suite: phases in subprocesses, side by side on SQLite and PostgreSQL."""

from __future__ import annotations

import math
import os
import platform
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from memory_es.stores import DEFAULT_DATABASE

SCALES: dict[str, dict[str, Any]] = {
    # For the test suite: the machinery end to end, in seconds. Not a measurement.
    "tiny": {
        "physical_rows": 400,
        "per_tx_rows": 40,
        "formation_sessions": 8,
        "formation_turns": 6,
        "formation_long_turns": 40,
        "recall_scales": [100, 300],
        "recall_queries": 20,
        "history_scales": [30, 90],
        "command_cycles": 3,
        "cli_runs": 1,
        "cli_cpu_runs": 1,
    },
    "quick": {
        "physical_rows": 10_000,
        "per_tx_rows": 200,
        "formation_sessions": 120,
        "formation_turns": 10,
        "formation_long_turns": 600,
        "recall_scales": [1_000, 10_000],
        "recall_queries": 150,
        "history_scales": [1_000, 10_000],
        "command_cycles": 15,
        "cli_runs": 3,
        "cli_cpu_runs": 7,
    },
    "full": {
        "physical_rows": 100_000,
        "per_tx_rows": 1_000,
        "formation_sessions": 1_000,
        "formation_turns": 10,
        "formation_long_turns": 600,
        "recall_scales": [1_000, 10_000, 100_000],
        "recall_queries": 500,
        "history_scales": [1_000, 10_000, 100_000],
        "command_cycles": 30,
        "cli_runs": 5,
        "cli_cpu_runs": 11,
    },
}

STORE_PHASES = (
    "physical",
    "append",
    "formation",
    "rebuild",
    "recall",
    "rebuild_belief_heavy",
    "commands",
)
# A rebuild phase replays the store another phase built: asking for it runs that one too.
PHASE_NEEDS = {"rebuild": "formation", "rebuild_belief_heavy": "recall"}


def with_needs(phases: tuple[str, ...]) -> tuple[str, ...]:
    """The phases asked for and those they replay, in the suite's order."""
    wanted = set(phases) | {PHASE_NEEDS[p] for p in phases if p in PHASE_NEEDS}
    return tuple(p for p in STORE_PHASES if p in wanted)


# The project's own database, never the server's `postgres` one (created once with
# `createdb memory_es`: docs/performance.md; without it the PostgreSQL lane is skipped).
DEFAULT_PG_URL = f"postgresql://postgres@127.0.0.1:5432/{DEFAULT_DATABASE}"

Log = Callable[[str], None]


def postgres_url() -> str:
    return os.environ.get("MEMORY_ES_BENCH_POSTGRES_URL", DEFAULT_PG_URL)


def postgres_unreachable(url: str) -> str | None:
    import psycopg

    from memory_es.stores import parse_store_url

    try:
        with psycopg.connect(**{**parse_store_url(url).pg_connect, "connect_timeout": 3}):
            return None
    except psycopg.Error as error:
        return str(error).strip().splitlines()[0]


def run_phase(name: str, store: dict[str, Any], cfg: dict[str, Any]) -> dict[str, Any]:
    request = orjson.dumps({"store": store, "cfg": cfg})
    done = subprocess.run(
        [sys.executable, "-m", "memory_es.benchmarks.perf.phase", name],
        input=request,
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        tail = done.stderr.decode(errors="replace").strip().splitlines()[-5:]
        raise RuntimeError(f"phase {name} failed: " + " | ".join(tail))
    result: dict[str, Any] = orjson.loads(done.stdout)
    return result


def python_loop_ms() -> float:
    """A yardstick of this machine's speed for pure Python, so runs on different
    machines can be set side by side: the median of five 1M-step summing loops."""

    def once() -> float:
        t0 = time.perf_counter()
        total = 0
        for i in range(1_000_000):
            total += i
        return time.perf_counter() - t0

    return round(statistics.median(once() for _ in range(5)) * 1000.0, 1)


def run(
    scale: str,
    *,
    postgres: bool = True,
    log: Log | None = None,
    phases: tuple[str, ...] = STORE_PHASES,
    recall_scales: list[int] | None = None,
) -> dict[str, Any]:
    """``phases`` narrows the run to some store phases (no CLI cold start then); a phase
    that reads another's store (rebuild, rebuild_belief_heavy) needs that one too.
    ``recall_scales`` overrides the scale's belief counts for recall."""
    cfg = dict(SCALES[scale])
    if recall_scales:
        cfg["recall_scales"] = list(recall_scales)
    say = log or (lambda message: None)
    started = time.perf_counter()
    report: dict[str, Any] = {
        "scale": scale,
        "environment": {
            "python": platform.python_version(),
            "sqlite": sqlite3.sqlite_version,
            "cpus": os.cpu_count(),
            "platform": platform.platform(),
            "python_loop_ms": python_loop_ms(),
        },
        "stores": {},
        "peak_rss_mb": {},
        "phase_s": {},
    }
    tmp = Path(tempfile.mkdtemp(prefix="memory_es_bench_"))
    try:
        report["stores"]["sqlite"] = _store_run("sqlite", tmp, cfg, report, say, phases)
        if postgres:
            url = postgres_url()
            reason = postgres_unreachable(url)
            if reason is None:
                report["stores"]["postgres"] = _store_run(
                    "postgres", tmp, cfg, report, say, phases, url
                )
            else:
                report["stores"]["postgres"] = {"skipped": f"no PostgreSQL at {url}: {reason}"}
        else:
            report["stores"]["postgres"] = {"skipped": "--no-postgres"}
        if phases == STORE_PHASES:
            say("cli cold start")
            cli = run_phase("cli", {}, cfg)
            report["peak_rss_mb"]["cli"] = cli.pop("peak_rss_mb")
            report["cli"] = cli
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    report["elapsed_s"] = round(time.perf_counter() - started, 1)
    return report


def _store_run(
    kind: str,
    tmp: Path,
    cfg: dict[str, Any],
    report: dict[str, Any],
    say: Log,
    phases: tuple[str, ...],
    pg_base: str = "",
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    schemas: list[str] = []

    def store(name: str) -> dict[str, Any]:
        if kind == "sqlite":
            path = str(tmp / f"{name}.db")
            return {"kind": kind, "path": path, "url": f"sqlite:///{path}"}
        schema = f"memes_perf_{uuid.uuid4().hex[:10]}_{name}"
        schemas.append(schema)
        separator = "&" if "?" in pg_base else "?"
        return {"kind": kind, "url": f"{pg_base}{separator}schema={schema}"}

    try:
        # rebuild replays the log formation wrote (a conversation: turns and the beliefs
        # they formed); rebuild_belief_heavy the recall store (one turn per belief).
        targets = {"formation": store("formation"), "recall": store("recall")}
        targets["rebuild"] = targets["formation"]
        targets["rebuild_belief_heavy"] = targets["recall"]
        for phase in phases:
            say(f"{kind}: {phase}")
            target = targets.get(phase) or store(phase)
            t0 = time.perf_counter()
            result = run_phase(phase.removesuffix("_belief_heavy"), target, cfg)
            report["phase_s"][f"{kind}.{phase}"] = round(time.perf_counter() - t0, 1)
            report["peak_rss_mb"][f"{kind}.{phase}"] = result.pop("peak_rss_mb")
            if phase == "physical":
                out["physical"] = result
            elif phase == "rebuild_belief_heavy":
                out["belief_heavy"] = result
            else:
                out.update(result)
    finally:
        if schemas:
            _drop_schemas(pg_base, schemas)
    physical = out.get("physical", {})
    if physical and "append_events_per_s" in out:
        out["append_ratio"] = out["append_events_per_s"] / physical["insert_batched_rows_per_s"]
        out["append_one_per_tx_ratio"] = (
            out["append_one_per_tx_events_per_s"] / physical["insert_per_tx_rows_per_s"]
        )
    growth = scaling(out)
    if growth:
        out["scaling"] = growth
    return out


# (metric, the phase's table, x key, y key): x is the size the metric is read against.
GROWTH: tuple[tuple[str, str, str | None, str], ...] = (
    ("recall_p95_ms", "recall", None, "recall_p95_ms"),
    ("snapshot_mb", "recall", None, "snapshot_mb"),
    ("snapshot_bytes", "recall", None, "snapshot_bytes"),
    ("first_command_ms", "recall", None, "first_command_ms"),
    ("first_recall_ms", "recall", None, "first_recall_ms"),
    ("rebuild_s", "recall", "rebuild_log_events", "rebuild_s"),
    ("say_p50_ms", "commands", "principal_events", "say_p50_ms"),
    ("close_p50_ms", "commands", "principal_events", "close_p50_ms"),
)


def loglog_exponent(points: list[tuple[float, float]]) -> float | None:
    """The slope of the least-squares line through (log x, log y): how a figure grows
    with size — 0 flat, 1 linear, 2 quadratic. None with fewer than two usable sizes."""
    usable = [(math.log(x), math.log(y)) for x, y in points if x > 0 and y > 0]
    if len({x for x, _ in usable}) < 2:
        return None
    mx = statistics.fmean(x for x, _ in usable)
    my = statistics.fmean(y for _, y in usable)
    sxx = sum((x - mx) ** 2 for x, _ in usable)
    return sum((x - mx) * (y - my) for x, y in usable) / sxx


def scaling(store_report: dict[str, Any]) -> dict[str, Any]:
    """Each size-dependent figure's growth across the run's scales (recall: beliefs held,
    or the log's events for the rebuild; commands: the principal's events): the points and
    the exponent of their log-log fit."""
    out: dict[str, Any] = {}
    for metric, table, x_key, y_key in GROWTH:
        rows = store_report.get(table) or {}
        points = [
            (float(row[x_key] if x_key else scale), float(row[y_key]))
            for scale, row in sorted(rows.items(), key=lambda item: int(item[0]))
            if y_key in row and (x_key is None or x_key in row)
        ]
        exponent = loglog_exponent(points)
        if exponent is not None:
            out[metric] = {"exponent": round(exponent, 3), "points": points}
    return out


def _drop_schemas(base: str, schemas: list[str]) -> None:
    import psycopg

    from memory_es.stores import parse_store_url

    with psycopg.connect(**parse_store_url(base).pg_connect, autocommit=True) as conn:
        for schema in schemas:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


# -- rendering ---------------------------------------------------------------------------


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        if value >= 1000:
            return f"{value:,.0f}"
        if value >= 10:
            return f"{value:.1f}"
        return f"{value:.3g}"
    return str(value)


# The rebuild section's rows, per log ({log}: its name).
REBUILD_ROWS: tuple[tuple[str, str], ...] = (
    ("{log}: rebuild (events/s)", "rebuild_events_per_s"),
    ("{log}: raw scan (events/s)", "raw_scan_events_per_s"),
    ("  rebuild_ratio", "rebuild_ratio"),
    ("  events replayed", "rebuild_events"),
    ("  read-model rows written", "read_model_rows"),
    ("  physical floor (scan + raw row writes) / rebuild", "physical_floor_ratio"),
    ("  ceiling: scan / (scan + raw writes + tokenizing)", "ceiling_ratio"),
    ("  rebuild CPU s (1 worker)", "rebuild_cpu_s"),
    ("  2 workers: rebuild (events/s)", "rebuild_2_workers_events_per_s"),
    ("  2 workers: rebuild_ratio", "rebuild_2_workers_ratio"),
    ("  2 workers: CPU s (both processes)", "rebuild_2_workers_cpu_s"),
    ("  rebuild_of_ceiling, 1 worker", "rebuild_of_ceiling_1_worker"),
    ("  rebuild_of_ceiling, 2 workers", "rebuild_of_ceiling_2_workers"),
    ("  rebuild_of_ceiling (the better)", "rebuild_of_ceiling"),
    ("  ceiling, tokenizer cold", "ceiling_ratio_cold_tokenizer"),
    ("  rebuild_of_ceiling, tokenizer cold", "rebuild_of_ceiling_cold_tokenizer"),
    ("  projector only, no writes (events/s)", "projector_only_events_per_s"),
    ("  projector_only_ratio", "projector_only_ratio"),
    ("    its page reads + decoding s", "projector_only_read_s"),
    ("    its projector handling (tokenizing incl.) s", "projector_only_project_s"),
    ("    page reads alone / raw scan", "projector_only_read_ratio"),
)


def render_table(report: dict[str, Any]) -> str:
    stores = report["stores"]
    kinds = [k for k in ("sqlite", "postgres") if k in stores]
    rows: list[tuple[str, ...]] = []

    def get(kind: str, *path: str) -> Any:
        value: Any = stores.get(kind, {})
        for key in path:
            if not isinstance(value, dict) or key not in value:
                return None
            value = value[key]
        return value

    def line(label: str, *path: str) -> None:
        rows.append((label, *(_fmt(get(k, *path)) for k in kinds)))

    def section(title: str) -> None:
        rows.append((f"-- {title}", *("" for _ in kinds)))

    section("physical reference (raw SQL, rows shaped like stored events)")
    line("insert, one transaction (rows/s)", "physical", "insert_batched_rows_per_s")
    line("insert, one per transaction (rows/s)", "physical", "insert_per_tx_rows_per_s")
    line("scan + decode (rows/s)", "physical", "scan_decode_rows_per_s")
    section("library append (eventsourcing + transcoder)")
    line("append, 1000 per save (events/s)", "append_events_per_s")
    line("  append_ratio (to raw batched insert)", "append_ratio")
    line("append, one per save (events/s)", "append_one_per_tx_events_per_s")
    line("  ratio (to raw one per transaction)", "append_one_per_tx_ratio")
    line("turns built + saved ~1000 a tx, ours (events/s)", "append_record_save_events_per_s")
    line("  the library's Aggregate + @event + save (events/s)", "append_library_events_per_s")
    line("  append_of_library (ours / the library's path)", "append_of_library")
    line("  the library's bare insert_events (events/s)", "append_library_insert_events_per_s")
    line("  ours / the bare insert_events", "append_of_library_insert")
    section("formation through memory_es (session close forms beliefs)")
    line("ingest batched: turns/s", "formation_turns_per_s")
    line("ingest batched: beliefs/s", "formation_beliefs_per_s")
    line("ingest batched: events/s", "formation_events_per_s")
    line("ingest, a session per transaction: turns/s", "formation_per_session_turns_per_s")
    line("API, a command per transaction: turns/s", "formation_api_turns_per_s")
    line("600-turn session: formation (close) s", "formation_600_turn_close_s")
    line("600-turn session: whole ingest s", "formation_600_turn_session_s")
    scales = sorted({int(s) for k in kinds for s in (get(k, "recall") or {})})
    section("recall latency (one principal holding N live beliefs)")
    for scale in scales:
        for p in ("p50", "p95", "p99"):
            line(f"{scale:>7,} beliefs: recall {p} ms", "recall", str(scale), f"recall_{p}_ms")
    section("the principal aggregate at N beliefs (its state holds no belief)")
    for scale in scales:
        line(f"{scale:>7,} beliefs: snapshot MB", "recall", str(scale), "snapshot_mb")
        line(f"{scale:>7,} beliefs: snapshot bytes", "recall", str(scale), "snapshot_bytes")
        line(f"{scale:>7,} beliefs: take snapshot ms", "recall", str(scale), "snapshot_take_ms")
        line(f"{scale:>7,} beliefs: cold load ms", "recall", str(scale), "cold_load_snapshot_ms")
        line(f"{scale:>7,} beliefs: close_session ms", "recall", str(scale), "close_session_ms")
        line(
            f"{scale:>7,} beliefs: close_session, fresh instance ms",
            "recall",
            str(scale),
            "cold_close_session_ms",
        )
        line(
            f"{scale:>7,} beliefs: first close, open to return ms",
            "recall",
            str(scale),
            "first_command_ms",
        )
        line(
            f"{scale:>7,} beliefs: first recall, open to return ms",
            "recall",
            str(scale),
            "first_recall_ms",
        )
        line(
            f"{scale:>7,} beliefs: snapshot KB per 1k beliefs",
            "recall",
            str(scale),
            "snapshot_kb_per_1k_beliefs",
        )
    section("projection rebuild vs a raw scan + decode of the same log")
    # The same rows for each log: the conversation log's figures sit at the store's top
    # level, the belief-heavy log's under "belief_heavy".
    for log, prefix in (("conversation log", ()), ("belief-heavy log", ("belief_heavy",))):
        for label, key in REBUILD_ROWS:
            line(label.format(log=log), *prefix, key)
    section("commands on a principal with a long history (cache + snapshots)")
    history = sorted({int(s) for k in kinds for s in (get(k, "commands") or {})})
    for h in history:
        tag = f"{h:>7,} history"
        line(f"{tag}: principal events", "commands", str(h), "principal_events")
        line(f"{tag}: say p50 ms", "commands", str(h), "say_p50_ms")
        line(f"{tag}: close p50 ms", "commands", str(h), "close_p50_ms")
        line(f"{tag}: close p95 ms", "commands", str(h), "close_p95_ms")
        line(f"{tag}: cold load from snapshot ms", "commands", str(h), "cold_load_snapshot_ms")
        line(f"{tag}: cold replay, no snapshot ms", "commands", str(h), "cold_replay_ms")
    section("growth from the smallest to the largest size (log-log exponent: 0 flat, 1 linear)")
    for metric, table, x_key, _ in GROWTH:
        size = x_key or "beliefs"
        line(f"{metric} against {table} {size}", "scaling", metric, "exponent")
    section("peak RSS per phase (MB)")
    for phase in STORE_PHASES:
        rows.append((phase, *(_fmt(report["peak_rss_mb"].get(f"{k}.{phase}")) for k in kinds)))
    section("wall time per phase (s)")
    for phase in STORE_PHASES:
        rows.append((phase, *(_fmt(report.get("phase_s", {}).get(f"{k}.{phase}")) for k in kinds)))
    header = ("", *kinds)
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    out = [
        "  ".join(
            cell.ljust(widths[i]) if i == 0 else cell.rjust(widths[i]) for i, cell in enumerate(r)
        )
        for r in [header, *rows]
    ]
    for kind in kinds:
        skipped = stores[kind].get("skipped")
        if skipped:
            out.append(f"{kind}: skipped ({skipped})")
    cli = report.get("cli", {})
    out.append(
        f"CLI cold start: memory-es --help {_fmt(cli.get('cli_help_ms'))} ms"
        f" (python -c pass {_fmt(cli.get('python_start_ms'))} ms),"
        f" CPU {_fmt(cli.get('help_cpu_ratio'))}x python -c pass;"
        f" session say CPU {_fmt(cli.get('say_cpu_ms'))} ms,"
        f" {_fmt(cli.get('say_cpu_ratio'))}x the bare eventsourcing script"
        f" ({_fmt(cli.get('bare_say_cpu_ms'))} ms); recall CPU {_fmt(cli.get('recall_cpu_ms'))} ms,"
        f" {_fmt(cli.get('recall_cpu_ratio'))}x the same script,"
        f" peak RSS {_fmt(report['peak_rss_mb'].get('cli'))} MB"
    )
    out.append(f"scale {report['scale']}, {report['elapsed_s']} s, {report['environment']}")
    return "\n".join(out)
