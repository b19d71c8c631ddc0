"""``context``: the context pack for a session's next model call."""

from __future__ import annotations

import argparse

from memory_es.cli.common import Subparsers, open_store, print_json


def register(commands: Subparsers) -> None:
    context = commands.add_parser(
        "context",
        help="the context pack for the next model call: snapshot, recall, delta, corrections",
    )
    context.add_argument("--session", required=True, metavar="SESSION_ID")
    context.add_argument("--json", action="store_true")
    context.add_argument("text", metavar="TEXT", help="the user turn the pack is built for")
    context.set_defaults(handler=_context)


def _context(args: argparse.Namespace) -> int:
    from memory_es.context.pack import pack_text  # lazily: the command line starts light

    with open_store(args, check_formation=False) as memory:
        pack = memory.context(args.session, args.text)
    if args.json:
        print_json(pack.as_dict())
        return 0
    print(pack_text(pack))
    return 0
