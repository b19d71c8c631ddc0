"""``keys export|import``: the key store's keys, moved explicitly (memory_es/keys.py)."""

from __future__ import annotations

import argparse
from pathlib import Path

from memory_es.cli.common import Subparsers, open_store, print_json


def register(commands: Subparsers) -> None:
    keys = commands.add_parser(
        "keys", help="move the key store's keys (the only way keys leave a store)"
    )
    actions = keys.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True
    export = actions.add_parser(
        "export",
        help="write every key of this store to FILE: whoever holds it reads every sealed"
        " text not forgotten (keep it like a password)",
    )
    export.add_argument("file", metavar="FILE", type=Path)
    export.add_argument("--json", action="store_true")
    export.set_defaults(handler=_keys_export)
    load = actions.add_parser("import", help="add the keys another store exported to this one")
    load.add_argument("file", metavar="FILE", type=Path)
    load.add_argument("--json", action="store_true")
    load.set_defaults(handler=_keys_import)


def _keys_export(args: argparse.Namespace) -> int:
    with open_store(args, on_stale="ignore") as memory:
        count = memory.export_keys(args.file)
    if args.json:
        print_json({"keys": count, "file": str(args.file)})
    else:
        print(f"exported {count} keys to {args.file} (secret: it opens this store's sealed text)")
    return 0


def _keys_import(args: argparse.Namespace) -> int:
    # Keys go in before the log they open (``log import``): the store may be new.
    with open_store(args, on_stale="ignore", create=True) as memory:
        count = memory.import_keys(args.file)
    if args.json:
        print_json({"keys": count, "file": str(args.file)})
    else:
        print(f"imported {count} keys from {args.file}")
    return 0
