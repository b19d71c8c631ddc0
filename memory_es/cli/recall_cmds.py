"""``recall``: belief lines only, in a deterministic order; ``--json`` for the detail."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from memory_es.cli.common import (
    Subparsers,
    instant_option,
    open_store,
    position_option,
    print_json,
    say_empty,
)

if TYPE_CHECKING:
    from memory_es.retrieval.recall import RecallResult


def register(commands: Subparsers) -> None:
    recall = commands.add_parser("recall", help="current-state recall for a principal")
    recall.add_argument("--principal", required=True)
    recall.add_argument("--project", default=None, help="project scope (default: general)")
    recall.add_argument("--limit", type=int, default=10, help="item budget (default 10)")
    recall.add_argument(
        "--as-of",
        type=instant_option,
        default=None,
        metavar="ISO8601",
        help="what was believed at that instant (valid_from <= t < valid_to)",
    )
    recall.add_argument(
        "--as-of-position",
        type=position_option,
        default=None,
        metavar="N",
        help="what memory held when the log stood at position N (transaction time)",
    )
    recall.add_argument(
        "--include-superseded",
        action="store_true",
        help="also beliefs whose validity has closed (demoted by the stale penalty)",
    )
    recall.add_argument("--json", action="store_true")
    recall.add_argument("query", metavar="QUERY")
    recall.set_defaults(handler=_recall)


def _recall(args: argparse.Namespace) -> int:
    from memory_es.domain.values import LIVE_STATUSES

    with open_store(args, check_formation=False) as memory:
        result = memory.recall(
            args.principal,
            args.query,
            project=args.project,
            limit=args.limit,
            as_of=args.as_of,
            include_superseded=args.include_superseded,
            as_of_position=args.as_of_position,
        )
    if args.json:
        print_json(as_json(result))
    else:
        lines = result.lines()
        for line, scored in zip(lines, result.items, strict=True):
            status = scored.record.status
            # --include-superseded mixes closed beliefs in: each says what it is, in the
            # form `memory list` uses.
            marked = args.include_superseded and status not in LIVE_STATUSES
            print(f"{line}  ({status})" if marked else line)
        if not lines:
            say_empty(f"nothing recalled: no belief of {args.principal} matches this query")
    return 0


def as_json(result: RecallResult) -> dict[str, Any]:
    return {
        "query": result.query,
        "terms": list(result.terms),
        "boost_terms": list(result.boost),
        "policy": result.policy,
        "as_of": result.as_of,
        "now": result.now,
        "trace_id": result.trace_id,
        "dropped_for_budget": len(result.dropped),
        "ranking_trace": result.ranking_trace.as_dict() if result.ranking_trace else None,
        "items": [
            {
                "belief_id": s.record.belief_id,
                "short_id": s.record.short_id,
                "statement": s.record.statement,
                "belief_type": s.record.belief_type,
                "score": s.score,
                "components": s.components.as_dict(),
                "lexical": s.lexical,
                "cosine": s.cosine,
                "matched_terms": s.matched,
                "validity": s.validity,
                "status": s.record.status,
                "valid_from": s.record.valid_from,
                "valid_to": s.record.valid_to,
                "successor_id": s.record.successor_id,
                "position": s.record.position,
                "conflicts_with": list(s.record.conflicts_with),
                "line": line,
            }
            for s, line in zip(result.items, result.lines(), strict=True)
        ],
    }
