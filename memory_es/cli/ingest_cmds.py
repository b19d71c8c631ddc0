"""``ingest FILE.jsonl``: bulk turns, one session per distinct session key."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from memory_es.cli.common import Subparsers, counted, open_store, print_json
from memory_es.errors import UsageError

if TYPE_CHECKING:
    from memory_es.ingest import IngestReport


def register(commands: Subparsers) -> None:
    ingest = commands.add_parser(
        "ingest",
        help="bulk turns from JSON Lines {principal, session, project, at, role, text}",
        description=(
            "Validate every line first (a bad line is named and nothing is written), then"
            " open one session per distinct session key, record its turns at their `at`"
            " instants and close it (running formation) after its last line. The `at`"
            " fields are the clock: --now does not apply. Running a file again skips"
            " the sessions already ingested and completes one an interrupted run cut off."
        ),
    )
    ingest.add_argument("file", metavar="FILE.jsonl", help="the turns; - reads standard input")
    ingest.add_argument("--json", action="store_true", help="print the report as JSON")
    ingest.add_argument(
        "--batch-events",
        type=int,
        default=None,
        metavar="N",
        help="events saved per transaction (default 2000)",
    )
    ingest.set_defaults(handler=_ingest)


def _ingest(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from memory_es import ingest

    if args.batch_events is not None and args.batch_events < 1:
        raise UsageError("--batch-events must be at least 1")
    # Validate before the store is even opened: a bad file changes nothing anywhere.
    turns = ingest.validate(ingest.read_lines(args.file))
    with (
        open_store(args, create=True) as memory,
        tqdm(total=len(turns), unit="turn", file=sys.stderr, disable=None, leave=False) as bar,
    ):
        report = ingest.ingest(
            memory.services,
            turns,
            batch_events=args.batch_events or ingest.DEFAULT_BATCH_EVENTS,
            progress=bar.update,
        )
    if args.json:
        print_json(report.as_dict())
    else:
        counts = report.counts
        print(
            f"ingested {counted(report.sessions, 'session')}, {counted(report.turns, 'turn')}"
            f" in {counted(report.transactions, 'transaction')};"
            f" formed {counted(counts.get('committed', 0), 'belief')}"
            f" (reinforced {counts.get('reinforced', 0)},"
            f" superseded {counts.get('superseded', 0)},"
            f" conflicted {counts.get('conflicted', 0)})" + _already(report)
        )
    if memory.profile.lifecycle.alignment.enabled:
        # Bulk ingest skips the per-close check (memory_es/review/sweep.py).
        print("near-duplicate alignment deferred to `memory-es maintenance run`", file=sys.stderr)
    return 0


def _already(report: IngestReport) -> str:
    """What an earlier run had written: skipped, or completed (nothing when none)."""
    if not (report.skipped_sessions or report.resumed_sessions):
        return ""
    return (
        f"; already ingested: {counted(report.skipped_sessions, 'session')} skipped,"
        f" {report.resumed_sessions} resumed ({counted(report.skipped_turns, 'turn')} skipped)"
    )
