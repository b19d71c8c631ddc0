"""The Session aggregate: the turns a principal spoke, the source evidence of beliefs."""

from __future__ import annotations

from uuid import UUID

from eventsourcing.domain import Aggregate, event

from memory_es.errors import InvalidInput, SessionClosed

# A session with no turn for this long is idle: the maintenance sweep closes it (and so
# runs formation at its own project scope). A constant, deliberately not a profile knob.
SESSION_IDLE_SECONDS = 30 * 60


class Session(Aggregate):
    """Opened for a principal at a project scope; turns recorded; closed once."""

    class Opened(Aggregate.Created):
        tenant: str
        principal: str
        project: str
        opened_at: str

    class TurnRecorded(Aggregate.Event):
        """One turn. ``text`` is already redacted; ``turn_id`` is its evidence id."""

        turn_id: str
        seq: int
        role: str
        text: str
        trusted: bool
        at: str
        redactions: list[str]
        hazards: list[str]

    class FactsEstablished(Aggregate.Event):
        """Conclusions established in the session, each with the turn ids backing it
        (``{"statement": ..., "source_event_ids": [...]}``; statements already redacted).
        Formation at close admits those whose provenance holds."""

        facts: list[dict[str, object]]
        at: str

    class Closed(Aggregate.Event):
        at: str
        trigger: str

    @event(Opened)
    def __init__(self, id: UUID, tenant: str, principal: str, project: str, opened_at: str) -> None:
        self.tenant = tenant
        self.principal = principal
        self.project = project
        self.opened_at = opened_at
        self.last_activity_at = opened_at
        self.closed_at: str | None = None
        self.turn_count = 0

    @property
    def is_closed(self) -> bool:
        return self.closed_at is not None

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
    ) -> None:
        """Record one turn; ``text`` must already be redacted (the log is append-only)."""
        if self.is_closed:
            raise SessionClosed(str(self.id))
        if not text.strip():
            raise InvalidInput("a turn needs non-empty text")
        self._turn_recorded(
            turn_id=turn_id,
            seq=self.turn_count + 1,
            role=role,
            text=text,
            trusted=trusted,
            at=at,
            redactions=redactions,
            hazards=hazards,
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
    ) -> None:
        self.turn_count = seq
        self.last_activity_at = at

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
        self._closed(at=at, trigger=trigger)

    @event(Closed)
    def _closed(self, at: str, trigger: str) -> None:
        self.closed_at = at
