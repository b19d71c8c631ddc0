"""``memory list``."""

from __future__ import annotations

import argparse

from memory_es.cli.common import Subparsers, open_store, print_json
from memory_es.retrieval.render import render_line


def register(commands: Subparsers) -> None:
    memory = commands.add_parser("memory", help="inspect and govern a principal's beliefs")
    actions = memory.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True

    listing = actions.add_parser("list", help="every belief of a principal, any status")
    listing.add_argument("--principal", required=True)
    listing.add_argument("--json", action="store_true")
    listing.set_defaults(handler=_list)


def _list(args: argparse.Namespace) -> int:
    with open_store(args) as memory:
        beliefs = memory.list_beliefs(args.principal)
    if args.json:
        print_json([b.as_dict() for b in beliefs])
        return 0
    for b in beliefs:
        print(f"{render_line(b.belief_id, b.statement, b.conflicts_with)}  ({b.status})")
    return 0
