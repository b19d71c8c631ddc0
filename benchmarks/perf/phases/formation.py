"""Formation: real sessions ingested and closed, beliefs formed per second."""

from __future__ import annotations

import time
from typing import Any

from memory_es.benchmarks.perf import synthetic
from memory_es.benchmarks.perf.phases.common import _open
from memory_es.ingest import TurnLine
from memory_es.ports import FixedClock
from memory_es.services import BatchUnitOfWork, commands
from memory_es.services.handlers import handle_in


def phase_formation(store: dict[str, Any], cfg: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    sessions, turns = cfg["formation_sessions"], cfg["formation_turns"]
    lines = synthetic.ingest_lines(sessions=sessions, turns_per_session=turns, principals=20)
    with _open(store["url"]) as memory:
        head = memory.projection_status().log_head
        t0 = time.perf_counter()
        report = memory.ingest(lines)
        elapsed = time.perf_counter() - t0
        events = memory.projection_status().log_head - head
        out["formation_turns_per_s"] = report.turns / elapsed
        out["formation_beliefs_per_s"] = report.formed / elapsed
        out["formation_events_per_s"] = events / elapsed
        out["formation_sessions"] = report.sessions
        out["formation_turns"] = report.turns
        out["formation_beliefs"] = report.formed
        out["formation_transactions"] = report.transactions

        # One session per transaction (still the bulk path's unit of work).
        per_session = synthetic.ingest_lines(
            sessions=max(10, sessions // 4),
            turns_per_session=turns,
            principals=20,
            seed=5,
            principal_prefix="q",
        )
        t0 = time.perf_counter()
        report = memory.ingest(per_session, flush_each_session=True)
        elapsed = time.perf_counter() - t0
        out["formation_per_session_turns_per_s"] = report.turns / elapsed
        out["formation_per_session_beliefs_per_s"] = report.formed / elapsed

        # The interactive API: every command its own transaction and catch-up.
        api_sessions = max(5, sessions // 10)
        api_lines = synthetic.ingest_lines(
            sessions=api_sessions,
            turns_per_session=turns,
            principals=20,
            seed=9,
            principal_prefix="r",
        )
        clock = FixedClock(synthetic.START)
        memory.clock = clock
        rows = [TurnLine.model_validate_json(line) for line in api_lines]
        t0 = time.perf_counter()
        formed = 0
        for s in range(api_sessions):
            chunk = rows[s * turns : (s + 1) * turns]
            clock.set(chunk[0].at)
            session_id = memory.open_session(chunk[0].principal)
            for row in chunk:
                clock.set(row.at)
                memory.say(session_id, row.text, role=row.role)
            formed += memory.close_session(session_id).counts.committed
        elapsed = time.perf_counter() - t0
        out["formation_api_turns_per_s"] = len(rows) / elapsed
        out["formation_api_beliefs_per_s"] = formed / elapsed

        # A 600-turn session: the formation step alone, then the whole session ingested.
        long_turns = cfg["formation_long_turns"]  # 600; the tiny test scale uses fewer
        out["formation_long_turns"] = long_turns
        long_lines = synthetic.ingest_lines(
            sessions=1,
            turns_per_session=2 * long_turns,
            principals=1,
            seed=13,
            principal_prefix="long",
        )
        user_lines = [line for line in long_lines if b'"role":"user"' in line][:long_turns]
        rows = [TurnLine.model_validate_json(line) for line in user_lines]
        memory.clock = clock
        clock.set(rows[0].at)
        session_id = memory.open_session("long600")

        def says(uow: BatchUnitOfWork) -> None:  # the says, saved at once
            for row in rows:
                clock.set(row.at)
                handle_in(commands.Say(session_id, row.text), uow)

        memory.services.run_batch(says)
        t0 = time.perf_counter()
        result = memory.close_session(session_id)
        out["formation_600_turn_close_s"] = time.perf_counter() - t0
        out["formation_600_turn_beliefs"] = result.counts.committed
        relabelled = [
            line.replace(b'"long0"', b'"long600b"').replace(b"long-s0", b"long-s0b")
            for line in user_lines
        ]
        t0 = time.perf_counter()
        memory.ingest(relabelled)
        out["formation_600_turn_session_s"] = time.perf_counter() - t0
    return out
