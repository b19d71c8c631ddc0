"""The hazard screen's speed, as same-run pairs of two checkouts (docs/hazards.md).

``python -m memory_es.benchmarks.hazards.speed --checkouts BASE THIS [--rounds 3]``

Two figures, each checkout's code run in its own child processes (``PYTHONPATH`` set to
the checkout, started in its folder), the checkouts alternating so a busy machine slows
both alike; CPU time, medians:

- ``screen_ms``: ``formation.hazards.screen`` on turns of 2 KB of prose (the same turns
  for both, written to a file first), each after the one before it (the session's
  cross-turn context, where the checkout has one), after a warm-up (imports, the
  model's load);
- ``say_cpu_ms``: a fresh ``memory-es session say`` process's CPU on a SQLite store (the
  hook's call: imports, the model's load, one screened turn), from cached bytecode.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

TURN_CHARS = 2_048
_VOCABULARY = (
    "the a my we our you it was is and but so then after before with for to of in on at "
    "morning evening weekend trip garden kitchen sister brother friend manager office "
    "project meeting dinner lunch coffee tea train bus car bike park river city village "
    "book film song game recipe plan idea question answer week month year today tomorrow "
    "went saw bought cooked visited called wrote read liked loved hated finished started "
    "really quite very small big new old early late quiet busy happy tired long short"
)
_WORDS = _VOCABULARY.split()

# Run in the child, inside one checkout: prints the median CPU ms of one screen.
_SCREEN = """
import json, statistics, sys, time
from memory_es.formation.hazards import screen
turns = json.load(open(sys.argv[1]))
try:  # the session's cross-turn context, where the checkout has one
    screen(turns[0], preceding="")
    def screened(text, before):
        screen(text, preceding=" ".join(before.split()[-32:]))
except TypeError:
    def screened(text, before):
        screen(text)
screened(turns[0], "")
times = []
for _ in range(3):
    before = ""
    for text in turns:
        t0 = time.process_time()
        screened(text, before)
        times.append(time.process_time() - t0)
        before = text
print(statistics.median(times) * 1000)
"""


def prose_turns(count: int, seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    turns = []
    for _ in range(count):
        words: list[str] = []
        while sum(len(w) + 1 for w in words) < TURN_CHARS:
            # sentences of twelve words
            words.append(rng.choice(_WORDS) + ("." if len(words) % 12 == 11 else ""))
        turns.append(" ".join(words)[:TURN_CHARS])
    return turns


def _env(checkout: str, tmp: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("MEMORY_ES_PROFILE",)}
    env["PYTHONPATH"] = checkout
    env["PYTHONPYCACHEPREFIX"] = f"{tmp}/pycache-{Path(checkout).name}"
    env["MEMORY_ES_STORE"] = f"sqlite:///{tmp}/{Path(checkout).name}.db"
    return env


def _child_cpu_s(argv: list[str], env: dict[str, str], cwd: str) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, env=env, cwd=cwd)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def pairs(checkouts: list[str], rounds: int, turns: int) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, list[float]]] = {
        c: {"screen_ms": [], "say_cpu_ms": []} for c in checkouts
    }
    with tempfile.TemporaryDirectory(prefix="memory_es_hazard_speed_") as tmp:
        turns_file = Path(tmp) / "turns.json"
        turns_file.write_text(json.dumps(prose_turns(turns)))
        sessions: dict[str, str] = {}
        cli = [sys.executable, "-m", "memory_es"]
        for checkout in checkouts:
            env = _env(checkout, tmp)
            done = subprocess.run(
                [*cli, "session", "open", "--principal", "alice"],
                check=True,
                capture_output=True,
                text=True,
                env=env,
                cwd=checkout,
            )
            sessions[checkout] = done.stdout.strip().splitlines()[0]
        text = "I prefer green tea in the morning"
        for round_ in range(rounds + 1):  # the first round warms the bytecode caches
            for checkout in checkouts:
                env = _env(checkout, tmp)
                say = [*cli, "session", "say", sessions[checkout], text]
                cpu = _child_cpu_s(say, env, checkout)
                done = subprocess.run(
                    [sys.executable, "-c", _SCREEN, str(turns_file)],
                    check=True,
                    capture_output=True,
                    text=True,
                    env=env,
                    cwd=checkout,
                )
                if round_:
                    out[checkout]["say_cpu_ms"].append(cpu * 1000)
                    out[checkout]["screen_ms"].append(float(done.stdout.strip()))
    return {
        c: {name: round(statistics.median(v), 2) for name, v in figures.items()}
        for c, figures in out.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m memory_es.benchmarks.hazards.speed")
    parser.add_argument("--checkouts", nargs=2, required=True, metavar=("BASE", "THIS"))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--turns", type=int, default=40)
    args = parser.parse_args()
    base, this = (str(Path(c).resolve()) for c in args.checkouts)
    figures = pairs([base, this], args.rounds, args.turns)
    ratios = {
        f"{name}_ratio": round(figures[this][name] / figures[base][name], 3)
        for name in figures[base]
    }
    print(json.dumps({"base": figures[base], "this": figures[this], **ratios}, indent=2))


if __name__ == "__main__":
    main()
