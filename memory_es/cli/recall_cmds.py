"""``recall``: belief lines only, in a deterministic order."""

from __future__ import annotations

import argparse

from memory_es.cli.common import Subparsers, open_store, print_json


def register(commands: Subparsers) -> None:
    recall = commands.add_parser("recall", help="current-state recall for a principal")
    recall.add_argument("--principal", required=True)
    recall.add_argument("--project", default=None, help="project scope (default: general)")
    recall.add_argument("--limit", type=int, default=10, help="item budget (default 10)")
    recall.add_argument("--json", action="store_true")
    recall.add_argument("query", metavar="QUERY")
    recall.set_defaults(handler=_recall)


def _recall(args: argparse.Namespace) -> int:
    with open_store(args) as memory:
        result = memory.recall(args.principal, args.query, project=args.project, limit=args.limit)
    if args.json:
        print_json(
            {
                "query": result.query,
                "terms": list(result.terms),
                "items": [
                    {
                        "belief_id": s.record.belief_id,
                        "short_id": s.record.short_id,
                        "statement": s.record.statement,
                        "score": s.score,
                        "matched_terms": s.matched,
                        "status": s.record.status,
                        "valid_from": s.record.valid_from,
                        "valid_to": s.record.valid_to,
                        "position": s.record.position,
                        "conflicts_with": list(s.record.conflicts_with),
                        "line": line,
                    }
                    for s, line in zip(result.items, result.lines(), strict=True)
                ],
            }
        )
    else:
        for line in result.lines():
            print(line)
    return 0
