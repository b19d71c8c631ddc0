"""Write tests/data/store_38fedeb.sqlite and its expected recall (run with the old code).

The fixture is a store written by commit 38fedeb (the head before wave 2); later code must
open, replay, rebuild and recall from it identically (tests/test_old_stores.py). Run it as

    git worktree add /tmp/old-head 38fedeb
    PYTHONPATH=/tmp/old-head .venv/bin/python tests/data/make_store_38fedeb.py

It refuses to run with any other code, so the fixture is never re-recorded by accident.
"""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import memory_es

HERE = Path(__file__).resolve().parent
STORE = HERE / "store_38fedeb.sqlite"
EXPECTED = HERE / "store_38fedeb.json"

QUERIES = [
    ("alice", "where do I live"),
    ("alice", "what do I drink"),
    ("alice", "where do I work"),
    ("alice", "my wife"),
    ("bob", "where do I live"),
    ("bob", "what is my favourite language"),
    ("bob", "tea"),
]


def main() -> None:
    root = Path(memory_es.__file__).resolve().parents[1]
    head = subprocess.run(
        ["git", "-C", str(root), "rev-parse", "--short=7", "HEAD"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    if head != "38fedeb":
        sys.exit(f"this script records the 38fedeb store; memory_es here is {head} ({root})")
    STORE.unlink(missing_ok=True)
    clock = memory_es.FixedClock(datetime(2026, 3, 2, 9, 0, tzinfo=UTC))
    ids = memory_es.SequentialIds()
    with memory_es.open(f"sqlite:///{STORE}", clock=clock, ids=ids) as memory:
        s = memory.open_session("alice")
        memory.say(s, "Hi! I live in Seattle. I work at Acme Labs as a data engineer.")
        clock.advance(60)
        memory.say(s, "My wife is Morgan. I drink coffee every morning.")
        memory.close_session(s)

        clock.advance(3600)
        s = memory.open_session("bob", project="work")
        memory.say(s, "I live in Berlin. My favourite language is Rust.")
        memory.close_session(s)

        clock.advance(40 * 86400)
        s = memory.open_session("alice")
        memory.say(s, "Big news! I live in Portland now.")
        memory.say(s, "I drink tea now, not coffee.")
        memory.close_session(s)

        memory.remember("bob", "I prefer tea over coffee.")
        clock.advance(600)
        work = [b for b in memory.list_beliefs("alice") if "Acme" in b.statement]
        memory.reject(work[0].belief_id)

        s = memory.open_session("bob")
        memory.say(s, "I live in Munich now.")
        memory.close_session(s)

        expected = {
            "written_by": head,
            "now": clock.now().isoformat(),
            "recall": [
                {"principal": p, "query": q, "lines": memory.recall(p, q).lines()}
                for p, q in QUERIES
            ],
            "beliefs": {
                p: sorted([b.belief_id, b.statement, b.status] for b in memory.list_beliefs(p))
                for p in ("alice", "bob")
            },
        }
    EXPECTED.write_text(json.dumps(expected, indent=1) + "\n")
    print(f"{STORE.name}: {STORE.stat().st_size} bytes; {EXPECTED.name} written")


if __name__ == "__main__":
    main()
