"""``session open|say|close``."""

from __future__ import annotations

import argparse
import sys

from memory_es.cli.common import Subparsers, open_store, print_json


def register(commands: Subparsers) -> None:
    session = commands.add_parser("session", help="open, speak into and close sessions")
    actions = session.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True

    opened = actions.add_parser("open", help="open a session; prints its id alone")
    opened.add_argument("--principal", required=True)
    opened.add_argument("--project", default=None, help="project scope (default: general)")
    opened.add_argument(
        "--source",
        default=None,
        metavar="NAME",
        help="bind the session to a declared source (`memory-es sources declare`)",
    )
    opened.set_defaults(handler=_open)

    say = actions.add_parser("say", help="record a turn")
    say.add_argument("session_id", metavar="SESSION_ID")
    say.add_argument("text", metavar="TEXT")
    say.add_argument("--role", choices=("user", "assistant"), default="user")
    say.add_argument(
        "--source",
        default=None,
        metavar="NAME",
        help="record the turn through a declared source (tool output, a pasted document)",
    )
    say.set_defaults(handler=_say)

    close = actions.add_parser("close", help="close a session and run formation")
    close.add_argument("session_id", metavar="SESSION_ID")
    close.add_argument("--json", action="store_true")
    close.set_defaults(handler=_close)


def _open(args: argparse.Namespace) -> int:
    with open_store(args, check_formation=False, create=True) as memory:
        session_id = memory.open_session(args.principal, project=args.project)
        if args.source and not memory.sources.bind(session_id, args.source).valid:
            print(
                f"memory-es: warning: source {args.source!r} is not declared: its turns are"
                " unknown / untrusted (`memory-es sources declare`)",
                file=sys.stderr,
            )
        print(session_id)
    return 0


def _say(args: argparse.Namespace) -> int:
    with open_store(args, check_formation=False) as memory:
        if args.source:
            receipt = memory.sources.say(
                args.session_id, args.text, source=args.source, role=args.role
            )
        else:
            receipt = memory.say(args.session_id, args.text, role=args.role)
    note = ""
    if receipt.redactions:
        note += f" redacted={','.join(receipt.redactions)}"
    if not receipt.trusted and args.role == "user":
        note += " untrusted"
    if receipt.cleaned_characters:
        note += f" cleaned={receipt.cleaned_characters}"
    print(f"turn {receipt.seq} recorded{note}")
    return 0


def _close(args: argparse.Namespace) -> int:
    from memory_es.retrieval.render import formation_lines

    with open_store(args, check_formation=False) as memory:
        result = memory.close_session(args.session_id)
        lines = formation_lines(result, memory.index.get)
    counts = result.counts.as_dict()
    if args.json:
        print_json(
            {
                "session_id": result.session_id,
                "counts": counts,
                "formed": result.formed,
                "superseded": result.superseded,
            }
        )
        return 0
    for line in lines:
        print(line)
    print("closed; " + ", ".join(f"{k}={v}" for k, v in counts.items()))
    return 0
