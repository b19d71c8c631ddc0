"""``memory list|reject|remember|replay|rederive``; the lifecycle's actions: lifecycle_cmds.py."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from memory_es.cli import lifecycle_cmds
from memory_es.cli.common import Subparsers, counted, open_store, print_json, say_empty
from memory_es.domain.values import DEFAULT_TENANT
from memory_es.errors import UsageError

if TYPE_CHECKING:
    from memory_es.app import Memory
    from memory_es.projections.records import BeliefRecord

if TYPE_CHECKING:
    from memory_es.services.formation_results import RederiveReport


def register(commands: Subparsers) -> None:
    memory = commands.add_parser("memory", help="inspect and govern a principal's beliefs")
    actions = memory.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True

    listing = actions.add_parser("list", help="every belief of a principal, any status")
    listing.add_argument("--principal", required=True)
    listing.add_argument("--json", action="store_true")
    listing.set_defaults(handler=_list)

    # Formation's governance: durable rejection, the remember tool, governed replay.
    reject = actions.add_parser("reject", help="durable user rejection: never formed again")
    reject.add_argument("belief_id", metavar="BELIEF_ID", help="full id or 8-hex short id")
    reject.add_argument("--principal", default=None, help="whose belief (needed for a short id)")
    reject.set_defaults(handler=_reject)

    remember = actions.add_parser("remember", help="the remember tool: forms at AFFIRMED")
    remember.add_argument("--principal", required=True)
    remember.add_argument(
        "--from-user",
        action="store_true",
        help="a statement the user made to memory directly: forms at USER",
    )
    remember.add_argument("--project", default=None, help="project scope (default: general)")
    remember.add_argument("--json", action="store_true")
    remember.add_argument("text", metavar="TEXT")
    remember.set_defaults(handler=_remember)

    replay = actions.add_parser(
        "replay", help="re-run formation over a closed session (opt-in: --confirm)"
    )
    replay.add_argument("--session", required=True, metavar="ID")
    replay.add_argument("--confirm", action="store_true", help="yes, re-derive this session")
    replay.add_argument("--json", action="store_true")
    replay.set_defaults(handler=_replay)

    history = actions.add_parser(
        "history", help="a belief's events, with their store positions and source turns"
    )
    history.add_argument("belief_id", metavar="BELIEF_ID", help="full id or 8-hex short id")
    history.add_argument("--principal", default=None, help="whose belief (needed for a short id)")
    history.add_argument("--json", action="store_true")
    history.set_defaults(handler=_history)

    rederive = actions.add_parser(
        "rederive",
        help="re-derive sessions formed under another formation policy (dry run by default)",
    )
    who = rederive.add_mutually_exclusive_group(required=True)
    who.add_argument("--principal", metavar="P")
    who.add_argument("--all", action="store_true", help="every principal of the store")
    rederive.add_argument(
        "--dry-run", action="store_true", help="print the diff, write nothing (the default)"
    )
    rederive.add_argument("--confirm", action="store_true", help="apply it as events")
    rederive.add_argument("--json", action="store_true")
    rederive.set_defaults(handler=_rederive)

    forget = actions.add_parser(
        "forget",
        help="crypto-shredding: forget a turn, a session or a principal (dry run by default)",
    )
    what = forget.add_mutually_exclusive_group(required=True)
    what.add_argument("--turn", metavar="ID")
    what.add_argument("--session", metavar="ID")
    what.add_argument("--principal", metavar="P")
    forget.add_argument("--confirm", action="store_true", help="destroy the keys: irreversible")
    forget.add_argument("--reason", default="", metavar="TEXT", help="recorded with the erasure")
    forget.add_argument("--json", action="store_true")
    forget.set_defaults(handler=_forget)

    lifecycle_cmds.register_memory_actions(actions)


def _list(args: argparse.Namespace) -> int:
    from memory_es.retrieval.render import render_line

    with open_store(args) as memory:
        beliefs = memory.list_beliefs(args.principal)
    if args.json:
        print_json([b.as_dict() for b in beliefs])
        return 0
    for b in beliefs:
        print(f"{render_line(b.belief_id, b.statement, b.conflicts_with)}  ({b.status})")
    if not beliefs:
        say_empty(f"no beliefs: memory holds nothing for {args.principal}")
    return 0


def _reject(args: argparse.Namespace) -> int:
    from memory_es.retrieval.render import render_line

    with open_store(args) as memory:
        record = memory.reject(args.belief_id, principal=args.principal)
    print(f"{render_line(record.belief_id, record.statement)}  ({record.status})")
    return 0


def _remember(args: argparse.Namespace) -> int:
    from memory_es.retrieval.render import render_line

    with open_store(args, create=True) as memory:
        result = memory.remember(
            args.principal, args.text, project=args.project, from_user=args.from_user
        )
        formed = [memory.index.get(b) for b in result.formed]
    if args.json:
        print_json(result.as_dict())
        return 0
    for record in formed:
        if record is not None:
            print(render_line(record.belief_id, record.statement, record.conflicts_with))
    if not result.formed:
        print("nothing formed; " + _counts(result.counts.as_dict()))
    return 0


def _replay(args: argparse.Namespace) -> int:
    if not args.confirm:
        raise UsageError(
            "replay re-runs formation over the session's original turns under the current"
            " policy (rejected beliefs stay rejected); it is opt-in: add --confirm"
        )
    with open_store(args) as memory:
        result = memory.replay_session(args.session, confirm=True)
    if args.json:
        print_json(result.as_dict())
    else:
        print(
            f"replayed {result.session_id} under {result.policy} ({result.extractor}); "
            + _counts(result.counts.as_dict())
        )
    return 0


def _history(args: argparse.Namespace) -> int:
    import orjson

    from memory_es.history import source_turns

    with open_store(args) as memory:
        record = _resolve(memory, args.belief_id, args.principal)
        events = memory.belief_history(record.belief_id)
        turns = source_turns(memory, events)
    if args.json:
        # Each event as the MCP history resource gives it, with the turns it names.
        print_json(
            {
                "belief_id": record.belief_id,
                "statement": record.statement,
                "status": record.status,
                "events": [
                    {
                        **e.as_dict(),
                        "source_turns": [t.as_dict() for t in turns.get(e.position, [])],
                    }
                    for e in events
                ],
            }
        )
        return 0
    print(f"{record.belief_id}  {record.statement}  ({record.status})")
    for event in events:
        shown = {k: v for k, v in event.fields.items() if k not in _SHOWN_AS_TURNS and v}
        detail = " ".join(f"{k}={orjson.dumps(v).decode()}" for k, v in sorted(shown.items()))
        print(f"  position {event.position}  {event.event}  v{event.version}  {detail}".rstrip())
        for t in turns.get(event.position, []):
            turn = t.turn
            print(f"    turn {t.session_id}#{turn.seq} ({turn.role}, {turn.at}): {turn.text}")
    return 0


# Fields the history prints as the turns they name, or the index's own words.
_SHOWN_AS_TURNS = frozenset({"source_event_ids", "source_session_id", "source_seq", "context"})


def _resolve(memory: Memory, ref: str, principal: str | None) -> BeliefRecord:
    """A full belief id, or an eight-hex short id within ``principal`` (the one resolver)."""
    from memory_es.projections.records import principal_key
    from memory_es.services.handlers import find_belief

    owner = None if principal is None else principal_key(DEFAULT_TENANT, principal)
    return find_belief(memory.index, ref, owner)


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{k}={v}" for k, v in counts.items())


def _rederive(args: argparse.Namespace) -> int:
    import sys

    from tqdm import tqdm

    if args.dry_run and args.confirm:
        raise UsageError("--dry-run and --confirm contradict each other: pick one")
    with (
        open_store(args, check_formation=False) as memory,
        tqdm(unit="session", file=sys.stderr, disable=None, leave=False) as bar,
    ):

        def progress(done: int, total: int) -> None:
            bar.total = total
            bar.update(done - bar.n)

        report = memory.rederive(
            None if args.all else args.principal, confirm=args.confirm, progress=progress
        )
    if args.json:
        print_json(report.as_dict())
        return 0
    _print_rederivation(report)
    return 0


def _print_rederivation(report: RederiveReport) -> None:
    from memory_es.retrieval.render import render_line

    mode = "dry run" if report.dry_run else "applied"
    print(
        f"rederive under {report.policy} ({mode}):"
        f" {counted(report.sessions_examined, 'session')} examined,"
        f" {report.sessions_skipped} already current"
    )
    verb = (
        ("would form", "would retire", "would be superseded")
        if report.dry_run
        else (
            "formed",
            "retired",
            "superseded",
        )
    )
    for principal in report.principals:
        print(f"{principal.principal}:")
        for label, changes in zip(
            verb, (principal.formed, principal.retired, principal.superseded), strict=True
        ):
            for change in changes:
                print(f"  {label}: {render_line(change.belief_id, change.statement)}")
        stay = "would stay" if report.dry_run else "stayed"
        print(f"  {stay}: {counted(principal.unchanged, 'belief')}")
    counts = report.as_dict()
    summary = ", ".join(
        f"{k}={counts[k]}"
        for k in counts
        if isinstance(counts[k], int) and not isinstance(counts[k], bool)
    )
    tail = "; nothing written: add --confirm to apply it" if report.dry_run else ""
    print(summary + tail)


def _forget(args: argparse.Namespace) -> int:
    with open_store(args, check_formation=False) as memory:
        report = memory.forget(
            turn=args.turn,
            session=args.session,
            principal=args.principal,
            confirm=args.confirm,
            reason=args.reason,
        )
    if args.json:
        print_json(report.as_dict())
        return 0
    mode = "forgotten" if report.confirmed else "dry run, nothing written"
    print(
        f"forget {report.scope} {report.target} ({mode}): {len(report.turn_ids)} turns,"
        f" {len(report.session_ids)} whole sessions, principal {report.principal}"
    )
    retracted = "retracted" if report.confirmed else "would retract"
    for belief_id in report.retracted:
        shown = report.statements.get(belief_id)
        print(f"  {retracted} {belief_id}" + (f": {shown}" if shown else ""))
    for belief_id in report.kept:
        print(f"  kept (other evidence) {belief_id}")
    for belief_id in report.rejections_kept:
        print(f"  rejection kept {belief_id}")
    if report.confirmed:
        print(f"  {report.keys_destroyed} keys destroyed")
    else:
        print("  run again with --confirm to forget (irreversible)")
    return 0
