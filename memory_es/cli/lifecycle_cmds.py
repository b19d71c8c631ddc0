"""The lifecycle on the command line (docs/lifecycle.md): ``memory cite|confirm|
conflicts|pin|unpin|reactivate`` and ``stats``."""

from __future__ import annotations

import argparse
from typing import Any

from memory_es.cli.common import Subparsers, counted, open_store, print_json, say_empty

# The parser is built from light modules only (tests/test_cli_startup.py): each handler
# imports what it runs.


def register(commands: Subparsers) -> None:
    stats = commands.add_parser("stats", help="tracked lifecycle metrics from the log")
    stats.add_argument("--principal", default=None)
    stats.add_argument("--json", action="store_true")
    stats.set_defaults(handler=_stats)


def register_memory_actions(actions: Any) -> None:
    """Actions of ``memory`` (memory_cmds.py registers the group)."""
    cite = actions.add_parser("cite", help="usage feedback from a run's final message")
    cite.add_argument("--session", required=True, metavar="ID")
    cite.add_argument("--run", required=True, metavar="RUN", help="the run id (once per run)")
    cite.add_argument("--json", action="store_true")
    cite.add_argument("text", metavar="TEXT", help="the run's final message")
    cite.set_defaults(handler=_cite)

    confirm = actions.add_parser("confirm", help="settle a conflict: this belief holds")
    confirm.add_argument("belief_id", metavar="BELIEF_ID", help="full id or 8-hex short id")
    confirm.add_argument("--principal", default=None, help="whose belief (needed for a short id)")
    confirm.set_defaults(handler=_confirm)

    conflicts = actions.add_parser("conflicts", help="conflicts awaiting confirmation")
    conflicts.add_argument("--principal", required=True)
    conflicts.add_argument("--json", action="store_true")
    conflicts.set_defaults(handler=_conflicts)

    for name, help_text in (
        ("pin", "protect a belief from every automatic action"),
        ("unpin", "lift a pin"),
        ("reactivate", "undo a deactivation: the same belief, a new lifecycle interval"),
    ):
        action = actions.add_parser(name, help=help_text)
        action.add_argument("belief_id", metavar="BELIEF_ID", help="full id or 8-hex short id")
        action.add_argument(
            "--principal", default=None, help="whose belief (needed for a short id)"
        )
        action.set_defaults(handler=_belief_action, belief_action=name)


def _cite(args: argparse.Namespace) -> int:
    with open_store(args, check_formation=False) as memory:
        receipt = memory.record_usage(args.session, args.run, args.text)
    if args.json:
        print_json(receipt.as_dict())
        return 0
    if not receipt.recorded:
        print(f"run {receipt.run_id}: usage already recorded; nothing changed")
        return 0
    print(
        f"run {receipt.run_id}: cited {len(receipt.cited)}, uncited {len(receipt.uncited)},"
        f" ambiguous {len(receipt.ambiguous)} (over {counted(len(receipt.traces), 'trace')})"
    )
    return 0


def _confirm(args: argparse.Namespace) -> int:
    from memory_es.retrieval.render import render_line

    with open_store(args) as memory:
        record = memory.confirm(args.belief_id, principal=args.principal)
    print(f"{render_line(record.belief_id, record.statement)}  (confirmed, {record.status})")
    return 0


def _conflicts(args: argparse.Namespace) -> int:
    from memory_es.retrieval.render import render_line

    with open_store(args) as memory:
        pending = memory.conflicts(args.principal)
    if args.json:
        print_json([p.as_dict() for p in pending])
        return 0
    for p in pending:
        b = p.belief
        print(render_line(b.belief_id, b.statement, tuple(x.belief_id for x in p.partners)))
    if not pending:
        say_empty("no conflict awaits confirmation")
    return 0


def _belief_action(args: argparse.Namespace) -> int:
    from memory_es.retrieval.render import render_line

    with open_store(args) as memory:
        action = getattr(memory, args.belief_action)
        record = action(args.belief_id, principal=args.principal)
    state = "pinned" if record.pinned else "unpinned"
    print(f"{render_line(record.belief_id, record.statement)}  ({record.status}, {state})")
    return 0


def _stats(args: argparse.Namespace) -> int:
    from memory_es.lifecycle.stats import KEYS

    with open_store(args) as memory:
        stats = memory.stats(args.principal)
    if args.json:
        print_json(stats)
        return 0
    for key in KEYS:
        print(f"{key}: {stats[key]}")
    return 0
