"""What every command shares: opening the store, the clock, output."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Literal, NoReturn

import memory_es  # light: its names are imported on first use
from memory_es.errors import UsageError
from memory_es.stores import DEFAULT_STORE, parse_store_url

if TYPE_CHECKING:
    from datetime import datetime

    from memory_es.ports import Clock


Handler = Callable[[argparse.Namespace], int]
Subparsers = Any  # argparse's _SubParsersAction is private


def fail(message: str, code: int) -> NoReturn:
    print(f"memory-es: error: {message}", file=sys.stderr)
    raise SystemExit(code)


def store_url(args: argparse.Namespace) -> str:
    """``--store``, else MEMORY_ES_STORE, else the default; an empty one given is refused
    (it must not quietly become the default store)."""
    if args.store is not None:
        url, given = str(args.store), "--store"
    else:
        url, given = os.environ.get("MEMORY_ES_STORE", DEFAULT_STORE), "MEMORY_ES_STORE"
    if not url.strip():
        raise UsageError(f"{given} is empty: give a store URL (default {DEFAULT_STORE})")
    if not utf8(url):
        raise UsageError(f"{given} is not valid UTF-8: {raw_bytes(url)!r}")
    return url


def utf8(text: str) -> bool:
    """Whether ``text`` (an argument, an environment value) was valid UTF-8: Python hands
    undecodable bytes over as lone surrogates (surrogateescape)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def raw_bytes(text: str) -> bytes:
    """The bytes the operating system gave, for a message about them."""
    return text.encode("utf-8", "surrogateescape")


def instant_option(text: str) -> datetime:
    """argparse's ``type`` for an instant option (``--as-of``): a refusal names the flag."""
    from memory_es.ports import parse_iso

    try:
        return parse_iso(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"needs an ISO-8601 instant with a timezone, not {text!r}"
        ) from None


def position_option(text: str) -> int:
    """argparse's ``type`` for a log position option (``--as-of-position``, ``--until``):
    an integer from 0 (past the log's head is the library's refusal, the same for all)."""
    if not (text.isascii() and text.isdigit()):
        raise argparse.ArgumentTypeError(f"a log position is an integer from 0, not {text!r}")
    return int(text)


def clock(args: argparse.Namespace) -> Clock:
    """The system clock, or ``--now``: an instant from 1970 through 2200 (ports.py)."""
    from memory_es.ports import FixedClock, SystemClock, check_instant, parse_iso

    if args.now is None:
        return SystemClock()
    try:
        at = parse_iso(args.now)
    except ValueError:
        raise UsageError(
            f"--now needs an ISO-8601 instant with a timezone, 1970 through 2200, not {args.now!r}"
        ) from None
    try:
        return FixedClock(check_instant(at))
    except ValueError:
        raise UsageError(f"--now {args.now} is outside 1970 through 2200 (UTC)") from None


def open_store(
    args: argparse.Namespace,
    *,
    on_stale: Literal["refuse", "rebuild", "ignore"] = "refuse",
    in_process: bool = False,
    check_formation: bool = True,
    create: bool = False,
) -> memory_es.Memory:
    """The store the command works on; ``in_process``: a long-running command (the MCP
    server) may serve ``memory://``, which lives as long as its process.

    ``create``: only a command that records something new (a session, a remembered
    statement, ingested or imported turns) creates a store; every other command refuses
    a place that holds none (one line, exit 2) instead of leaving an empty store there.

    ``check_formation``: when sessions were formed under another formation policy, say
    so in one line on stderr with the command that fixes it (the hooks an agent calls
    on every turn — session, recall, context, cite — skip the check's log scan)."""
    url = store_url(args)
    if not in_process and not parse_store_url(url).persistent:
        raise UsageError(
            "memory:// lives in one process, so a command cannot persist to it;"
            " use sqlite:///PATH or postgresql://..."
        )
    profile = getattr(args, "profile", None) or os.environ.get("MEMORY_ES_PROFILE") or None
    memory = memory_es.open(
        url,
        clock=clock(args),
        on_stale=on_stale,
        profile=profile,
        check_formation=False,
        create=create,
        sources=getattr(args, "sources", None) or None,
    )
    if check_formation:
        try:
            status = memory.formation_status()
        except BaseException:
            memory.close()
            raise
        if status.pending:
            print(f"memory-es: warning: {status.message()}", file=sys.stderr)
    return memory


@contextmanager
def position_bar(total: int, unit: str = "ev") -> Iterator[Callable[[int, int], None]]:
    """A progress bar on stderr (none when it is not a terminal) for long work over the
    log; yields ``progress(position, total)``, the runner's callback shape."""
    from tqdm import tqdm

    with tqdm(total=total, unit=unit, file=sys.stderr, disable=None, leave=False) as bar:

        def progress(position: int, of: int) -> None:
            bar.total = of
            bar.update(position - bar.n)

        yield progress


def say_empty(message: str) -> None:
    """An empty answer, said in one line on stderr (stdout stays empty for a script; the
    exit status is 0: nothing went wrong)."""
    print(f"memory-es: {message}", file=sys.stderr)


def counted(n: int, noun: str) -> str:
    """``1 session``, ``2 sessions``: a count with its noun agreeing (regular plurals)."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def print_json(value: Any) -> None:
    import orjson

    sys.stdout.write(orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode() + "\n")
