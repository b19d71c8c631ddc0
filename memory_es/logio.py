"""Moving a store: the whole event log to a JSON-Lines file and back (``log export`` and
``log import``), between any two stores (memory, SQLite, PostgreSQL).

The file is a header line, then one line per stored event in log order:

    {"format": "memory-es-log", "version": 1, "head": H}
    {"position": 1, "originator_id": "...", "originator_version": 1, "topic": "...",
     "state": "<base64 of the stored bytes>"}

An event is carried as the bytes the store holds (the transcoder's output), never
decoded and encoded again, so nothing is lost or changed on the way. Snapshots are not
carried (a cache: the target takes its own). The target must hold no event: the file is
validated whole first (nothing is written if a line is bad), then written in order, a
batch a transaction, and the target's read model is rebuilt from it. The target numbers
the events itself (1, 2, ...): the same order, and the same positions unless the source's
log had gaps (PostgreSQL's sequence may skip a number after a rolled-back write).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any
from uuid import UUID

import orjson
from eventsourcing.persistence import StoredEvent
from eventsourcing.utils import resolve_topic

from memory_es.domain.inputs import check_position
from memory_es.errors import InvalidInput, UsageError
from memory_es.store_errors import event_store_errors

if TYPE_CHECKING:
    from memory_es.app import Memory

LOG_FORMAT = "memory-es-log"
LOG_FORMAT_VERSION = 1
EXPORT_PAGE = 1000
IMPORT_BATCH = 1000
_EVENT_KEYS = frozenset({"position", "originator_id", "originator_version", "topic", "state"})

Progress = Callable[[int, int], None]  # (done, total): positions, or events imported


@dataclass(frozen=True)
class LogTransfer:
    """What an export or an import carried."""

    events: int
    first_position: int  # the first event's position in the source (0: none)
    last_position: int  # the last one's: the source log's head when it was exported

    def as_dict(self) -> dict[str, int]:
        return {
            "events": self.events,
            "first_position": self.first_position,
            "last_position": self.last_position,
        }


def export_log(
    memory: Memory,
    path: Path,
    *,
    until: int | None = None,
    progress: Progress | None = None,
    decrypted: bool = False,
    originators: Collection[UUID] | None = None,
) -> LogTransfer:
    """Write the store's log (up to position ``until``, default its head) to ``path``:
    sealed text stays ciphertext (the keys move only by ``keys export``), unless
    ``decrypted`` (an operator's plaintext copy, the events as a store without sealing
    writes them; a forgotten text is its placeholder). ``originators``: only the events
    of these aggregates (one principal's, for ``shards move``), in log order."""
    recorder = memory.app.recorder
    opened = plaintext_opener(memory) if decrypted else None
    with event_store_errors():
        head = recorder.max_notification_id() or 0
        if until is not None:
            check_position(until, head)
        stop = head if until is None else until
        first = last = 0
        try:
            out = path.open("wb")
        except OSError as error:
            raise UsageError(f"cannot write {path}: {error.strerror}") from None
        with out:
            _write(out, {"format": LOG_FORMAT, "version": LOG_FORMAT_VERSION, "head": stop})
            after, written = 0, 0
            while after < stop:
                page = recorder.select_notifications(
                    start=after, limit=EXPORT_PAGE, stop=stop, inclusive_of_start=False
                )
                if not page:
                    break
                kept = (
                    page
                    if originators is None
                    else [n for n in page if n.originator_id in originators]
                )
                for n in kept:
                    _write(
                        out,
                        {
                            "position": n.id,
                            "originator_id": str(n.originator_id),
                            "originator_version": n.originator_version,
                            "topic": n.topic,
                            "state": base64.b64encode(
                                bytes(n.state) if opened is None else opened(n)
                            ).decode("ascii"),
                        },
                    )
                if kept:
                    first = first or kept[0].id
                    last = kept[-1].id
                written += len(kept)
                after = page[-1].id
                if progress:
                    progress(after, stop)
    return LogTransfer(events=written, first_position=first, last_position=last)


def plaintext_opener(memory: Memory) -> Callable[[Any], bytes]:
    """The stored state of a notification with its sealed text opened (memory_es/sealing.py)."""
    mapper = memory.app.mapper
    unseal = getattr(mapper, "unseal", None)
    if unseal is None:
        raise UsageError("this store was opened without sealing: its export is plaintext already")
    transcoder = mapper.transcoder

    def opened(notification: Any) -> bytes:
        state = bytes(notification.state)
        fields = transcoder.decode(state)
        if "_sealed_" not in fields:
            return state
        unseal(
            notification.topic,
            str(notification.originator_id),
            notification.originator_version,
            fields,
        )
        return transcoder.encode(fields)

    return opened


def _write(out: IO[bytes], value: dict[str, Any]) -> None:
    out.write(orjson.dumps(value) + b"\n")


def read_log(path: Path) -> Iterator[tuple[int, StoredEvent]]:
    """The file's events in order, each (source position, stored event); a malformed
    file raises ``InvalidInput`` naming the line."""
    try:
        source = path.open("rb")
    except OSError as error:
        raise UsageError(f"cannot read {path}: {error.strerror}") from None
    with source:
        header = _parse(source.readline(), 1, path)
        if header.get("format") != LOG_FORMAT or header.get("version") != LOG_FORMAT_VERSION:
            raise InvalidInput(
                f"{path}:1: not a memory-es log export (format {LOG_FORMAT!r},"
                f" version {LOG_FORMAT_VERSION} expected)"
            )
        previous = 0
        for number, line in enumerate(source, start=2):
            if not line.strip():
                continue
            position, event = _event(_parse(line, number, path), number, path)
            if position <= previous:
                raise InvalidInput(f"{path}:{number}: positions must increase ({position})")
            previous = position
            yield position, event


def _parse(line: bytes, number: int, path: Path) -> dict[str, Any]:
    try:
        value = orjson.loads(line)
    except orjson.JSONDecodeError:
        raise InvalidInput(f"{path}:{number}: not a JSON line") from None
    if not isinstance(value, dict):
        raise InvalidInput(f"{path}:{number}: a line is one JSON object")
    return value


_KNOWN_TOPICS: dict[str, bool] = {}


def _event(value: dict[str, Any], number: int, path: Path) -> tuple[int, StoredEvent]:
    where = f"{path}:{number}"
    if set(value) != _EVENT_KEYS:
        raise InvalidInput(f"{where}: an event line has exactly {sorted(_EVENT_KEYS)}")
    position, version, topic = value["position"], value["originator_version"], value["topic"]
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (position, version)):
        raise InvalidInput(f"{where}: position and originator_version are integers")
    if not isinstance(topic, str) or not _known(topic):
        raise InvalidInput(f"{where}: event topic {topic!r} is unknown to this memory-es")
    try:
        originator = UUID(str(value["originator_id"]))
        state = base64.b64decode(str(value["state"]), validate=True)
    except (ValueError, binascii.Error):
        raise InvalidInput(f"{where}: originator_id is a UUID and state base64") from None
    return position, StoredEvent(
        originator_id=originator, originator_version=version, topic=topic, state=state
    )


def _known(topic: str) -> bool:
    """Whether this code can decode events of the topic (a log from newer code cannot)."""
    if topic not in _KNOWN_TOPICS:
        try:
            resolve_topic(topic)
            _KNOWN_TOPICS[topic] = True
        except Exception:  # the library raises TopicError, or an import error
            _KNOWN_TOPICS[topic] = False
    return _KNOWN_TOPICS[topic]


def import_log(
    memory: Memory,
    path: Path,
    *,
    progress: Progress | None = None,
    rebuild_progress: Progress | None = None,
) -> LogTransfer:
    """Carry the file's events into this store, which must hold none, in order; then
    rebuild its read model from them. The file is validated whole before any write."""
    count, first, last = 0, 0, 0
    for position, _ in read_log(path):
        count += 1
        first = first or position
        last = position
    recorder = memory.app.recorder
    with event_store_errors():
        held = recorder.max_notification_id() or 0
        if held:
            raise UsageError(
                f"the target store {memory.spec.display} already holds events (head {held}):"
                " log import writes only into an empty store"
            )
        batch: list[StoredEvent] = []
        written = 0
        for _, event in read_log(path):
            batch.append(event)
            if len(batch) == IMPORT_BATCH:
                recorder.insert_events(batch)
                written += len(batch)
                batch = []
                if progress:
                    progress(written, count)
        if batch:
            recorder.insert_events(batch)
            written += len(batch)
            if progress:
                progress(written, count)
    memory.rebuild_projections(progress=rebuild_progress)
    return LogTransfer(events=written, first_position=first, last_position=last)


def compact_log(source: Memory, target: Memory, *, progress: Progress | None = None) -> LogTransfer:
    """``log compact``: write the source's log into the empty ``target`` (opened with
    sealing), each event read through the source's keys and sealed again under the
    target's — a store written before sealing comes out sealed, a forgotten payload as
    its placeholder only — then rebuild the target's read model and check it equals the
    source's, row for row (``InvalidInput`` if not). Offline: nothing may write either."""
    from memory_es.domain.values import principal_identity

    mapper = target.app.mapper
    note_owner = getattr(mapper, "note_owner", None)
    if note_owner is None:
        raise UsageError("log compact writes a sealed store: open the target with sealing")
    recorder = source.app.recorder
    with event_store_errors():
        if target.app.recorder.max_notification_id():
            raise UsageError(f"the target store {target.spec.display} already holds events")
        head = recorder.max_notification_id() or 0
        after, written, first = 0, 0, 0
        while after < head:
            page = recorder.select_notifications(
                start=after, limit=IMPORT_BATCH, stop=head, inclusive_of_start=False
            )
            if not page:
                break
            batch: list[StoredEvent] = []
            for n in page:
                event = source.app.mapper.to_domain_event(n)
                tenant, principal = (
                    getattr(event, "tenant", None),
                    getattr(event, "principal", None),
                )
                if isinstance(tenant, str) and isinstance(principal, str):
                    note_owner(
                        str(n.originator_id), principal_identity(tenant=tenant, principal=principal)
                    )
                batch.append(mapper.to_stored_event(event))
            target.app.recorder.insert_events(batch)
            written += len(batch)
            first = first or page[0].id
            after = page[-1].id
            if progress:
                progress(after, head)
    target.rebuild_projections()
    source.catch_up()
    if target.index.dump() != source.index.dump():
        raise InvalidInput("the compacted store's read model differs from the source's")
    return LogTransfer(events=written, first_position=first, last_position=after)
