"""Moving one principal between servers of a placement store (``shards move``).

Built on the log's file format and the key store's (memory_es/logio.py, keys.py):

1. the principal's events (its memory aggregate and every session it opened), in log
   order, are exported from the source server to a ``log export`` file, and its keys
   (owner: the principal) to a ``keys export`` file;
2. the keys go into the target's key table, then the events are appended to the
   target's log (which holds other principals: unlike ``log import`` this appends) and
   the target's read model catches up;
3. the check: the events are byte-identical on both servers, and so is the principal's
   read-model dump, once each source position is mapped to the position the target
   gave the same event (the target numbers its own log).

Only then does the placement record point at the target (memory_es/placement.py). The
source's copy is then forgotten (its keys destroyed: ``memory forget --principal``) so
that no ``--all`` command counts or re-derives it twice, unless the operator keeps it.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from uuid import UUID

from memory_es.domain.values import normalize_name
from memory_es.errors import InvalidInput, UsageError
from memory_es.projections.records import principal_key
from memory_es.store_errors import event_store_errors

if TYPE_CHECKING:
    from memory_es.app import Memory

_PAGE = 1000
SESSION_OPENED = "memory_es.domain.session:Session.Opened"
PRINCIPAL_CREATED = "memory_es.domain.principal:PrincipalMemory.Created"


@dataclass(frozen=True)
class MoveReport:
    principal: str
    source: str
    target: str
    events: int
    sessions: int
    keys: int
    beliefs: int
    verified: bool
    source_retired: bool

    def as_dict(self) -> dict[str, Any]:
        return {
            "principal": self.principal,
            "source": self.source,
            "target": self.target,
            "events": self.events,
            "sessions": self.sessions,
            "keys": self.keys,
            "beliefs": self.beliefs,
            "verified": self.verified,
            "source_retired": self.source_retired,
        }


def _clear_states(memory: Memory, topics: list[str]) -> Iterator[tuple[UUID, dict[str, Any]]]:
    """(originator, fields) of every event of the topics: names are never sealed."""
    recorder = memory.app.recorder
    decode = memory.app.mapper.transcoder.decode
    after = 0
    while True:
        page = recorder.select_notifications(
            start=after, limit=_PAGE, topics=topics, inclusive_of_start=False
        )
        if not page:
            return
        for n in page:
            yield UUID(str(n.originator_id)), decode(bytes(n.state))
        after = page[-1].id


def held_principals(memory: Memory) -> set[str]:
    """The key of every principal the store holds: those that opened a session or hold
    memory (``shards add`` records each before the hash changes)."""
    with event_store_errors():
        return {
            principal_key(str(fields["tenant"]), str(fields["principal"]))
            for _, fields in _clear_states(memory, [SESSION_OPENED, PRINCIPAL_CREATED])
        }


def principal_originators(memory: Memory, tenant: str, principal: str) -> tuple[set[UUID], int]:
    """Every aggregate of the principal (its memory and its sessions), and how many are
    sessions."""
    from memory_es.services.unit_of_work import principal_aggregate_ids

    named = (normalize_name(tenant), normalize_name(principal))
    with event_store_errors():
        ids = set(principal_aggregate_ids(memory.app, tenant, principal))
        sessions = {
            originator
            for originator, fields in _clear_states(memory, [SESSION_OPENED])
            if (fields.get("tenant"), fields.get("principal")) == named
        }
    return ids | sessions, len(sessions)


def _positions(memory: Memory, originators: set[UUID], after: int) -> list[int]:
    """The log positions past ``after`` of the originators' events, in order."""
    recorder = memory.app.recorder
    found: list[int] = []
    with event_store_errors():
        while True:
            page = recorder.select_notifications(start=after, limit=_PAGE, inclusive_of_start=False)
            if not page:
                return found
            found += [n.id for n in page if UUID(str(n.originator_id)) in originators]
            after = page[-1].id


def principal_dump(memory: Memory, key: str, moved: dict[int, int] | None = None) -> dict[str, Any]:
    """The principal's rows of the read model (``RecallIndex.dump``), each log position
    mapped through ``moved`` (source position -> target position) when given."""
    memory.catch_up()
    whole = memory.index.dump()

    def mine(row: Any) -> bool:
        if isinstance(row, dict):
            return bool(row.get("principal") == key)
        return key in tuple(row)[:2]

    out: dict[str, Any] = {table: [r for r in rows if mine(r)] for table, rows in whole.items()}
    if moved is not None:
        out["beliefs"] = [{**b, "position": moved[b["position"]]} for b in out["beliefs"]]
        out["heads"] = [(p, moved.get(n, n)) for p, n in out["heads"]]
    return out


def _events(memory: Memory, originators: set[UUID]) -> dict[UUID, list[tuple[int, str, bytes]]]:
    with event_store_errors():
        return {
            o: [
                (e.originator_version, e.topic, bytes(e.state))
                for e in memory.app.recorder.select_events(o)
            ]
            for o in sorted(originators)
        }


def _append_missing(
    source: Memory, target: Memory, originators: set[UUID], folder: Path, round_: int
) -> tuple[int, list[int]]:
    """Append to the target, in the source's log order, every event of the originators
    it lacks; the events it holds must be the same (a prefix of each aggregate, from an
    interrupted move). Returns (events appended, the source positions of all of them)."""
    from memory_es.logio import export_log, read_log

    held = _events(target, originators)
    wanted = _events(source, originators)
    for originator, events in held.items():
        if events != wanted[originator][: len(events)]:
            raise UsageError(
                f"server {target.spec.display} holds a different copy of aggregate"
                f" {originator}: forget the principal there by hand first"
            )
    log_file = folder / f"principal-{round_}.jsonl"
    export_log(source, log_file, originators=originators)
    batch, appended, positions = [], 0, []
    with event_store_errors():
        for position, event in read_log(log_file):
            positions.append(position)
            if event.originator_version <= len(held[UUID(str(event.originator_id))]):
                continue  # there already: carried by an interrupted move
            batch.append(event)
            if len(batch) == _PAGE:
                target.app.recorder.insert_events(batch)
                appended, batch = appended + len(batch), []
        if batch:
            target.app.recorder.insert_events(batch)
            appended += len(batch)
    return appended, positions


def move_principal(
    source: Memory,
    target: Memory,
    principal: str,
    *,
    tenant: str,
    source_name: str,
    target_name: str,
    work: Path | None = None,
) -> tuple[MoveReport, dict[int, int]]:
    """Steps 1-3 of the module doc; raises ``InvalidInput`` if the check fails. Returns
    the report (``source_retired`` False: the caller retires the source after the
    placement record points at the target) and the position map the check used.

    Resumable: an interrupted move is run again, and appends only what the target lacks.
    A write already in flight on the source when the move began is carried by a further
    round (the placement's ``moving`` mark refuses every new command for the principal)."""
    from memory_es.keys import read_key_file, write_key_file

    key = principal_key(tenant, principal)
    source.catch_up()
    originators, sessions = principal_originators(source, tenant, principal)
    with event_store_errors():
        present = [o for o in originators if source.app.recorder.select_events(o, limit=1)]
    if not present:
        raise InvalidInput(f"server {source_name} holds nothing of principal {key}")
    with tempfile.TemporaryDirectory(prefix="memory_es_move_", dir=work) as folder:
        key_file = Path(folder) / "keys.jsonl"
        keys = write_key_file(key_file, _owner_keys(source, key))
        if keys:
            if target.app.keys is None:
                raise UsageError(f"server {target_name} was opened without sealing")
            target.app.keys.import_rows(read_key_file(key_file))
        for round_ in range(1, 6):
            appended, source_positions = _append_missing(
                source, target, originators, Path(folder), round_
            )
            if not appended and round_ > 1:
                break
            source.catch_up()
            originators, sessions = principal_originators(source, tenant, principal)
        else:
            raise InvalidInput(f"principal {key} is still being written on {source_name}")
    target.catch_up()
    target_positions = _positions(target, originators, 0)
    if len(target_positions) != len(source_positions):
        raise InvalidInput(
            f"server {target_name} shows {len(target_positions)} of the"
            f" {len(source_positions)} events moved"
        )
    moved = dict(zip(source_positions, target_positions, strict=True))
    if _events(source, originators) != _events(target, originators):
        raise InvalidInput(f"principal {key}: the events on {target_name} differ from the source's")
    expected = principal_dump(source, key, moved)
    if principal_dump(target, key) != expected:
        raise InvalidInput(
            f"principal {key}: the read model on {target_name} differs from the source's"
        )
    report = MoveReport(
        principal=key,
        source=source_name,
        target=target_name,
        events=len(source_positions),
        sessions=sessions,
        keys=keys,
        beliefs=len(expected["beliefs"]),
        verified=True,
        source_retired=False,
    )
    return report, moved


def _owner_keys(memory: Memory, owner: str) -> list[Any]:
    ring = memory.app.keys
    if ring is None:
        return []  # a store opened without sealing: its text is plain, no key to carry
    return ring.table.select_owner(owner)


def retire_source(source: Memory, principal: str, *, tenant: str, target_name: str) -> bool:
    """Forget the source's copy (its keys destroyed, its read model rows gone): False
    when the store holds no session of it to forget (a principal that only remembered)."""
    try:
        source.forget(
            principal=principal,
            tenant=tenant,
            confirm=True,
            reason=f"moved to server {target_name}",
        )
    except InvalidInput:
        return False
    return True
