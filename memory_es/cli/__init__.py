"""The ``memory-es`` command: a contract that docs, tests and users call.

Exit status: 0 success, 1 a failed check, 2 a usage error or bad input — with one clear
line on stderr.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from memory_es.cli import (
    bench_cmds,
    context_cmds,
    demo,
    eval_cmds,
    eval_formation_cmds,
    ingest_cmds,
    lifecycle_cmds,
    maintenance_cmds,
    mcp_cmds,
    memory_cmds,
    projection_cmds,
    recall_cmds,
    session_cmds,
)
from memory_es.cli.common import Handler, fail, raw_bytes, utf8
from memory_es.errors import MemoryEsError
from memory_es.stores import DEFAULT_STORE

# eval_formation_cmds joins the ``eval`` group eval_cmds creates: keep it after it.
COMMAND_GROUPS = (
    session_cmds,
    ingest_cmds,
    recall_cmds,
    context_cmds,
    memory_cmds,
    maintenance_cmds,
    lifecycle_cmds,
    projection_cmds,
    eval_cmds,
    demo,
    bench_cmds,
    eval_formation_cmds,
    mcp_cmds,
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
    parser.add_argument(
        "--profile",
        default=None,
        metavar="PATH",
        help="memory profile overlay, YAML (env MEMORY_ES_PROFILE; default: the shipped one)",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True
    for group in COMMAND_GROUPS:
        group.register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    for number, argument in enumerate(arguments, start=1):
        if not utf8(argument):
            # Text that is not UTF-8 cannot be recorded, printed or stored faithfully.
            fail(f"argument {number} is not valid UTF-8: {raw_bytes(argument)!r}", 2)
    parser = build_parser()
    args = parser.parse_args(arguments)
    handler: Handler = args.handler
    try:
        return handler(args)
    except MemoryEsError as error:
        fail(str(error), error.exit_code)
    except KeyboardInterrupt:
        fail("interrupted", 130)
    except BrokenPipeError:
        # The reader went away (`| head`): stop quietly, as Unix tools do on SIGPIPE.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        raise SystemExit(141) from None
    except OSError as error:
        # What the adapters did not translate (writing a report file, a full disk
        # elsewhere) is still an operational failure: one line, not a traceback.
        fail(str(error).strip().splitlines()[0] if str(error).strip() else repr(error), 2)
