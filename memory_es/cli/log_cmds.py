"""``log export|import``: move a store's whole log to another store (memory_es/logio.py)."""

from __future__ import annotations

import argparse
from pathlib import Path

from memory_es.cli.common import (
    Subparsers,
    counted,
    open_store,
    position_bar,
    position_option,
    print_json,
)


def register(commands: Subparsers) -> None:
    log = commands.add_parser("log", help="move a store's event log between backends")
    actions = log.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True
    export = actions.add_parser("export", help="write the whole log, in order, as JSON Lines")
    export.add_argument("file", metavar="FILE.jsonl", type=Path)
    export.add_argument(
        "--until", type=position_option, default=None, metavar="N", help="only up to position N"
    )
    export.add_argument(
        "--decrypted",
        action="store_true",
        help="write sealed text opened with this store's keys (an operator's plaintext"
        " copy; a forgotten text stays its placeholder)",
    )
    export.add_argument("--json", action="store_true")
    export.set_defaults(handler=_export)
    load = actions.add_parser(
        "import", help="carry an exported log into an empty store and rebuild its read model"
    )
    load.add_argument("file", metavar="FILE.jsonl", type=Path)
    load.add_argument("--json", action="store_true")
    load.set_defaults(handler=_import)
    compact = actions.add_parser(
        "compact",
        help="offline: write this store's log into an empty sealed store TARGET (a store"
        " written before sealing comes out encrypted; forgotten text stays forgotten)",
    )
    compact.add_argument("target", metavar="TARGET_URL")
    compact.add_argument("--json", action="store_true")
    compact.set_defaults(handler=_compact)


def _export(args: argparse.Namespace) -> int:
    with open_store(args, on_stale="ignore") as memory, position_bar(0) as progress:
        done = memory.export_log(
            args.file, until=args.until, progress=progress, decrypted=args.decrypted
        )
    if args.json:
        print_json(done.as_dict())
    else:
        print(
            f"exported {counted(done.events, 'event')} (positions {done.first_position}"
            f" to {done.last_position}) to {args.file}"
        )
    return 0


def _import(args: argparse.Namespace) -> int:
    with (
        open_store(args, on_stale="ignore", create=True) as memory,
        position_bar(0) as progress,
        position_bar(0) as rebuild_progress,
    ):
        done = memory.import_log(args.file, progress=progress, rebuild_progress=rebuild_progress)
        head = memory.projection_status().tracked_position
    if args.json:
        print_json({**done.as_dict(), "tracked_position": head})
    else:
        print(
            f"imported {counted(done.events, 'event')} from {args.file};"
            f" read model rebuilt to {head}"
        )
    return 0


def _compact(args: argparse.Namespace) -> int:
    import memory_es

    with (
        open_store(args, on_stale="ignore") as memory,
        memory_es.open(args.target, on_stale="ignore", check_formation=False) as target,
        position_bar(0) as progress,
    ):
        from memory_es.logio import compact_log

        done = compact_log(memory, target, progress=progress)
    if args.json:
        print_json({**done.as_dict(), "target": args.target, "verified": True})
    else:
        print(f"compacted {done.events} events into {args.target}; read models equal")
    return 0
