"""Bulk ingest: turns from JSON Lines, one session per distinct session key.

Each line is one turn::

    {"principal": "alice", "session": "s1", "project": "general",
     "at": "2026-03-02T09:00:00Z", "role": "user", "text": "I live in Seattle."}

``project`` is optional (``general``), ``role`` is ``user`` or ``assistant`` (default
``user``); no other keys are allowed. The whole input is validated first: if any line is
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
model catches up once per flush. A store error mid-way leaves the flushed batches
written (each whole) and nothing of the rest; re-ingesting a file records its sessions
again as new sessions.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import (
    AfterValidator,
    AwareDatetime,
    BaseModel,
    ConfigDict,
    ValidationError,
)

from memory_es.domain.inputs import clean_name, clean_text
from memory_es.domain.values import DEFAULT_TENANT, GENERAL_SCOPE, Role
from memory_es.errors import InvalidInput
from memory_es.formation.hazards import check_turn_size
from memory_es.ports import FixedClock
from memory_es.services import commands
from memory_es.services.handlers import handle_in
from memory_es.unit_of_work import save_collected

if TYPE_CHECKING:
    from memory_es.services import BatchUnitOfWork, Services

DEFAULT_BATCH_EVENTS = 2000

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
    """What ``say`` records (memory_es/domain/inputs.py), checked for the whole file
    before anything is written."""
    try:
        return clean_text(value, what="the text")
    except InvalidInput as error:
        raise ValueError(str(error)) from None


class TurnLine(BaseModel):
    """One line of an ingest file."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    principal: Annotated[str, AfterValidator(_name)]
    session: Annotated[str, AfterValidator(_name)]
    project: Annotated[str, AfterValidator(_name)] | None = None
    at: AwareDatetime
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


@dataclass
class IngestReport:
    sessions: int = 0
    turns: int = 0
    transactions: int = 0
    session_ids: dict[str, str] = field(default_factory=dict)  # session key -> session id
    counts: dict[str, int] = field(default_factory=dict)  # summed consolidation counts

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


def ingest(
    services: Services,
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
    the ingest clock; the store's own clock is never swapped.
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
        end = writer.write_batch(start)
        if progress:
            progress(end - start)
        start = end
    return writer.report


class _Writer:
    def __init__(
        self,
        services: Services,
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
        self.clock = IngestClock(turns[0].turn.at)
        self.report = IngestReport()

    def write_batch(self, start: int) -> int:
        """Run commands from ``start`` until the batch is full; save them in one transaction.

        On a concurrency conflict the service runner runs the batch again on fresh state
        (nothing of it was written). Returns the index of the first turn not yet written.
        """

        def batch(uow: BatchUnitOfWork) -> tuple[int, IngestReport]:
            trial = IngestReport(session_ids=dict(self.report.session_ids))
            return self._run_commands(start, uow, trial), trial

        end, trial = self.services.run_batch(batch, clock=self.clock, save=save_collected)
        self._merge(trial)
        return end

    def _run_commands(self, start: int, uow: BatchUnitOfWork, report: IngestReport) -> int:
        turns = self.turns
        i = start
        while i < len(turns):
            turn = turns[i].turn
            self.clock.at(turn.at)
            session_id = report.session_ids.get(turn.session)
            if session_id is None:
                # An ingested session is past conversation, not a live model call: it
                # takes no session snapshot (which would read the read model, and that
                # lags inside a batch).
                command = commands.OpenSession(
                    turn.principal, project=turn.project, tenant=self.tenant, snapshot=False
                )
                session_id = handle_in(command, uow)
                report.session_ids[turn.session] = session_id
                report.sessions += 1
            handle_in(commands.Say(session_id, turn.text, role=Role(turn.role)), uow)
            report.turns += 1
            if self.last_index[turn.session] == i:
                result = handle_in(commands.CloseSession(session_id), uow)
                for key, value in result.counts.as_dict().items():
                    report.counts[key] = report.counts.get(key, 0) + value
                if self.flush_each_session:
                    return i + 1
            i += 1
            if len(uow) >= self.batch_events:
                break
        return i

    def _merge(self, trial: IngestReport) -> None:
        report = self.report
        report.sessions += trial.sessions
        report.turns += trial.turns
        report.transactions += 1
        report.session_ids = trial.session_ids
        for key, value in trial.counts.items():
            report.counts[key] = report.counts.get(key, 0) + value
