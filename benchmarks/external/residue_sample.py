"""A sample of the residue lines formation forms from LoCoMo turns, for judging by hand.

    python -m memory_es.benchmarks.external.residue_sample --path /work/data/locomo10.json \
        --output /tmp/locomo-residue-sample.jsonl [--n 200] [--seed 27]

Reads every turn of every conversation as its own speaker's trusted user turn on its
session's day (as the external harness records it), runs the shipped extractor on it and
keeps the residue lines it forms ("User said: ..."); then a seeded draw of ``n`` of them,
in file order, each with its turn's text and an empty ``about_user`` judgement: the
judge writes ``true`` when the line states something about the user or their world (an
event, a state, a possession, a plan, a person of theirs), ``false`` when it carries
nothing ("New year, new User.", a reaction, a comment on the other speaker's photo).
Precision is the share judged true (``--score FILE`` prints it). The output derives from
the dataset: it lives outside the repository and an existing file is never overwritten.
Exit status 0 when written, 2 on a usage error.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

from memory_es.benchmarks.external.formation_sample import refused_sample_arguments, write_sample
from memory_es.benchmarks.external.load_locomo import load as load_locomo
from memory_es.benchmarks.external.model import LoadReport
from memory_es.formation.extractor import ClauseExtractor, SourceTurn
from memory_es.formation.hazards import screen

RESIDUE_PREFIX = "User said: "


def residue_lines(path: Path) -> list[dict[str, object]]:
    """Every residue line of every turn, in file order."""
    extractor = ClauseExtractor(residue=True)
    lines: list[dict[str, object]] = []
    for scenario in load_locomo(path, LoadReport(), principal_speaker="both"):
        for session in scenario.sessions:
            if session.at is None:
                continue
            for turn in session.turns:
                screened = screen(turn.text)
                source = SourceTurn(
                    turn_id=turn.ref,
                    seq=1,
                    role="user",
                    text=screened.text,
                    trusted=not screened.injection,
                    at=session.at.isoformat(),
                )
                for proposal in extractor.extract([source]):
                    if proposal.statement.startswith(RESIDUE_PREFIX):
                        lines.append(
                            {
                                "id": f"{scenario.scenario_id}/{turn.ref}",
                                "turn": turn.text,
                                "line": proposal.statement,
                                "about_user": None,
                            }
                        )
    return lines


def sample(path: Path, n: int, seed: int) -> list[dict[str, object]]:
    lines = residue_lines(path)
    chosen = sorted(random.Random(seed).sample(range(len(lines)), min(n, len(lines))))
    return [lines[i] for i in chosen]


def precision(judged: list[dict[str, object]]) -> tuple[int, int]:
    """(lines judged about the user, lines judged)."""
    scored = [j for j in judged if isinstance(j.get("about_user"), bool)]
    return sum(1 for j in scored if j["about_user"]), len(scored)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m memory_es.benchmarks.external.residue_sample")
    parser.add_argument("--path", type=Path, help="locomo10.json")
    parser.add_argument("--output", type=Path, help="the sample file to write")
    parser.add_argument("--score", type=Path, help="a judged sample: print its precision")
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--seed", type=int, default=27)
    args = parser.parse_args(argv)
    if args.score is not None:
        if not args.score.is_file():
            print(f"no such file: {args.score}", file=sys.stderr)
            return 2
        rows = [json.loads(line) for line in args.score.read_text("utf-8").splitlines() if line]
        kept, judged = precision(rows)
        print(f"residue precision {kept}/{judged} = {kept / judged if judged else 0:.3f}")
        return 0
    if args.path is None or args.output is None:
        print("--path and --output are required (or --score FILE)", file=sys.stderr)
        return 2
    refused = refused_sample_arguments(args.path, args.output, args.n)
    if refused:
        print(refused, file=sys.stderr)
        return 2
    rows = sample(args.path, args.n, args.seed)
    write_sample(args.output, rows)
    print(f"{len(rows)} residue lines written to {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
