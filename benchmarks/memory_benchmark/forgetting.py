"""The forgetting scenarios (benchmarks/corpus/forgetting.v1.json), played through the
command line (``memory_es.cli.main``, in process, on a SQLite store of its own): each
scenario's sessions are recorded and closed (``session open|say|close``), its forget
step is confirmed (``memory forget --confirm``; a turn's id read from ``log export``,
where ids are in the clear), then every probe is asked. A probe passes when each
``needed`` belief still renders in ``recall`` and no ``forbidden_statements`` renders
anywhere a user, a model or an operator reads: ``recall``, a fresh session's
``context``, ``memory list``, ``memory history`` of every belief, and ``log export
--decrypted`` (the operator's plaintext copy). The counts go into the deterministic
arm's report (memory_es/benchmarks/memory_benchmark/command.py).
"""

from __future__ import annotations

import base64
import contextlib
import io
import tempfile
from pathlib import Path
from typing import Any

import orjson

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "forgetting.v1.json"
PRINCIPAL = "user"
_TURN_RECORDED = "memory_es.domain.session:Session.TurnRecorded"


def load(path: Path = CORPUS) -> list[dict[str, Any]]:
    scenarios: list[dict[str, Any]] = orjson.loads(path.read_bytes())["scenarios"]
    return scenarios


class _Cli:
    """``memory-es --store URL ARGS`` in this process: its stdout, or the failure."""

    def __init__(self, url: str) -> None:
        self.url = url

    def __call__(self, *args: str) -> str:
        from memory_es.cli import main

        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()) as err:
            try:
                code = main(["--store", self.url, *args])
            except SystemExit as stop:
                code = stop.code if isinstance(stop.code, int) else 2
        if code != 0:
            raise RuntimeError(f"memory-es {' '.join(args)}: exit {code}: {err.getvalue()}")
        return out.getvalue()


def _turn_ids(cli: _Cli, folder: Path, session_id: str) -> list[str]:
    """The session's turn ids in order, from ``log export`` (ids are never sealed)."""
    exported = folder / "ids.jsonl"
    cli("log", "export", str(exported))
    turns: list[tuple[int, str]] = []
    for line in exported.read_bytes().splitlines()[1:]:
        event = orjson.loads(line)
        if event["topic"] == _TURN_RECORDED and event["originator_id"] == session_id:
            state = orjson.loads(base64.b64decode(event["state"]))
            turns.append((event["originator_version"], state["turn_id"]))
    exported.unlink()
    return [turn_id for _, turn_id in sorted(turns)]


def play(scenario: dict[str, Any]) -> dict[str, Any]:
    """One scenario's probes: (id, category, passed, what failed)."""
    with tempfile.TemporaryDirectory(prefix="memory-es-forgetting-") as name:
        folder = Path(name)
        cli = _Cli(f"sqlite:///{folder / 'memory.db'}")
        sessions: dict[str, str] = {}
        for session in scenario["sessions"]:
            sid = cli("session", "open", "--principal", PRINCIPAL).strip()
            sessions[session["id"]] = sid
            for turn in session["turns"]:
                cli("session", "say", sid, turn["text"])
            cli("session", "close", sid)
        step = scenario["forget"]
        if "turn" in step:
            turn_id = _turn_ids(cli, folder, sessions[step["session"]])[step["turn"]]
            cli("memory", "forget", "--turn", turn_id, "--confirm")
        else:
            cli("memory", "forget", "--session", sessions[step["session"]], "--confirm")
        statements = {b["label"]: b["statements"] for b in scenario["beliefs"]}
        listed = orjson.loads(cli("memory", "list", "--principal", PRINCIPAL, "--json"))
        histories = [cli("memory", "history", b["belief_id"]) for b in listed]
        cli("log", "export", "--decrypted", str(folder / "opened.jsonl"))
        everywhere = " ".join(
            [
                " ".join(b["statement"] for b in listed),
                *histories,
                (folder / "opened.jsonl").read_text(),
            ]
        )
        results = []
        for probe in scenario["probes"]:
            recalled = cli("recall", "--principal", PRINCIPAL, probe["question"])
            fresh = cli("session", "open", "--principal", PRINCIPAL).strip()
            shown = cli("context", "--session", fresh, probe["question"])
            missing = [
                label
                for label in probe["needed"]
                if not any(s in recalled for s in statements[label])
            ]
            leaked = [
                s for s in probe["forbidden_statements"] if s in f"{recalled} {shown} {everywhere}"
            ]
            results.append(
                {
                    "probe": f"{scenario['id']}/{probe['id']}",
                    "category": probe["category"],
                    "passed": not missing and not leaked,
                    "missing": missing,
                    "leaked": leaked,
                }
            )
    return {"scenario": scenario["id"], "probes": results}


def run(path: Path = CORPUS) -> dict[str, Any]:
    """Every scenario played; counts per category (MEME's Deletion and Cascade)."""
    played = [play(s) for s in load(path)]
    probes = [p for s in played for p in s["probes"]]
    counts: dict[str, dict[str, int]] = {}
    for probe in probes:
        tally = counts.setdefault(probe["category"], {"probes": 0, "passed": 0})
        tally["probes"] += 1
        tally["passed"] += int(probe["passed"])
    return {
        "scenarios": len(played),
        "probes": len(probes),
        "passed": sum(p["passed"] for p in probes),
        "leaked": sum(len(p["leaked"]) for p in probes),
        "by_category": counts,
        "results": played,
    }


def counts(report: dict[str, Any]) -> dict[str, Any]:
    """What the deterministic arm reports of a run: the counts and the failed probes' ids
    (each probe's detail is in ``run``'s results)."""
    failed = [p["probe"] for s in report["results"] for p in s["probes"] if not p["passed"]]
    return {
        "corpus": CORPUS.name,
        "scenarios": report["scenarios"],
        "probes": report["probes"],
        "passed": report["passed"],
        "leaked": report["leaked"],
        "by_category": report["by_category"],
        "failed": failed,
    }


def summary_line(tally: dict[str, Any]) -> str:
    """The human report's line."""
    by_category = "  ".join(
        f"{name} {c['passed']}/{c['probes']}" for name, c in sorted(tally["by_category"].items())
    )
    return (
        f"forgetting ({tally['corpus']}, through the CLI): {tally['passed']}/{tally['probes']}"
        f" probes pass, {tally['leaked']} forgotten statements rendered  ({by_category})"
    )
