"""``sources declare|list|apply``: source evidence declarations on the command line
(docs/lifecycle.md "Source evidence declarations"). Binding a session or a turn to a
declared source is ``session open --source`` / ``session say --source``."""

from __future__ import annotations

import argparse

from memory_es.cli.common import Subparsers, open_store, print_json, say_empty

# memory_es/evidence/declarations.py's enums, spelled here: building the parser imports
# nothing heavy (tests/test_cli_startup.py; tests/test_cli_review.py checks they agree).
AUTHORITIES = ("untrusted", "user_asserted", "repository_attested", "system_attested")
VERIFICATIONS = ("unknown", "verified", "not_verified")


def register(commands: Subparsers) -> None:
    sources = commands.add_parser(
        "sources", help="source evidence declarations: declare, list, apply a file"
    )
    actions = sources.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True

    declare = actions.add_parser("declare", help="declare (or re-declare) a source")
    declare.add_argument("name", metavar="NAME")
    declare.add_argument("--authority", required=True, choices=AUTHORITIES)
    declare.add_argument("--verification", default="unknown", choices=VERIFICATIONS)
    declare.add_argument(
        "--version",
        type=int,
        default=None,
        help="the declaration's version (default: one past the version in force)",
    )
    declare.add_argument("--tenant", default="default")
    declare.add_argument("--json", action="store_true")
    declare.set_defaults(handler=_declare)

    listing = actions.add_parser("list", help="every declared source, as in force now")
    listing.add_argument("--tenant", default="default")
    listing.add_argument("--history", action="store_true", help="every version, oldest first")
    listing.add_argument("--json", action="store_true")
    listing.set_defaults(handler=_list)

    apply = actions.add_parser("apply", help="apply a declarations file (YAML or JSON)")
    apply.add_argument("path", metavar="FILE")
    apply.add_argument("--json", action="store_true")
    apply.set_defaults(handler=_apply)


def _line(d: dict[str, object]) -> str:
    return f"{d['source']} {d['authority']} {d['verification']} v{d['version']}"


def _declare(args: argparse.Namespace) -> int:
    with open_store(args, check_formation=False, create=True) as memory:
        declared = memory.sources.declare(
            args.name,
            authority=args.authority,
            verification=args.verification,
            version=args.version,
            tenant=args.tenant,
        )
    if args.json:
        print_json(declared.as_dict())
    else:
        print(f"declared {_line(declared.as_dict())}")
    return 0


def _list(args: argparse.Namespace) -> int:
    with open_store(args, check_formation=False) as memory:
        current = memory.sources.list(tenant=args.tenant)
        rows = (
            [d for c in current for d in memory.sources.history(c.source, tenant=args.tenant)]
            if args.history
            else current
        )
    if args.json:
        print_json([d.as_dict() for d in rows])
    elif not rows:
        say_empty("no sources declared (session turns are the built-in `session` source)")
    else:
        for declaration in rows:
            print(_line(declaration.as_dict()))
    return 0


def _apply(args: argparse.Namespace) -> int:
    from memory_es.evidence.config import apply_declarations

    with open_store(args, check_formation=False, create=True) as memory:
        applied = apply_declarations(memory, args.path)
    if args.json:
        print_json([{**a.declaration.as_dict(), "action": a.action} for a in applied])
    else:
        for a in applied:
            print(f"{a.action} {_line(a.declaration.as_dict())}")
    return 0
