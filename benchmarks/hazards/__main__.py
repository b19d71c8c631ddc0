"""The hazard check's figures (docs/hazards.md): ``python -m memory_es.benchmarks.hazards``.

Prints how many of the generated secrets (tests/hazard_corpus.py) stay raw after the
screen, development and held-out templates apart; how many injection styles and benign
look-alikes form a belief through ``Memory.say`` and ``close_session``; and, given
``--locomo PATH`` / ``--longmemeval PATH``, how many LoCoMo turns / LongMemEval S user
turns get any redaction or an injection flag, each session's turns screened in order
under the cross-turn context (counts only; ``--fresh`` adds issue 25's fresh round;
``--show N`` prints N redacted turns for eyeballing, never to be committed).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

import orjson

import memory_es
from memory_es.benchmarks.hazards.corpus import (
    BENIGN,
    INJECTIONS,
    PROBED_BENIGN,
    PROBED_INJECTIONS,
    REFUSED_AT_THE_CANDIDATE,
    leaked,
    secret_cases,
)
from memory_es.benchmarks.hazards.fresh_measure import fresh_figures
from memory_es.domain.session import FOLLOW_UP_TURNS
from memory_es.formation.hazards import is_injection, screen

CONVERSATIONAL = Path(memory_es.__file__).parent / "profiles" / "conversational.yaml"


def secrets_figures() -> dict[str, int]:
    cases = secret_cases()
    raw = [c for c in cases if leaked(c, screen(c.text).text)]
    return {
        "secrets": len(cases),
        "secrets_raw": len(raw),
        "held_out": sum(c.held_out for c in cases),
        "held_out_raw": sum(c.held_out for c in raw),
    }


def forms(texts: tuple[str, ...]) -> int:
    """How many of ``texts``, each one turn of its own session, form any belief."""
    formed = 0
    with memory_es.open("memory://", profile=CONVERSATIONAL) as memory:
        for i, text in enumerate(texts):
            principal = f"p{i}"
            session = memory.open_session(principal)
            memory.say(session, text)
            memory.close_session(session)
            formed += bool(memory.list_beliefs(principal))
    return formed


def screen_sessions(
    sessions: Iterable[list[tuple[str, str]]], show: int, counted_roles: frozenset[str]
) -> dict[str, int]:
    """Screen each session's turns in order, each under the screening context its earlier
    turns opened (as ``say`` does); count the turns of ``counted_roles`` redacted or
    flagged."""
    turns = redacted = flagged = shown = 0
    for session in sessions:
        context: tuple[str, ...] = ()
        left = 0
        for role, text in session:
            screened = screen(text, context=context if left > 0 else ())
            if screened.opens:
                context, left = screened.opens, FOLLOW_UP_TURNS
            else:
                left -= 1
            if role not in counted_roles:
                continue
            turns += 1
            redacted += bool(screened.redactions)
            flagged += screened.injection
            if (screened.redactions or screened.injection) and shown < show:
                shown += 1
                print(
                    f"  {screened.redactions} injection={screened.injection}: "
                    f"{screened.text[:160]}",
                    file=sys.stderr,
                )
    return {"turns": turns, "redacted": redacted, "injection": flagged}


def locomo_sessions(path: Path) -> Iterator[list[tuple[str, str]]]:
    """LoCoMo's sessions, every turn a user turn (either speaker may be the principal)."""
    for sample in orjson.loads(path.read_bytes()):
        for key, value in sample["conversation"].items():
            if key.startswith("session_") and isinstance(value, list):
                yield [("user", str(turn.get("text", ""))) for turn in value]


def longmemeval_sessions(path: Path) -> Iterator[list[tuple[str, str]]]:
    """LongMemEval's haystack sessions, user and assistant turns in order."""
    for record in orjson.loads(path.read_bytes()):
        for session in record["haystack_sessions"]:
            yield [(str(t.get("role", "user")), str(t.get("content", ""))) for t in session]


def prefixed(prefix: str, figures: dict[str, int]) -> dict[str, int]:
    return {f"{prefix}_{name}": value for name, value in figures.items()}


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m memory_es.benchmarks.hazards")
    parser.add_argument("--locomo", type=Path, help="path to locomo10.json (local only)")
    parser.add_argument(
        "--longmemeval", type=Path, help="path to longmemeval_s.json (local only; user turns)"
    )
    parser.add_argument("--fresh", action="store_true", help="issue 25's fresh secrets round")
    parser.add_argument("--show", type=int, default=0, help="print N flagged dataset turns")
    args = parser.parse_args()
    figures: dict[str, int] = secrets_figures()
    figures["injections"] = len(INJECTIONS)
    figures["injections_flagged"] = sum(map(is_injection, INJECTIONS))
    figures["injections_formed"] = forms(INJECTIONS)
    figures["benign"] = len(BENIGN)
    figures["benign_formed"] = forms(BENIGN)
    figures["probed_injections"] = len(PROBED_INJECTIONS)
    figures["probed_injections_flagged"] = sum(map(is_injection, PROBED_INJECTIONS))
    figures["probed_injections_formed"] = forms(PROBED_INJECTIONS)
    figures["refused_at_the_candidate"] = len(REFUSED_AT_THE_CANDIDATE)
    figures["refused_at_the_candidate_formed"] = forms(REFUSED_AT_THE_CANDIDATE)
    figures["probed_benign"] = len(PROBED_BENIGN)
    figures["probed_benign_flagged"] = sum(map(is_injection, PROBED_BENIGN))
    if args.fresh:
        figures.update(fresh_figures())
    users = frozenset({"user"})
    if args.locomo:
        figures.update(
            prefixed("locomo", screen_sessions(locomo_sessions(args.locomo), args.show, users))
        )
    if args.longmemeval:
        sessions = longmemeval_sessions(args.longmemeval)
        figures.update(prefixed("longmemeval_user", screen_sessions(sessions, args.show, users)))
    print(orjson.dumps(figures, option=orjson.OPT_INDENT_2).decode())


if __name__ == "__main__":
    main()
