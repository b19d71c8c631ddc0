"""The forgetting scenarios (benchmarks/corpus/forgetting.v1.json), played through the
library: each scenario's sessions are recorded and closed, its ``forget`` step is
confirmed, then every probe is asked. A probe passes when each ``needed`` belief still
renders in recall and no ``forbidden_statements`` renders anywhere a user or a model
reads (recall, the context pack of a fresh session, the belief list). Deterministic:
memory://, a fixed clock, sequential ids and seeded keys.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import orjson

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "forgetting.v1.json"
PRINCIPAL = "user"


def load(path: Path = CORPUS) -> list[dict[str, Any]]:
    scenarios: list[dict[str, Any]] = orjson.loads(path.read_bytes())["scenarios"]
    return scenarios


def play(scenario: dict[str, Any]) -> dict[str, Any]:
    """One scenario's probes: (id, category, passed, what failed)."""
    import memory_es
    from memory_es.keys import SeededKeys
    from memory_es.ports import FixedClock, parse_iso

    clock = FixedClock(parse_iso(scenario["start_at"]))
    with memory_es.open(
        "memory://", clock=clock, ids=memory_es.SequentialIds(), key_source=SeededKeys()
    ) as memory:
        sessions: dict[str, str] = {}
        turns: dict[str, list[str]] = {}
        for session in scenario["sessions"]:
            clock.advance(session.get("advance_seconds", 0))
            sid = memory.open_session(PRINCIPAL)
            sessions[session["id"]] = sid
            for turn in session["turns"]:
                clock.advance(turn.get("advance_seconds", 60))
                turns.setdefault(session["id"], []).append(memory.say(sid, turn["text"]).turn_id)
            memory.close_session(sid)
        step = scenario["forget"]
        if "turn" in step:
            memory.forget(turn=turns[step["session"]][step["turn"]], confirm=True)
        else:
            memory.forget(session=sessions[step["session"]], confirm=True)
        clock.advance(timedelta(hours=1).total_seconds())
        statements = {b["label"]: b["statements"] for b in scenario["beliefs"]}
        listed = " ".join(b.statement for b in memory.list_beliefs(PRINCIPAL))
        results = []
        for probe in scenario["probes"]:
            recalled = " ".join(memory.recall(PRINCIPAL, probe["question"]).lines())
            fresh = memory.open_session(PRINCIPAL)
            pack = memory.context(fresh, probe["question"])
            shown = " ".join([pack.prefix, *(i.line for i in (*pack.snapshot, *pack.recall))])
            missing = [
                label
                for label in probe["needed"]
                if not any(s in recalled for s in statements[label])
            ]
            leaked = [
                s for s in probe["forbidden_statements"] if s in f"{recalled} {shown} {listed}"
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
