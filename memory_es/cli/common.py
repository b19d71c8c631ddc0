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
    from memory_es.ports import Clock


Handler = Callable[[argparse.Namespace], int]
Subparsers = Any  # argparse's _SubParsersAction is private


def fail(message: str, code: int) -> NoReturn:
    print(f"memory-es: error: {message}", file=sys.stderr)
    raise SystemExit(code)


def store_url(args: argparse.Namespace) -> str:
    return str(args.store or os.environ.get("MEMORY_ES_STORE") or DEFAULT_STORE)


def clock(args: argparse.Namespace) -> Clock:
    from memory_es.ports import FixedClock, SystemClock, parse_iso

    if args.now is None:
        return SystemClock()
    try:
        return FixedClock(parse_iso(args.now))
    except ValueError:
        raise UsageError(
            f"--now needs an ISO-8601 instant with a timezone, not {args.now!r}"
        ) from None


def open_store(
    args: argparse.Namespace,
    *,
    on_stale: Literal["refuse", "rebuild", "ignore"] = "refuse",
    in_process: bool = False,
) -> memory_es.Memory:
    """The store the command works on; ``in_process``: a long-running command (the MCP
    server) may serve ``memory://``, which lives as long as its process."""
    url = store_url(args)
    if not in_process and not parse_store_url(url).persistent:
        raise UsageError(
            "memory:// lives in one process, so a command cannot persist to it;"
            " use sqlite:///PATH or postgresql://..."
        )
    profile = getattr(args, "profile", None) or os.environ.get("MEMORY_ES_PROFILE") or None
    return memory_es.open(url, clock=clock(args), on_stale=on_stale, profile=profile)


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


def print_json(value: Any) -> None:
    import orjson

    sys.stdout.write(orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode() + "\n")
