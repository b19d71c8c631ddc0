"""The ``memory-es`` command: a contract that docs, tests and users call.

Exit status: 0 success, 1 a failed check, 2 a usage error or bad input — with one clear
line on stderr.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from importlib import import_module
from typing import Any, NoReturn

from memory_es.cli.common import Handler, fail, raw_bytes, utf8
from memory_es.errors import MemoryEsError
from memory_es.stores import DEFAULT_STORE

# The one place that decides what a command imports: each top-level command, in the
# order `--help` lists them, and the modules (memory_es/cli/) that register it. A command
# builds only its own parser, so `session say` (an agent hook's call on every turn)
# imports none of the other commands' modules; `--help`, a usage error and an unknown
# command build them all. eval_formation_cmds joins the ``eval`` group eval_cmds
# creates: keep it after it.
COMMANDS: dict[str, tuple[str, ...]] = {
    "session": ("session_cmds",),
    "ingest": ("ingest_cmds",),
    "recall": ("recall_cmds",),
    "context": ("context_cmds",),
    "memory": ("memory_cmds",),
    "maintenance": ("maintenance_cmds",),
    "review": ("review_cmds",),
    "sources": ("sources_cmds",),
    "stats": ("lifecycle_cmds",),
    "projections": ("projection_cmds",),
    "log": ("log_cmds",),
    "keys": ("keys_cmds",),
    "eval": ("eval_cmds", "eval_formation_cmds"),
    "demo": ("demo",),
    "bench": ("bench_cmds",),
    "mcp": ("mcp_cmds",),
    "shards": ("placement_cmds",),
}


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr and exit status 2."""

    def error(self, message: str) -> NoReturn:
        fail(f"{message} (see `{self.prog} --help`)", 2)


def _add_options(parser: argparse.ArgumentParser) -> None:
    """The options every command takes, before its name."""
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
    parser.add_argument(
        "--sources",
        default=None,
        metavar="PATH",
        help="source declarations file, YAML or JSON, applied at open (env MEMORY_ES_SOURCES)",
    )


class _Version(argparse.Action):
    """``--version``: the distribution's version, read only when asked for."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(
            option_strings,
            dest=argparse.SUPPRESS,
            default=argparse.SUPPRESS,
            nargs=0,
            help="print the version of memory-es and exit",
        )

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> NoReturn:
        import memory_es

        print(f"memory-es {memory_es.__version__}")
        parser.exit()


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser for every command, or (``command``, one of :data:`COMMANDS`) for that
    command alone: the same parser as far as that command's arguments go."""
    parser = _Parser(
        prog="memory-es",
        description="Event-sourced, governed long-term memory for LLM agents.",
    )
    _add_options(parser)
    parser.add_argument("--version", action=_Version)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True
    names = [command] if command in COMMANDS else list(COMMANDS)
    for name in names:
        for module in COMMANDS[name]:
            import_module(f"memory_es.cli.{module}").register(commands)
    return parser


class _NotACommand(Exception):
    pass


class _Finder(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise _NotACommand(message)


def command_named(arguments: Sequence[str]) -> str | None:
    """The command ``arguments`` name, as the full parser reads them (the options before
    it, abbreviated or not, with their values), or None when they name none cleanly
    (``--help``, a bad option, no command): the full parser then reports it as ever."""
    finder = _Finder(prog="memory-es", add_help=False)
    _add_options(finder)
    finder.add_argument("command", nargs="?")
    finder.add_argument("rest", nargs=argparse.REMAINDER)
    try:
        found, unknown = finder.parse_known_args(list(arguments))
    except _NotACommand:
        return None
    command = found.command
    return command if not unknown and command in COMMANDS else None


def _placement_store(args: argparse.Namespace) -> bool:
    """Whether the store is a placement file (memory_es/placement.py), read cheaply:
    a single store's commands import nothing more."""
    url = args.store if args.store is not None else os.environ.get("MEMORY_ES_STORE", "")
    return str(url).strip().startswith("placement:")


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    for number, argument in enumerate(arguments, start=1):
        if not utf8(argument):
            # Text that is not UTF-8 cannot be recorded, printed or stored faithfully.
            fail(f"argument {number} is not valid UTF-8: {raw_bytes(argument)!r}", 2)
    parser = build_parser(command_named(arguments))
    args = parser.parse_args(arguments)
    handler: Handler = args.handler
    try:
        if _placement_store(args):
            # Principals on several servers: the command runs where they live.
            from memory_es.cli.placement_cmds import routed

            handler = routed(args, arguments, handler)
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
