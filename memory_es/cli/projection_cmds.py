"""``projections status|rebuild``."""

from __future__ import annotations

import argparse
import dataclasses
from typing import TYPE_CHECKING, Any

from memory_es.cli.common import Subparsers, counted, open_store, position_bar, print_json

if TYPE_CHECKING:
    from memory_es.services.ledger import FormationStatus
    from memory_es.views import ProjectionStatus


def register(commands: Subparsers) -> None:
    projections = commands.add_parser("projections", help="read models that follow the log")
    actions = projections.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True
    status = actions.add_parser(
        "status", help="tracked position, log head, lag, versions, an unfinished rebuild"
    )
    status.add_argument("--json", action="store_true")
    status.set_defaults(handler=_status)
    rebuild = actions.add_parser(
        "rebuild",
        help="replay the log beside the serving read model and swap it in"
        " (resumes an interrupted rebuild)",
    )
    rebuild.add_argument(
        "--from-scratch",
        action="store_true",
        help="drop an interrupted rebuild's tables and start again from position 0",
    )
    rebuild.add_argument(
        "--workers",
        type=int,
        choices=(1, 2),
        default=1,
        help="2: a second process tokenizes the beliefs while the rebuild projects"
        " (the same read model; Unix)",
    )
    rebuild.set_defaults(handler=_rebuild)


def status_record(
    status: ProjectionStatus, formation: FormationStatus, quarantined: list[dict[str, Any]]
) -> dict[str, Any]:
    """What ``projections status`` reports, one field a key (``--json`` prints it)."""
    return {
        "name": status.name,
        "tracked_position": status.tracked_position,
        "log_head": status.log_head,
        "lag": status.lag,
        "version": status.version,
        "expected_version": status.expected_version,
        "stale": status.stale,
        "quarantined_events": status.quarantined,
        "quarantined": quarantined,
        "formation": formation.as_dict(),
        "rebuild": None
        if status.rebuild_position is None
        else {
            "position": status.rebuild_position,
            "version": status.rebuild_version,
            "running": status.rebuild_running,
        },
    }


def status_lines(record: dict[str, Any], formation: FormationStatus) -> list[str]:
    """The plain output: the read model's line, then one line per further fact."""
    state = "stale: run `memory-es projections rebuild`" if record["stale"] else "current"
    lines = [
        f"{record['name']}: position {record['tracked_position']} of {record['log_head']}"
        f" (lag {record['lag']}), version {record['version']} — {state}",
    ]
    if record["quarantined_events"]:
        lines.append(
            f"{counted(record['quarantined_events'], 'event')} quarantined: the read model"
            " could not apply them and skipped them (`projections status --json` lists them)"
        )
    lines.append(_formation_line(formation))
    rebuild = record["rebuild"]
    if rebuild is not None:
        where = f"position {rebuild['position']} of {record['log_head']}"
        if rebuild["running"]:
            lines.append(f"rebuild: running, at {where}")
        else:
            lines.append(
                f"rebuild: interrupted at {where} (tables rebuild_*):"
                " `memory-es projections rebuild` resumes it, --from-scratch drops it"
            )
    return lines


def _status(args: argparse.Namespace) -> int:
    with open_store(args, on_stale="ignore", check_formation=False) as memory:
        quarantined = memory.index.quarantined() if args.json else []
        formation = memory.formation_status()
        record = status_record(
            memory.projection_status(probe_rebuild=True),
            formation,
            [dataclasses.asdict(q) for q in quarantined],
        )
    if args.json:
        print_json(record)
    else:
        print("\n".join(status_lines(record, formation)))
    return 0


def _formation_line(formation: FormationStatus) -> str:
    """Whether a re-derivation is pending for a newer formation policy."""
    if not formation.pending:
        return (
            f"formation: {formation.current} — current ({counted(formation.sessions, 'session')})"
        )
    return f"formation: re-derivation pending — {formation.message()}"


def _rebuild(args: argparse.Namespace) -> int:
    with open_store(args, on_stale="ignore") as memory:
        before = memory.projection_status()
        with position_bar(before.log_head) as progress:
            read = memory.rebuild_projections(
                progress=progress, resume=not args.from_scratch, workers=args.workers
            )
        status = memory.projection_status()
    resumed = (
        f", resumed from position {before.rebuild_position}"
        if before.rebuild_position
        and not args.from_scratch
        and before.rebuild_version == before.expected_version
        else ""
    )
    print(
        f"rebuilt {status.name}: {counted(read, 'event')} replayed{resumed},"
        f" position {status.tracked_position}"
    )
    return 0
