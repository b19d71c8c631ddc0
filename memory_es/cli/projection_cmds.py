"""``projections status|rebuild``."""

from __future__ import annotations

import argparse
import dataclasses
import sys
from typing import TYPE_CHECKING

from memory_es.cli.common import Subparsers, open_store, print_json

if TYPE_CHECKING:
    from memory_es.services.ledger import FormationStatus


def register(commands: Subparsers) -> None:
    projections = commands.add_parser("projections", help="read models that follow the log")
    actions = projections.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True
    status = actions.add_parser("status", help="tracked position, log head, version")
    status.add_argument("--json", action="store_true")
    status.set_defaults(handler=_status)
    rebuild = actions.add_parser("rebuild", help="replay the log from position 0 and swap in")
    rebuild.set_defaults(handler=_rebuild)


def _status(args: argparse.Namespace) -> int:
    with open_store(args, on_stale="ignore", check_formation=False) as memory:
        status = memory.projection_status()
        quarantined = memory.index.quarantined() if args.json else []
        formation = memory.formation_status()
    if args.json:
        print_json(
            {
                "name": status.name,
                "tracked_position": status.tracked_position,
                "log_head": status.log_head,
                "lag": status.lag,
                "version": status.version,
                "expected_version": status.expected_version,
                "stale": status.stale,
                "quarantined_events": status.quarantined,
                "quarantined": [dataclasses.asdict(q) for q in quarantined],
                "formation": formation.as_dict(),
            }
        )
    else:
        state = "stale: run `memory-es projections rebuild`" if status.stale else "current"
        print(
            f"{status.name}: position {status.tracked_position} of {status.log_head}"
            f" (lag {status.lag}), version {status.version} — {state}"
        )
        if status.quarantined:
            print(
                f"{status.quarantined} events quarantined: the read model could not apply"
                " them and skipped them (`projections status --json` lists them)"
            )
        print(_formation_line(formation))
    return 0


def _formation_line(formation: FormationStatus) -> str:
    """Whether a re-derivation is pending for a newer formation policy (issue 16)."""
    if not formation.pending:
        return f"formation: {formation.current} — current ({formation.sessions} sessions)"
    return f"formation: re-derivation pending — {formation.message()}"


def _rebuild(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    with open_store(args, on_stale="ignore") as memory:
        head = memory.projection_status().log_head
        with tqdm(total=head, unit="ev", file=sys.stderr, disable=None, leave=False) as bar:

            def progress(position: int, log_head: int) -> None:
                bar.total = log_head
                bar.update(position - bar.n)

            read = memory.rebuild_projections(progress=progress)
        status = memory.projection_status()
    print(f"rebuilt {status.name}: {read} events replayed, position {status.tracked_position}")
    return 0
