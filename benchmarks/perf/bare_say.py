"""The bare eventsourcing reference for ``cli.say_cpu_ratio`` (docs/performance.md).

What ``memory-es session say`` does, with nothing of memory_es: open an eventsourcing
``Application`` on a SQLite file, load a small aggregate, append one event, save.
``python -m memory_es.benchmarks.perf.bare_say PATH create`` prints a new aggregate's id;
``python -m memory_es.benchmarks.perf.bare_say PATH say ID TEXT`` appends one turn to it.
Run as its own process, so its CPU time is the same kind of figure as the CLI's.
"""

from __future__ import annotations

import sys
from uuid import UUID

from eventsourcing.application import Application
from eventsourcing.domain import Aggregate, event


class Dialogue(Aggregate):
    @event("Opened")
    def __init__(self, principal: str) -> None:
        self.principal = principal
        self.turns = 0

    @event("TurnRecorded")
    def record_turn(self, role: str, text: str) -> None:
        self.turns += 1


def main(argv: list[str]) -> int:
    path, action = argv[0], argv[1]
    app = Application[UUID](
        env={"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": path}
    )
    if action == "create":
        dialogue = Dialogue("alice")
        app.save(dialogue)
        print(dialogue.id)
        return 0
    loaded: Dialogue = app.repository.get(UUID(argv[2]))
    loaded.record_turn("user", argv[3])
    app.save(loaded)
    print(f"turn {loaded.turns} recorded")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
