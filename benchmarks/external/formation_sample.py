"""A formation case file sampled from LoCoMo turns, for labelling by hand.

    python -m memory_es.benchmarks.external.formation_sample --path ~/data/locomo10.json \
        --output ~/data/locomo-formation-cases.jsonl [--n 40] [--seed 20]

Draws ``n`` turns (seeded, uniformly over every turn of every conversation, each turn
read as its own speaker's user turn) and writes them in the case-file schema of
``memory-es eval formation --cases PATH`` with an empty ``expected`` list: the labeller
writes the beliefs each turn states, in the catalogue's statement forms, before any rule
that reads them is written. The output is derived from the dataset, so it lives beside
the dataset and is never committed; an existing file is never overwritten (a labelled
file is evidence). Exit status 0 when written, 2 on a usage error.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Sequence
from pathlib import Path

from memory_es.benchmarks.external.jsonstream import iter_json_list


def sample_turns(path: Path, n: int, seed: int) -> list[dict[str, object]]:
    """Every (conversation, turn) in file order, then a seeded draw of ``n`` of them."""
    turns: list[tuple[str, str, str]] = []
    for item in iter_json_list(path):
        conversation = item.get("conversation", {})
        for key, value in conversation.items():
            if not key.startswith("session_") or not isinstance(value, list):
                continue
            for turn in value:
                text = str(turn.get("text", "")).strip()
                if text:
                    turns.append((str(item.get("sample_id")), str(turn["dia_id"]), text))
    chosen = sorted(random.Random(seed).sample(range(len(turns)), min(n, len(turns))))
    return [
        {
            "id": f"locomo-{turns[i][0]}-{turns[i][1]}",
            "category": "locomo",
            "text": turns[i][2],
            "expected": [],
        }
        for i in chosen
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m memory_es.benchmarks.external.formation_sample"
    )
    parser.add_argument("--path", type=Path, required=True, help="locomo10.json")
    parser.add_argument("--output", type=Path, required=True, help="the case file to write")
    parser.add_argument("--n", type=int, default=40)
    parser.add_argument("--seed", type=int, default=20)
    args = parser.parse_args(argv)
    refused = refused_sample_arguments(args.path, args.output, args.n)
    if refused:
        print(refused, file=sys.stderr)
        return 2
    cases = sample_turns(args.path, args.n, args.seed)
    write_sample(args.output, cases)
    print(f"{len(cases)} cases written to {args.output}", file=sys.stderr)
    return 0


def refused_sample_arguments(path: Path, output: Path, n: int) -> str | None:
    """Why a sampler's arguments are refused, if they are: the dataset must exist, a
    written sample is never overwritten (it may hold hand judgements), n is positive."""
    if not path.is_file():
        return f"no such file: {path}"
    if output.exists():
        return f"{output} exists and is never overwritten"
    if n < 1:
        return "--n must be at least 1"
    return None


def write_sample(output: Path, rows: Sequence[object]) -> None:
    """One JSON object a line, into a file that did not exist."""
    with output.open("x", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    sys.exit(main())
