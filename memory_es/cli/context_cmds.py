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
    with open_store(args) as memory:
        pack = memory.context(args.session, args.text)
    if args.json:
        print_json(pack.as_dict())
        return 0
    for message in pack.messages:
        # The trust tier, then the part: a memory message is a user-role message whose
        # text came from memory, not from the user.
        header = f"--- {message.trust}: {message.kind}"
        if message.kind == "prefix":
            header += f" sha256:{pack.prefix_digest[:8]}"  # --json has the whole digest
        print(header + " ---")
        print(message.content)
    return 0
