"""One form each: statuses are the ``Status`` enum inside the code, instants
are cut to seconds by one helper (``memory_es/ports.py``), text only at SQL/JSON edges."""

from __future__ import annotations

import re
from dataclasses import fields
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from uuid import uuid4

from eventsourcing.domain import Aggregate

from memory_es.domain.principal import FORMED_FIELDS, FormedBelief, PrincipalMemory
from memory_es.domain.session import SNAPSHOT_FIELDS, FrozenSnapshot, Session
from memory_es.domain.values import Status
from memory_es.ports import instant_second, second_key
from memory_es.projections.sql import decode_record, encode_record
from tests.test_row_codec import record

ROOT = Path(__file__).resolve().parents[1]
_NAMES = "|".join(s.value for s in Status)
STATUS_LITERAL = re.compile(r"status\s*(?:==|!=|is|in)\s*\(?\s*[\"'](?:" + _NAMES + r")[\"']")


def _package_lines() -> list[tuple[str, int, str]]:
    lines = []
    for folder in ("memory_es", "projections"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for n, line in enumerate(path.read_text().splitlines(), 1):
                lines.append((str(path.relative_to(ROOT)), n, line))
    return lines


def test_an_instant_at_whole_seconds_and_its_comparable_key() -> None:
    at = datetime(2026, 3, 2, 10, 0, 1, 123456, tzinfo=timezone(timedelta(hours=1)))
    assert instant_second(at) == "2026-03-02T09:00:01Z"
    key = second_key(instant_second(at))
    assert key == "2026-03-02T09:00:01" == second_key("2026-03-02T09:00:01.999999Z")
    later = datetime(2026, 3, 2, 9, 0, 2, tzinfo=UTC)
    assert second_key(instant_second(later)) > key  # text order is instant order


def test_no_module_but_ports_cuts_instants_by_hand() -> None:
    cuts = {path for path, _, line in _package_lines() if "[:19]" in line}
    assert cuts == {"memory_es/ports.py"}


def test_statuses_are_compared_as_the_enum() -> None:
    literal = [
        f"{p}:{n}: {line.strip()}" for p, n, line in _package_lines() if STATUS_LITERAL.search(line)
    ]
    assert literal == []
    assert STATUS_LITERAL.search('if b.status == "active":')  # the check sees one


def test_a_record_holds_the_enum_and_its_row_the_text() -> None:
    row = encode_record(record(status=Status.SUPERSEDED))
    assert "superseded" in row and all(type(v) is not Status for v in row)
    assert decode_record(row).status is Status.SUPERSEDED


def test_the_session_snapshot_shape_is_declared_once() -> None:
    """The event stores exactly the value's fields (beside the library's own), and the
    session keeps the same fields as its state: one declaration, ``FrozenSnapshot``."""
    library = {f.name for f in fields(Aggregate.Event)}
    stored = [f.name for f in fields(Session.SessionSnapshotTaken) if f.name not in library]
    assert tuple(stored) == SNAPSHOT_FIELDS == tuple(f.name for f in fields(FrozenSnapshot))

    snapshot = FrozenSnapshot(
        trace_id="t",
        watermark=3,
        belief_ids=["b"],
        lines=["[m:1] User lives in Lyon."],
        prefix="p",
        prefix_digest="d",
        taken_at="2026-03-02T09:00:00Z",
        trace_expires_at="2026-04-01T09:00:00Z",
        policy="retrieval@1",
    )
    session = Session(
        id=uuid4(), tenant="t", principal="p", project="general", opened_at="2026-03-02T09:00:00Z"
    )
    session.take_session_snapshot(snapshot)
    assert session.session_snapshot == snapshot.event_fields()
    assert session.session_snapshot["lines"] is not snapshot.lines  # a copy, not shared


def test_a_formed_belief_shape_is_declared_once() -> None:
    """BeliefFormed stores exactly FormedBelief's fields beside the library's own (its
    topic and class version unchanged: stores written earlier replay)."""
    library = {f.name for f in fields(Aggregate.Event)}
    stored = [f.name for f in fields(PrincipalMemory.BeliefFormed) if f.name not in library]
    assert tuple(stored) == FORMED_FIELDS == tuple(f.name for f in fields(FormedBelief))
    assert PrincipalMemory.BeliefFormed.class_version == 2
