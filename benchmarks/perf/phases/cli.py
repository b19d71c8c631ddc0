"""CLI cold start: a hook's command, CPU and wall, against a bare interpreter."""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

from memory_es.benchmarks.perf.phases.common import _ms


def _cpu_s(argv: list[str], env: dict[str, str] | None = None) -> float:
    """CPU time (user + system) of one child process run to its end."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def phase_cli(store: dict[str, Any], cfg: dict[str, Any]) -> dict[str, Any]:
    """A command's cold start, as CPU time against a reference run in the same loop:
    ``memory-es --help`` against ``python -c pass``, and the two calls an agent hook
    makes on a SQLite store, ``memory-es session say`` and ``memory-es recall`` (on a
    principal whose closed session formed beliefs), against the bare eventsourcing script
    doing what say does (open the application, load a small aggregate, append one event,
    save: bare_say.py; recall's ratio is to the same script, the hook's other call). Runs
    are interleaved, so a busy machine slows both sides of a ratio alike."""

    def wall(argv: list[str]) -> float:
        t0 = time.perf_counter()
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
        return time.perf_counter() - t0

    runs = cfg["cli_runs"]
    interpreter = [wall([sys.executable, "-c", "pass"]) for _ in range(runs)]
    help_ = [wall([sys.executable, "-m", "memory_es", "--help"]) for _ in range(runs)]

    cpu: dict[str, list[float]] = {"pass": [], "help": [], "say": [], "recall": [], "bare": []}
    with tempfile.TemporaryDirectory(prefix="memory_es_cli_") as tmp:
        # As an installed package runs: from cached bytecode (a wheel's install compiles
        # it; PYTHONDONTWRITEBYTECODE would recompile every module on every run), cached
        # under the temporary directory, never in the source tree. The warm-up runs
        # below (not measured) fill the cache for both sides.
        drop = ("MEMORY_ES_PROFILE", "PYTHONDONTWRITEBYTECODE")
        env = {k: v for k, v in os.environ.items() if k not in drop}
        env["PYTHONPYCACHEPREFIX"] = f"{tmp}/pycache"
        env["MEMORY_ES_STORE"] = f"sqlite:///{tmp}/memory.db"
        cli = [sys.executable, "-m", "memory_es"]
        bare = [sys.executable, "-m", "memory_es.benchmarks.perf.bare_say", f"{tmp}/bare.db"]

        def first_line(argv: list[str]) -> str:
            done = subprocess.run(argv, check=True, capture_output=True, text=True, env=env)
            return done.stdout.strip().splitlines()[0]

        # Beliefs for recall to find: a closed session's (say's session stays open).
        formed = first_line([*cli, "session", "open", "--principal", "alice"])
        for fact in ("I prefer green tea in the morning", "I live in Lisbon", "I work at Acme"):
            first_line([*cli, "session", "say", formed, fact])
        subprocess.run([*cli, "session", "close", formed], check=True, capture_output=True, env=env)
        session_id = first_line([*cli, "session", "open", "--principal", "alice"])
        aggregate_id = first_line([*bare, "create"])
        text = "I prefer green tea in the morning"
        commands = {
            "pass": [sys.executable, "-c", "pass"],
            "help": [*cli, "--help"],
            "say": [*cli, "session", "say", session_id, text],
            "recall": [*cli, "recall", "--principal", "alice", "what tea do I like"],
            "bare": [*bare, "say", aggregate_id, text],
        }
        for argv in commands.values():
            _cpu_s(argv, env)  # warm-up: bytecode cached, files in the page cache
        for _ in range(cfg["cli_cpu_runs"]):
            for name, argv in commands.items():
                cpu[name].append(_cpu_s(argv, env))
    median = {name: statistics.median(values) for name, values in cpu.items()}
    return {
        "cli_help_ms": _ms(statistics.median(help_)),
        "python_start_ms": _ms(statistics.median(interpreter)),
        "help_cpu_ms": _ms(median["help"]),
        "python_cpu_ms": _ms(median["pass"]),
        "say_cpu_ms": _ms(median["say"]),
        "bare_say_cpu_ms": _ms(median["bare"]),
        "help_cpu_ratio": round(median["help"] / median["pass"], 3),
        "say_cpu_ratio": round(median["say"] / median["bare"], 3),
        "recall_cpu_ms": _ms(median["recall"]),
        "recall_cpu_ratio": round(median["recall"] / median["bare"], 3),
    }
