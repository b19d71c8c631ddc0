"""The Session aggregate: the turns a principal spoke, the source evidence of beliefs."""

from __future__ import annotations

from collections.abc import Sequence
from copy import copy
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

from eventsourcing.domain import Aggregate, event

from memory_es.errors import InvalidInput, SessionClosed

# A session with no turn for this long is idle: the maintenance sweep closes it (and so
# runs formation at its own project scope). A constant, deliberately not a profile knob.
SESSION_IDLE_SECONDS = 30 * 60
# How many turns after one that names a credential are screened for its bare value: the
# answer, or the answer after one turn between ("let me check")
# (memory_es/formation/hazards/secrets/follow_up.py; a domain constant, not a knob).
FOLLOW_UP_TURNS = 2
# How many of the last words of a session's latest trusted user turn are read with the
# next user turn's first words: an injection split over two turns ("Ignore all" …
# "previous instructions") is screened as one (memory_es/formation/hazards/__init__.py).
INJECTION_CONTEXT_WORDS = 32


def _last_words(text: str, count: int) -> str:
    return " ".join(text.split()[-count:])


@dataclass(frozen=True)
class FrozenSnapshot:
    """The session snapshot's fields, declared once: the value the context layer freezes,
    the event that records it (``Session.SessionSnapshotTaken`` inherits these fields, so
    its stored shape is this one) and the state a session keeps of it.

    Not the library's aggregate snapshots (a storage optimisation): this is what the
    model was shown at session open. ``watermark`` is the principal's head position at
    that moment; ``prefix`` is the rendered stable prefix, kept whole so it is
    byte-identical for every turn of the session whatever code renders later.
    """

    trace_id: str
    watermark: int
    belief_ids: list[str]
    lines: list[str]
    prefix: str
    prefix_digest: str
    taken_at: str
    trace_expires_at: str
    policy: str

    def event_fields(self) -> dict[str, Any]:
        """The snapshot's own fields, lists copied (an event also carries the library's)."""
        return {name: copy(getattr(self, name)) for name in SNAPSHOT_FIELDS}


SNAPSHOT_FIELDS: tuple[str, ...] = tuple(FrozenSnapshot.__dataclass_fields__)


class Session(Aggregate):
    """Opened for a principal at a project scope; turns recorded; closed once."""

    # Version 2 keeps the screening context (the kinds a recent turn named, and for how
    # many more turns); a version 1 snapshot had none open. Version 3 keeps the injection
    # context (the last words of the latest trusted user turn); older snapshots had none.
    class_version = 3

    @staticmethod
    def upcast_v1_v2(state: dict[str, Any]) -> None:
        state["screening_kinds"] = []
        state["screening_turns_left"] = 0

    @staticmethod
    def upcast_v2_v3(state: dict[str, Any]) -> None:
        state["injection_tail"] = ""

    class Opened(Aggregate.Created):
        tenant: str
        principal: str
        project: str
        opened_at: str

    class TurnRecorded(Aggregate.Event):
        """One turn. ``text`` is already redacted; ``turn_id`` is its evidence id.
        ``opens_screening``: the credential kinds the turn named, whose bare values the
        session's next turns are screened for (version 2; older turns opened none)."""

        class_version = 2

        @staticmethod
        def upcast_v1_v2(state: dict[str, Any]) -> None:
            state["opens_screening"] = []

        turn_id: str
        seq: int
        role: str
        text: str
        trusted: bool
        at: str
        redactions: list[str]
        hazards: list[str]
        opens_screening: list[str]
        # Characters replaced or dropped before the text was stored (domain/inputs.py's
        # clean_turn); a turn recorded before the count existed loads with 0.
        cleaned_characters: int = 0

    class FactsEstablished(Aggregate.Event):
        """Conclusions established in the session, each with the turn ids backing it
        (``{"statement": ..., "source_event_ids": [...]}``; statements already redacted).
        Formation at close admits those whose provenance holds."""

        facts: list[dict[str, object]]
        at: str

    class Closed(Aggregate.Event):
        at: str
        trigger: str

    class SessionSnapshotTaken(FrozenSnapshot, Aggregate.Event):
        """The session snapshot taken (fields: :class:`FrozenSnapshot`)."""

        def apply(self, aggregate: Any) -> None:
            # Plain types: the library's aggregate snapshots store the state's __dict__.
            aggregate.session_snapshot = self.event_fields()

    @event(Opened)
    def __init__(self, id: UUID, tenant: str, principal: str, project: str, opened_at: str) -> None:
        self.tenant = tenant
        self.principal = principal
        self.project = project
        self.opened_at = opened_at
        self.last_activity_at = opened_at
        self.closed_at: str | None = None
        self.turn_count = 0
        self.screening_kinds: list[str] = []
        self.screening_turns_left = 0
        self.injection_tail = ""
        # The session snapshot's trace (plain types: aggregate snapshots store __dict__).
        self.session_snapshot: dict[str, Any] | None = None

    @property
    def screening_context(self) -> tuple[str, ...]:
        """The credential kinds the next turn is screened for (an earlier turn named
        them): derived from the turn events alone, so a replay screens alike."""
        return tuple(self.screening_kinds) if self.screening_turns_left > 0 else ()

    @property
    def injection_context(self) -> str:
        """The last words of the session's latest trusted user turn (as stored, redacted),
        which the next user turn is screened with: derived from the turn events alone."""
        return self.injection_tail

    @property
    def is_closed(self) -> bool:
        return self.closed_at is not None

    def _not_before_last_activity(self, at: str, what: str) -> None:
        """A session's clock never goes back: a turn (or the close) before its last turn
        would put evidence after the conclusions drawn from it."""
        if _instant(at) < _instant(self.last_activity_at):
            raise InvalidInput(
                f"{what} at {at} is before the session's last turn at"
                f" {self.last_activity_at}: a session's clock never goes back"
            )

    def record_turn(
        self,
        *,
        turn_id: str,
        role: str,
        text: str,
        trusted: bool,
        at: str,
        redactions: list[str],
        hazards: list[str],
        opens_screening: Sequence[str] = (),
        cleaned_characters: int = 0,
    ) -> None:
        """Record one turn; ``text`` must already be cleaned and redacted (the log is
        append-only)."""
        if self.is_closed:
            raise SessionClosed(str(self.id))
        if not text.strip():
            raise InvalidInput("a turn needs non-empty text")
        self._not_before_last_activity(at, "a turn")
        self._turn_recorded(
            turn_id=turn_id,
            seq=self.turn_count + 1,
            role=role,
            text=text,
            trusted=trusted,
            at=at,
            redactions=redactions,
            hazards=hazards,
            opens_screening=list(opens_screening),
            cleaned_characters=cleaned_characters,
        )

    @event(TurnRecorded)
    def _turn_recorded(
        self,
        turn_id: str,
        seq: int,
        role: str,
        text: str,
        trusted: bool,
        at: str,
        redactions: list[str],
        hazards: list[str],
        opens_screening: list[str],
        cleaned_characters: int = 0,
    ) -> None:
        self.turn_count = seq
        self.last_activity_at = at
        if opens_screening:
            self.screening_kinds = list(opens_screening)
            self.screening_turns_left = FOLLOW_UP_TURNS
        elif self.screening_turns_left > 0:
            self.screening_turns_left -= 1
        if role == "user":
            # A flagged turn forms nothing and is screened whole: only a trusted one can
            # hold the first half of an injection the next turn completes.
            self.injection_tail = _last_words(text, INJECTION_CONTEXT_WORDS) if trusted else ""

    def establish_facts(self, *, facts: list[dict[str, object]], at: str) -> None:
        if self.is_closed:
            raise SessionClosed(str(self.id))
        self._facts_established(facts=facts, at=at)

    @event(FactsEstablished)
    def _facts_established(self, facts: list[dict[str, object]], at: str) -> None:
        """Evidence for formation; conversation activity is unchanged."""

    def close(self, *, at: str, trigger: str) -> None:
        if self.is_closed:
            raise SessionClosed(str(self.id))
        self._not_before_last_activity(at, "closing")
        self._closed(at=at, trigger=trigger)

    @event(Closed)
    def _closed(self, at: str, trigger: str) -> None:
        self.closed_at = at

    def take_session_snapshot(self, snapshot: FrozenSnapshot) -> None:
        """Freeze the priming recall; once per session, while it is open."""
        if self.is_closed:
            raise SessionClosed(str(self.id))
        if getattr(self, "session_snapshot", None) is not None:
            raise InvalidInput(f"session {self.id} already has its session snapshot")
        if snapshot.watermark < 0:
            raise InvalidInput("a watermark is a store position, never negative")
        self.trigger_event(self.SessionSnapshotTaken, **snapshot.event_fields())


def _instant(text: str) -> datetime:
    """A stored instant (``ports.iso`` text) as a datetime, to compare two of them."""
    return datetime.fromisoformat(text)
