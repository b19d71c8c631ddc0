"""The ``memory-es`` command: a contract that docs, tests and users call.

Exit status: 0 success, 1 a failed check, 2 a usage error or bad input — with one clear
line on stderr.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import NoReturn

from memory_es.cli import (
    bench_cmds,
    demo,
    ingest_cmds,
    memory_cmds,
    projection_cmds,
    recall_cmds,
    session_cmds,
)
from memory_es.cli.common import Handler, fail
from memory_es.errors import MemoryEsError
from memory_es.stores import DEFAULT_STORE

COMMAND_GROUPS = (
    session_cmds,
    ingest_cmds,
    recall_cmds,
    memory_cmds,
    projection_cmds,
    demo,
    bench_cmds,
)


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr and exit status 2."""

    def error(self, message: str) -> NoReturn:
        fail(f"{message} (see `{self.prog} --help`)", 2)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="memory-es",
        description="Event-sourced, governed long-term memory for LLM agents.",
    )
    parser.add_argument(
        "--store",
        default=None,
        help=f"store URL (env MEMORY_ES_STORE; default {DEFAULT_STORE})",
    )
    parser.add_argument(
        "--now",
        default=None,
        metavar="ISO8601",
        help="a fixed clock for this invocation (replays, demos, tests)",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True
    for group in COMMAND_GROUPS:
        group.register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler: Handler = args.handler
    try:
        return handler(args)
    except MemoryEsError as error:
        fail(str(error), error.exit_code)
    except KeyboardInterrupt:
        fail("interrupted", 130)
