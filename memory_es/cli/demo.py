"""``demo``: a multi-session conversation through formation, supersession, recall and a
context pack whose frozen snapshot is corrected by what happened since."""

from __future__ import annotations

import argparse

from memory_es.cli.common import Subparsers, open_store

SESSIONS: tuple[tuple[int, tuple[str, ...]], ...] = (
    (
        0,
        (
            "Hi! Quick context before we start. I live in Seattle.",
            "I work at Acme Labs as a data engineer. My wife is Morgan.",
            "For the deploy script the token is api_key=sk-demo-123, don't store it.",
        ),
    ),
    (40 * 86400, ("Big news! I live in Portland now. The move finished last weekend.",)),
)
QUESTIONS = ("Where do I live now?", "Who is my wife?", "Which company do I work for?")


def register(commands: Subparsers) -> None:
    demo = commands.add_parser(
        "demo", help="a multi-session walk-through: formation, supersession, recall"
    )
    demo.add_argument("--principal", default=None, help="default: a fresh demo principal")
    demo.set_defaults(handler=_demo)


def _demo(args: argparse.Namespace) -> int:
    import uuid
    from datetime import UTC, datetime

    from memory_es.ports import FixedClock
    from memory_es.retrieval.render import render_line

    principal = args.principal or f"demo-{uuid.uuid4().hex[:8]}"
    clock = FixedClock(datetime(2026, 3, 2, 9, 0, tzinfo=UTC))
    with open_store(args, create=True) as memory:
        memory.clock = clock
        print(f"store: {memory.spec.display}   principal: {principal}")
        long_running: str | None = None
        for number, (advance, turns) in enumerate(SESSIONS, start=1):
            clock.advance(advance)
            if number == 2:
                # A chat that stays open across the move: its snapshot is frozen now.
                long_running = memory.open_session(principal)
                print(f"\nsession {long_running[:8]} opened and left open: its snapshot is frozen")
            session_id = memory.open_session(principal)
            print(f"\nsession {number} opened {clock.now():%Y-%m-%d} ({session_id[:8]})")
            for text in turns:
                receipt = memory.say(session_id, text)
                stored = memory.session_turns(session_id)[-1].text
                shown = f"  user: {text}"
                if receipt.redactions:
                    shown += f"\n        stored as: {stored}"
                print(shown)
            result = memory.close_session(session_id)
            c = result.counts
            print(
                f"  closed: {c.committed} formed, {c.superseded} superseded,"
                f" {c.reinforced} reinforced, {c.redacted} secret(s) redacted"
            )
            for belief_id in result.formed:
                record = memory.index.get(belief_id)
                if record is not None:
                    print(f"    + {render_line(belief_id, record.statement)}")
            for belief_id in result.superseded:
                record = memory.index.get(belief_id)
                if record is not None:
                    print(f"    - {render_line(belief_id, record.statement)} (superseded)")
        print("\nrecall:")
        for question in QUESTIONS:
            lines = memory.recall(principal, question, limit=3).lines()
            print(f"  {question}")
            for line in lines or ["(nothing recalled)"]:
                print(f"    {line}")
        if long_running is not None:
            pack = memory.context(long_running, "Any good dentists near me?")
            print(f"\ncontext pack for the open session {long_running[:8]}:")
            for message in pack.messages:
                print(f"  --- {message.kind} ({message.trust}) ---")
                for line in message.content.splitlines():
                    print(f"  {line}")
        status = memory.projection_status()
        print(
            f"\nlog head {status.log_head}, read model at {status.tracked_position};"
            f" head position of {principal}: {memory.head_position(principal)}"
        )
    return 0
