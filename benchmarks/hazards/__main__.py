"""The hazard check's figures (docs/hazards.md): ``python -m memory_es.benchmarks.hazards``.

Prints how many of the generated secrets (tests/hazard_corpus.py) stay raw after the
screen, development and held-out templates apart; how many injection styles and benign
look-alikes form a belief through ``Memory.say`` and ``close_session``; and, given
``--locomo PATH`` / ``--longmemeval PATH``, how many LoCoMo turns / LongMemEval S user
turns (its check half of sessions) get any redaction or an injection flag, each session
said turn by turn through ``Memory.say`` so the cross-turn context is in force (counts
only; ``--fresh`` adds the fresh secrets round); with ``--public-sets DIR``, the public
prompt-injection sets' figures alone (``--show N`` prints N misses of each for
eyeballing, never to be committed).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import orjson

import memory_es
from memory_es.benchmarks.hazards import conversation, public_sets
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


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m memory_es.benchmarks.hazards")
    parser.add_argument("--locomo", type=Path, help="path to locomo10.json (local only)")
    parser.add_argument(
        "--show", type=int, default=0, help="with --public-sets: print N misses of each set"
    )
    parser.add_argument("--fresh", action="store_true", help="the fresh secrets round")
    parser.add_argument(
        "--public-sets",
        type=Path,
        help="folder holding the public prompt-injection sets (s-labs/, neuralchemy/, "
        "yanismiraoui/: benchmarks/hazards/public_sets.py); prints their figures only",
    )
    parser.add_argument(
        "--sets",
        default=",".join(public_sets.REPORTED),
        help="with --public-sets: comma-separated set names (default: the test splits and "
        "yanismiraoui)",
    )
    parser.add_argument(
        "--formed-sample",
        type=int,
        default=300,
        help="with --public-sets: how many injections of each set are said and closed to "
        "count the ones that form a belief (0: all of them)",
    )
    parser.add_argument("--seed", type=int, default=0, help="the formed sample's seed")
    parser.add_argument(
        "--longmemeval",
        type=Path,
        help="longmemeval_s.json: its check half's user turns said session by session "
        "(turns flagged or redacted; the train half is the injection model's)",
    )
    parser.add_argument(
        "--show-redacted",
        type=Path,
        help="with --locomo / --longmemeval: write each redacted or flagged user turn (its "
        "kinds, the values replaced, the redacted text) to this file as JSON lines (local "
        "only, never committed)",
    )
    args = parser.parse_args()
    if args.public_sets:
        sample = args.formed_sample or None
        names = [n.strip() for n in args.sets.split(",") if n.strip()]
        figures_by_set = public_sets.report(
            args.public_sets, names, formed_sample=sample, seed=args.seed, show=args.show
        )
        print(orjson.dumps(figures_by_set, option=orjson.OPT_INDENT_2).decode())
        return
    figures: dict[str, float | int] = dict(secrets_figures())
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
    show = args.show_redacted.open("w", encoding="utf-8") if args.show_redacted else None
    if args.locomo:
        figures.update(
            conversation.screened_figures(
                conversation.locomo_sessions(args.locomo), "locomo", show=show
            )
        )
    if args.longmemeval:
        sessions = conversation.longmemeval_sessions(args.longmemeval, "check")
        figures.update(conversation.screened_figures(sessions, "longmemeval_check", show=show))
    if show is not None:
        show.close()
    print(orjson.dumps(figures, option=orjson.OPT_INDENT_2).decode())


if __name__ == "__main__":
    main()
