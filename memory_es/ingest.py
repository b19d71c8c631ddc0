"""Bulk ingest: turns from JSON Lines, one session per distinct session key.

Each line is one turn::

    {"principal": "alice", "session": "s1", "project": "general",
     "at": "2026-03-02T09:00:00Z", "role": "user", "text": "I live in Seattle."}

``project`` is optional (``general``), ``role`` is ``user`` or ``assistant`` (default
``user``); no other keys are allowed, and no key twice (JSON parsers keep the last of a
repeated key, so ``{"principal": "ana", ..., "principal": "bo"}`` would write to another
principal than the one a reader sees first). ``at`` is an instant from 1970 through 2200
(``memory_es.ports.check_instant``). The whole input is validated first: if any line is
bad, nothing at all is written and the error names the first bad line (with how many
more there are). A session key is opened at its first line, every line records a turn,
and the session is closed — and so formed — right after its last line. Lines of one key
must agree on principal and project and must not go back in time.

``at`` drives the clock: the ingest clock reads the current line's instant, so the
session opens at its first line's ``at``, each turn is recorded at its own ``at`` and the
session closes (formation's "now") at its last line's ``at``. The system clock is never
read.

The writes are the ordinary commands (``OpenSession``, ``Say``, ``CloseSession``) run in
a ``BatchUnitOfWork`` (memory_es/services/unit_of_work.py): their events are exactly
those of the one-at-a-time path, in the same order, but they are saved many commands per
transaction (a flush every ``batch_events`` events, at a command boundary) and the read
model catches up once per flush. A store error mid-way (a crash, a full disk) leaves the
flushed batches written (each whole) and nothing of the rest.

Ingest is idempotent. The session of a key has an id derived from (tenant, principal,
session key) (``ingest_session_id``), so before it opens a key the writer looks the
session up in the event store — the Session aggregate is the record of what was
ingested, no read model is consulted. A closed session was ingested whole: its lines are
skipped. An open one was cut off (the batch boundary fell inside it and the next batch
never landed): the turns it already has are skipped, the rest recorded, and it is closed
as an uninterrupted ingest would have closed it. Re-running a file after a crash
therefore ends in the state a run without the crash leaves, and re-running a complete
file adds no event. (A cut-off session that the idle sweep closed in between stays as
the sweep formed it: its missing lines are counted as skipped.)
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal
from uuid import UUID, uuid5

import orjson
from pydantic import (
    AfterValidator,
    AwareDatetime,
    BaseModel,
    ConfigDict,
    ValidationError,
)

from memory_es.domain.inputs import clean_name, clean_turn
from memory_es.domain.values import DEFAULT_TENANT, GENERAL_SCOPE, Role
from memory_es.errors import InvalidInput, StoreUnavailable
from memory_es.es_internals import save_collected
from memory_es.formation.hazards import check_turn_size
from memory_es.ports import FixedClock, check_instant
from memory_es.services import commands
from memory_es.services.handlers import handle_in

if TYPE_CHECKING:
    from memory_es.services import BatchUnitOfWork, CommandBus

DEFAULT_BATCH_EVENTS = 2000

# Namespace of the ids of ingested sessions (uuid5 of tenant, principal, session key).
INGEST_SESSION_NAMESPACE = UUID("3b0f6c1e-7a52-5d0e-9c4b-6e1d2f8a9b07")

Progress = Callable[[int], None]  # turns recorded since the last call


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be empty")
    return value


def _turn_size(value: str) -> str:
    try:
        return check_turn_size(value)
    except InvalidInput as error:
        raise ValueError(str(error)) from None


def _name(value: str) -> str:
    try:
        return clean_name(_not_blank(value), what="this field")
    except InvalidInput as error:
        raise ValueError(str(error)) from None


def _text(value: str) -> str:
    """A turn ``say`` can record, checked for the whole file before anything is written:
    text left once control characters are dropped (memory_es/domain/inputs.py). The
    value stays as given, so ``say`` counts what it cleans on the turn's event."""
    cleaned, _ = clean_turn(value)
    if not cleaned.strip():
        raise ValueError("holds nothing but control characters")
    return value


def _instant(value: datetime) -> datetime:
    return check_instant(value)


class TurnLine(BaseModel):
    """One line of an ingest file."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    principal: Annotated[str, AfterValidator(_name)]
    session: Annotated[str, AfterValidator(_name)]
    project: Annotated[str, AfterValidator(_name)] | None = None
    at: Annotated[AwareDatetime, AfterValidator(_instant)]
    role: Literal["user", "assistant"] = "user"
    text: Annotated[
        str, AfterValidator(_not_blank), AfterValidator(_text), AfterValidator(_turn_size)
    ]


@dataclass(frozen=True)
class NumberedTurn:
    line: int
    turn: TurnLine


@dataclass(frozen=True)
class BadLine:
    line: int
    message: str


class IngestError(InvalidInput):
    """The input has bad lines; nothing was written."""

    def __init__(self, bad: list[BadLine]) -> None:
        first = bad[0]
        more = f" (and {len(bad) - 1} more bad lines)" if len(bad) > 1 else ""
        super().__init__(f"line {first.line}: {first.message}{more}; nothing was ingested")
        self.bad = bad


class IngestInterrupted(StoreUnavailable):
    """The store failed mid-way: the batches before were written whole, nothing after."""

    def __init__(self, error: StoreUnavailable, *, turns_done: int, turns_total: int) -> None:
        super().__init__(
            f"{error} after {turns_done} of {turns_total} turns were written (each batch"
            " whole, nothing of the failed one); run the same ingest again to resume"
        )
        self.turns_done = turns_done


@dataclass
class IngestReport:
    sessions: int = 0  # opened by this run
    turns: int = 0  # recorded by this run
    transactions: int = 0
    session_ids: dict[str, str] = field(default_factory=dict)  # session key -> session id
    counts: dict[str, int] = field(default_factory=dict)  # summed consolidation counts
    skipped_sessions: int = 0  # already ingested whole (closed)
    resumed_sessions: int = 0  # cut off by an earlier run: completed by this one
    skipped_turns: int = 0  # lines whose turn the store already had

    @property
    def formed(self) -> int:
        return self.counts.get("committed", 0)

    def as_dict(self) -> dict[str, object]:
        return {
            "sessions": self.sessions,
            "turns": self.turns,
            "transactions": self.transactions,
            "counts": dict(self.counts),
            "session_ids": dict(self.session_ids),
            "skipped_sessions": self.skipped_sessions,
            "resumed_sessions": self.resumed_sessions,
            "skipped_turns": self.skipped_turns,
        }


# -- validation --------------------------------------------------------------------------


def read_lines(source: str | Path) -> list[bytes]:
    """The raw lines of a file, or of standard input for ``-``."""
    if str(source) == "-":
        return sys.stdin.buffer.read().splitlines()
    try:
        return Path(source).read_bytes().splitlines()
    except OSError as error:
        raise InvalidInput(f"cannot read {source}: {error.strerror or error}") from None


def validate(lines: Iterable[bytes | str]) -> list[NumberedTurn]:
    """Every line checked before anything is written; raises IngestError listing bad lines.

    Blank lines are skipped (they still count for line numbers).
    """
    bad: list[BadLine] = []
    turns: list[NumberedTurn] = []
    first_line: dict[str, NumberedTurn] = {}
    last_line: dict[str, NumberedTurn] = {}
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            turn = TurnLine.model_validate_json(raw)
        except ValidationError as error:
            bad.append(BadLine(number, _describe(error)))
            continue
        repeated = _repeated_key(raw, turn)
        if repeated is not None:
            bad.append(BadLine(number, f"key {repeated!r} appears more than once"))
            continue
        numbered = NumberedTurn(number, turn)
        opened = first_line.setdefault(turn.session, numbered)
        previous = last_line.get(turn.session)
        problem = _inconsistency(opened, previous, turn)
        if problem:
            bad.append(BadLine(number, problem))
            continue
        last_line[turn.session] = numbered
        turns.append(numbered)
    if bad:
        raise IngestError(bad)
    return turns


class _RepeatedKey(Exception):
    def __init__(self, key: str) -> None:
        self.key = key


def _refuse_repeats(pairs: list[tuple[str, object]]) -> dict[str, object]:
    seen: dict[str, object] = {}
    for key, value in pairs:
        if key in seen:
            raise _RepeatedKey(key)
        seen[key] = value
    return seen


def _repeated_key(raw: bytes | str, turn: TurnLine) -> str | None:
    """The first key a line that passed the model repeats, else None.

    The model's parser, like orjson, keeps the last of a repeated key without a word.
    The cheap, exact test first: in a line without a backslash no string has an escape
    or a quote inside, so its quotes are two per string token, and every value the model
    accepts is a string or null, so a line without a repeat has exactly two quotes per
    key and per string value; a repeated key adds at least its own two. A line with a
    backslash (an escape can spell a key, ``"princ\\u0069pal"``) goes to the standard
    library's parser, whose hook sees every pair. Cost: docs/reliability.md."""
    data = raw if isinstance(raw, bytes) else raw.encode("utf-8", "surrogatepass")
    if b"\\" not in data:
        given = turn.model_fields_set
        null = "project" in given and turn.project is None  # the one nullable field
        if data.count(b'"') == 4 * len(given) - 2 * null:
            return None
    try:
        json.loads(data, object_pairs_hook=_refuse_repeats)
    except _RepeatedKey as repeat:
        return repeat.key
    return None


def _describe(error: ValidationError) -> str:
    first = error.errors(include_url=False)[0]
    where = ".".join(str(part) for part in first["loc"])
    if first["type"] == "json_invalid":
        return f"not valid JSON ({first['msg'].removeprefix('Invalid JSON: ')})"
    if first["type"] == "model_type":
        return "not a JSON object"
    message = first["msg"].removeprefix("Value error, ")
    return f"{where}: {message}" if where else message


def _inconsistency(
    opened: NumberedTurn, previous: NumberedTurn | None, turn: TurnLine
) -> str | None:
    key = turn.session
    if opened.turn.principal != turn.principal:
        return (
            f"session {key!r} belongs to principal {opened.turn.principal!r}"
            f" (line {opened.line}), not {turn.principal!r}"
        )
    if (opened.turn.project or GENERAL_SCOPE) != (turn.project or GENERAL_SCOPE):
        return (
            f"session {key!r} is at project {opened.turn.project or GENERAL_SCOPE!r}"
            f" (line {opened.line}), not {turn.project!r}"
        )
    if previous is not None and turn.at < previous.turn.at:
        return (
            f"at {turn.at.isoformat()} is before the previous turn of session {key!r}"
            f" (line {previous.line}): a session's clock never goes back"
        )
    return None


# -- writing -----------------------------------------------------------------------------


class IngestClock(FixedClock):
    """The clock the bulk path runs under: set to each line's ``at`` before its command."""

    def at(self, instant: datetime) -> None:
        self.set(instant)


def ingest_session_id(tenant: str, principal: str, key: str) -> str:
    """The id of the session an ingest opens for a session key: the same on every run, so
    a re-run finds what an earlier one wrote. A JSON array keeps the three names apart
    whatever they contain."""
    return str(uuid5(INGEST_SESSION_NAMESPACE, orjson.dumps([tenant, principal, key]).decode()))


def ingest(
    services: CommandBus,
    turns: list[NumberedTurn],
    *,
    tenant: str = DEFAULT_TENANT,
    batch_events: int = DEFAULT_BATCH_EVENTS,
    flush_each_session: bool = False,
    progress: Progress | None = None,
) -> IngestReport:
    """Write validated turns: open, say and close through the ordinary commands.

    A transaction ends once ``batch_events`` events are pending (at a command boundary)
    or, with ``flush_each_session``, after every session close. The commands run under
    the ingest clock; the store's own clock is never swapped. What an earlier run of the
    same lines wrote is skipped, a session it left open is completed (module docstring).
    """
    if not turns:
        return IngestReport()
    writer = _Writer(
        services,
        turns,
        tenant=tenant,
        batch_events=batch_events,
        flush_each_session=flush_each_session,
    )
    start = 0
    while start < len(turns):
        try:
            end = writer.write_batch(start)
        except StoreUnavailable as error:
            raise IngestInterrupted(error, turns_done=start, turns_total=len(turns)) from error
        if progress:
            progress(end - start)
        start = end
    return writer.report


@dataclass
class _Trial:
    """One batch's attempt: its report, and what it learnt of sessions already stored.

    ``stored_turns[key]`` is how many turns the key's session had in the store when this
    run first met it (its lines up to that many are skipped); a key in ``closed`` was
    ingested whole before (all its lines are skipped)."""

    report: IngestReport
    stored_turns: dict[str, int]
    closed: set[str]
    events: int = 0  # what the batch writes


class _Writer:
    def __init__(
        self,
        services: CommandBus,
        turns: list[NumberedTurn],
        *,
        tenant: str,
        batch_events: int,
        flush_each_session: bool,
    ) -> None:
        self.services = services
        self.flush_each_session = flush_each_session
        self.turns = turns
        self.tenant = tenant
        self.batch_events = batch_events
        self.last_index = {t.turn.session: i for i, t in enumerate(turns)}
        # Each line's place among its key's lines (0 for the first).
        seen: dict[str, int] = {}
        self.ordinal: list[int] = []
        for t in turns:
            self.ordinal.append(seen.get(t.turn.session, 0))
            seen[t.turn.session] = self.ordinal[-1] + 1
        self.clock = IngestClock(turns[0].turn.at)
        self.report = IngestReport()
        self.stored_turns: dict[str, int] = {}
        self.closed: set[str] = set()

    def write_batch(self, start: int) -> int:
        """Run commands from ``start`` until the batch is full; save them in one transaction.

        On a concurrency conflict the service runner runs the batch again on fresh state
        (nothing of it was written). Returns the index of the first turn not yet written.
        """

        def batch(uow: BatchUnitOfWork) -> tuple[int, _Trial]:
            trial = _Trial(
                IngestReport(session_ids=dict(self.report.session_ids)),
                dict(self.stored_turns),
                set(self.closed),
            )
            return self._run_commands(start, uow, trial), trial

        end, trial = self.services.run_batch(batch, clock=self.clock, save=save_collected)
        self._merge(trial)
        return end

    def _session_for(self, turn: TurnLine, uow: BatchUnitOfWork, trial: _Trial) -> str:
        """The key's session id; opened here unless an earlier run stored it."""
        report = trial.report
        session_id = ingest_session_id(self.tenant, turn.principal, turn.session)
        stored = uow.sessions.find(session_id)
        report.session_ids[turn.session] = session_id
        if stored is None:
            # An ingested session is past conversation, not a live model call: it
            # takes no session snapshot (which would read the read model, and that
            # lags inside a batch).
            command = commands.OpenSession(
                turn.principal,
                project=turn.project,
                tenant=self.tenant,
                snapshot=False,
                session_id=session_id,
            )
            handle_in(command, uow)
            report.sessions += 1
        elif stored.is_closed:
            trial.closed.add(turn.session)
            report.skipped_sessions += 1
        else:
            trial.stored_turns[turn.session] = stored.turn_count
            report.resumed_sessions += 1
        return session_id

    def _run_commands(self, start: int, uow: BatchUnitOfWork, trial: _Trial) -> int:
        turns = self.turns
        report = trial.report
        i = start
        while i < len(turns):
            turn = turns[i].turn
            self.clock.at(turn.at)
            key = turn.session
            session_id = report.session_ids.get(key)
            if session_id is None:
                session_id = self._session_for(turn, uow, trial)
            if key in trial.closed or self.ordinal[i] < trial.stored_turns.get(key, 0):
                report.skipped_turns += 1
            else:
                handle_in(commands.Say(session_id, turn.text, role=Role(turn.role)), uow)
                report.turns += 1
            if self.last_index[key] == i and key not in trial.closed:
                result = handle_in(commands.CloseSession(session_id), uow)
                for name, value in result.counts.as_dict().items():
                    report.counts[name] = report.counts.get(name, 0) + value
                if self.flush_each_session:
                    return i + 1
            i += 1
            if len(uow) >= self.batch_events:
                break
        trial.events = len(uow)
        return i

    def _merge(self, trial: _Trial) -> None:
        report, done = self.report, trial.report
        report.sessions += done.sessions
        report.turns += done.turns
        report.skipped_sessions += done.skipped_sessions
        report.resumed_sessions += done.resumed_sessions
        report.skipped_turns += done.skipped_turns
        report.transactions += bool(trial.events)
        report.session_ids = done.session_ids
        for key, value in done.counts.items():
            report.counts[key] = report.counts.get(key, 0) + value
        self.stored_turns = trial.stored_turns
        self.closed = trial.closed
