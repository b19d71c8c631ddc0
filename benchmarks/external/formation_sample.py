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
    if not args.path.is_file():
        print(f"no such file: {args.path}", file=sys.stderr)
        return 2
    if args.output.exists():
        print(f"{args.output} exists and is never overwritten", file=sys.stderr)
        return 2
    if args.n < 1:
        print("--n must be at least 1", file=sys.stderr)
        return 2
    cases = sample_turns(args.path, args.n, args.seed)
    with args.output.open("x", encoding="utf-8") as handle:
        for case in cases:
            handle.write(json.dumps(case, ensure_ascii=False) + "\n")
    print(f"{len(cases)} cases written to {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
