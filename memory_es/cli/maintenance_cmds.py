"""``maintenance run [--dry-run]``: operator maintenance, only ever when asked."""

from __future__ import annotations

import argparse

from memory_es.cli.common import Subparsers, open_store, print_json


def register(commands: Subparsers) -> None:
    maintenance = commands.add_parser("maintenance", help="operator maintenance sweeps")
    actions = maintenance.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True
    run = actions.add_parser(
        "run", help="idle sessions, the decay sweep, L1 deactivation and trace expiry"
    )
    run.add_argument("--dry-run", action="store_true", help="report, change nothing")
    run.add_argument("--json", action="store_true")
    run.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    with open_store(args) as memory:
        report = memory.run_maintenance(dry_run=args.dry_run)
    if args.json:
        print_json(report.as_dict())
        return 0
    verb = "would close" if report.dry_run else "closed"
    idle = report.idle
    print(f"idle sessions (no turn since {idle.boundary}): {verb} {len(idle.closed)}")
    for closed in idle.closed:
        line = f"  {closed.session_id} {closed.principal} project={closed.project}"
        if closed.result is not None:
            c = closed.result.counts
            line += f" committed={c.committed} superseded={c.superseded} conflicted={c.conflicted}"
        print(line)
    decay = report.decay
    if not decay.enabled:
        print("decay sweep: off (formation.scheduled_enabled)")
    else:
        verb = "would decay" if report.dry_run else "decayed"
        retire = "would retire" if report.dry_run else "retired"
        print(
            f"decay sweep at {decay.at}: eligible {decay.eligible},"
            f" {verb} {len(decay.decayed)}, {retire} {len(decay.retired)}"
        )
    l1 = report.l1
    verb = "would deactivate" if l1.dry_run else "deactivated"
    count = len(l1.candidates) if l1.dry_run else len(l1.deactivated)
    state = "" if l1.enabled else " (off: lifecycle.l1.enabled; a dry run)"
    print(f"L1 {l1.as_dict()['reason']}{state}: {verb} {count}")
    verb = "would expire" if report.dry_run else "expired"
    print(f"recall traces past their operator retention: {verb} {report.traces_expired}")
    if report.alignment is not None:
        checked = sum(a.checked for a in report.alignment)
        opened = sum(len(a.opened) for a in report.alignment)
        state = " (a dry run: nothing aligned)" if report.dry_run else ""
        print(f"near-duplicate alignment{state}: checked {checked}, proposals opened {opened}")
    return 0
