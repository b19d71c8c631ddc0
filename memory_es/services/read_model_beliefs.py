"""The principal's beliefs as the resolver reads them (``BeliefReads``), from the read
model at the aggregate's version: the unit of work catches the read model up to the log
when the read opens and checks that the log holds no later version of the principal
(another writer's: the command runs again on fresh state, as its save would have been
refused), so the read holds exactly the events of the version the command saves on.
On top of it, an overlay of the principal's events not projected yet (``pending(after)``:
those past version ``after``) — the command's pending events and, in a batch, those
collected since its last flush — applied by the one projector (projections/projector.py)
to records of its own.

The read model numbers each principal's beliefs in the order they were formed; the
candidates keep that order (the order the aggregate's belief table kept before class
version 6), the overlay's new beliefs after every stored one, in the order their events
came.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from memory_es.domain.resolver import (
    Evidence,
    Existing,
    changed_words,
    names_object,
    retracted_objects,
    tells_of_change,
)
from memory_es.domain.values import LIVE_STATUSES, Authority, Status, subject_keys
from memory_es.projections.base import IndexWriter, RecallIndex
from memory_es.projections.projector import project_event
from memory_es.projections.records import BeliefRecord, QuarantinedEvent, SessionRecord

# The overlay's beliefs come after every stored one: their order key's first part.
_STORED, _PENDING = 0, 1
# Pending events have no store position yet; the resolver reads none.
_NO_POSITION = 0


class ReadModelBeliefs:
    """``BeliefReads`` over the read model with the pending events' overlay."""

    def __init__(
        self,
        index: RecallIndex,
        principal: str,
        version: int,
        pending: Callable[[int], Sequence[Any]],
    ) -> None:
        self._index = index
        self._principal = principal
        self._version = version
        self._pending = pending
        self._overlay = _Overlay(index, principal)
        self._applied = version  # the last aggregate version the overlay holds

    @property
    def version(self) -> int:
        return self._version

    # -- the resolver's candidates ------------------------------------------------------

    def candidates(self, incoming: Evidence) -> list[Existing]:
        overlay = self._sync()
        parts = subject_keys(incoming.subject_key)
        found = {
            record.belief_id: ((_STORED, number), record)
            for number, record in self._index.resolver_rows(
                self._principal,
                normalized=incoming.normalized,
                belief_type=incoming.belief_type,
                subjects=parts,
            )
        }
        objects = retracted_objects(incoming)
        if objects:
            # A retraction reaches every live positive belief naming what it retracts,
            # of any type: rare enough for a scan of the principal's live beliefs.
            for number, record in self._index.live_rows(self._principal):
                if names_object(record.normalized, objects):
                    found[record.belief_id] = ((_STORED, number), record)

        def matches(record: BeliefRecord) -> bool:
            if record.normalized == incoming.normalized:
                return True
            if record.status not in LIVE_STATUSES:
                return False
            if record.belief_type == incoming.belief_type and not parts.isdisjoint(
                subject_keys(record.subject_key)
            ):
                return True
            return bool(objects) and record.polarity and names_object(record.normalized, objects)

        # The overlay's beliefs the rules may match, in the state its events left them
        # (a statement and subjects never change once formed: its lookups are exact).
        touched = overlay.matching(
            incoming.normalized, incoming.belief_type, parts, every=bool(objects)
        )
        touched.update(b for b in found if overlay.holds(b))
        for belief_id, (order, record) in overlay.ordered(touched).items():
            if matches(record):
                found[belief_id] = (order, record)
            else:
                found.pop(belief_id, None)
        return [_existing(record) for _, record in sorted(found.values(), key=_order)]

    def live(self) -> list[Existing]:
        """Every live belief, in formation order (what a re-derivation answers for)."""
        overlay = self._sync()
        found = {
            record.belief_id: ((_STORED, number), record)
            for number, record in self._index.live_rows(self._principal, positive=False)
        }
        for belief_id, (order, record) in overlay.ordered(overlay.every()).items():
            if record.status in LIVE_STATUSES:
                found[belief_id] = (order, record)
            else:
                found.pop(belief_id, None)
        return [_existing(record) for _, record in sorted(found.values(), key=_order)]

    def readings_carrying(self, belief_id: str, successor_normalized: str) -> list[str]:
        """The live positive inferences standing on one of ``belief_id``'s source turns
        that name a value it stated and its successor does not ("bristol" of "User lives
        in Bristol." for "User lives in Leeds."): the residue and sentence-level lines of
        the same turn, which carry the old state and go with it."""
        overlay = self._sync()
        record = self._require(belief_id)
        if not record.polarity:
            return []  # a retraction replaced by another carries no old state
        values = changed_words(record.normalized, successor_normalized)
        sources = frozenset(record.source_event_ids)
        if not values or not sources:
            return []

        def carries(other: BeliefRecord) -> bool:
            return (
                other.belief_id != belief_id
                and other.status in LIVE_STATUSES
                and other.polarity
                and other.authority == int(Authority.INFERRED)
                and names_object(other.normalized, values)
                and not tells_of_change(other.normalized)
                and not sources.isdisjoint(other.source_event_ids)
            )

        found = {
            other.belief_id: ((_STORED, number), other)
            for number, other in self._index.live_rows(self._principal, inferred_sharing=sources)
        }
        found.update(overlay.ordered(overlay.every()))
        chosen = [(order, other) for order, other in found.values() if carries(other)]
        return [other.belief_id for _, other in sorted(chosen, key=_order)]

    # -- the lifecycle's checks by id ---------------------------------------------------

    def status_of(self, belief_id: str) -> Status | None:
        record = self._find(belief_id)
        return None if record is None else Status(record.status)

    def type_and_key(self, belief_id: str) -> tuple[str, str]:
        record = self._require(belief_id)
        return record.belief_type, record.subject_key

    def authority_of(self, belief_id: str) -> Authority | None:
        record = self._find(belief_id)
        return None if record is None else Authority(record.authority)

    def evidence_of(self, belief_id: str) -> int:
        """How many source events back the belief."""
        return len(self._require(belief_id).source_event_ids)

    def is_pinned(self, belief_id: str) -> bool:
        record = self._find(belief_id)
        return record is not None and record.pinned

    def is_forgotten(self, belief_id: str) -> bool:
        """Retired by the decay sweep (and not revived since): new evidence revives it."""
        record = self._find(belief_id)
        return record is not None and record.forgotten

    def prior_status(self, belief_id: str) -> Status | None:
        """The status a deactivated belief had; None when it is not deactivated."""
        record = self._find(belief_id)
        if record is None or record.prior_status is None:
            return None
        return Status(record.prior_status)

    # -- the overlay --------------------------------------------------------------------

    def _sync(self) -> _Overlay:
        """The overlay with every pending event applied."""
        for event in self._pending(self._applied):
            if event.originator_version > self._applied:
                project_event(event, _NO_POSITION, self._overlay)
                self._applied = event.originator_version
        return self._overlay

    def _find(self, belief_id: str) -> BeliefRecord | None:
        self._sync()
        record = self._overlay.get(belief_id)
        return record if record is not None and record.principal == self._principal else None

    def _require(self, belief_id: str) -> BeliefRecord:
        record = self._find(belief_id)
        if record is None:
            raise KeyError(belief_id)
        return record


class _Overlay(IndexWriter):
    """The projector's writer over records of its own, reading through to the read
    model: the beliefs the pending events formed or changed, in the state they left."""

    def __init__(self, index: RecallIndex, principal: str) -> None:
        self._index = index
        self._principal = principal
        self._records: dict[str, BeliefRecord] = {}
        self._formed: dict[str, int] = {}  # formed here -> its place among them
        self._numbers: dict[str, int] = {}  # stored, changed here -> its number
        # Its beliefs by statement and by (type, subject part), as the read model's
        # lookups (both fixed when a belief forms).
        self._by_statement: dict[str, set[str]] = {}
        self._by_subject: dict[tuple[str, str], set[str]] = {}

    def holds(self, belief_id: str) -> bool:
        return belief_id in self._records

    def every(self) -> set[str]:
        return set(self._records)

    def matching(
        self, normalized: str, belief_type: str, parts: Collection[str], *, every: bool
    ) -> set[str]:
        """Its beliefs stating ``normalized`` or of the type with one of the subject
        parts (``every``: all of them)."""
        if every:
            return self.every()
        found = set(self._by_statement.get(normalized, ()))
        for part in parts:
            found.update(self._by_subject.get((belief_type, part), ()))
        return found

    def ordered(
        self, belief_ids: Collection[str]
    ) -> dict[str, tuple[tuple[int, int], BeliefRecord]]:
        """These beliefs of the overlay, each with its order key: a stored one's number,
        or its place after every stored one."""
        unnumbered = [b for b in belief_ids if b not in self._formed and b not in self._numbers]
        if unnumbered:
            self._numbers.update(self._index.belief_numbers(self._principal, unnumbered))
        return {
            belief_id: (
                (_PENDING, self._formed[belief_id])
                if belief_id in self._formed
                else (_STORED, self._numbers[belief_id]),
                self._records[belief_id],
            )
            for belief_id in belief_ids
        }

    def _keep(self, record: BeliefRecord) -> None:
        if record.belief_id not in self._records:
            self._by_statement.setdefault(record.normalized, set()).add(record.belief_id)
            for part in subject_keys(record.subject_key):
                self._by_subject.setdefault((record.belief_type, part), set()).add(record.belief_id)
        self._records[record.belief_id] = record

    def tracked_position(self) -> int:
        return _NO_POSITION

    def set_tracking(self, position: int) -> None:
        """The overlay tracks nothing: it is never stored."""

    def name_principal(self, aggregate_id: str, principal: str) -> None:
        """One principal's overlay: its key is known."""

    def principal_of(self, aggregate_id: str) -> str:
        return self._principal

    def get(self, belief_id: str) -> BeliefRecord | None:
        record = self._records.get(belief_id)
        return record if record is not None else self._index.get(belief_id)

    def insert_belief(self, record: BeliefRecord, terms: Mapping[str, int]) -> None:
        self._formed.setdefault(record.belief_id, len(self._formed))
        self._keep(record)

    def update_belief(self, belief_id: str, **changes: Any) -> None:
        current = self.get(belief_id)
        if current is None:
            raise LookupError(belief_id)
        self._keep(current.evolve(**changes))

    def raise_head(self, principal: str, position: int) -> None:
        """Heads are the read model's; the resolver reads none."""

    def prefetch(self, belief_ids: Collection[str]) -> None:
        """Each read goes to the read model when asked."""

    def quarantine(self, event: QuarantinedEvent) -> None:
        raise LookupError(event.error)

    def open_session(self, record: SessionRecord) -> None:
        """Only the principal's events reach the overlay."""

    def record_turn(self, session_id: str, seq: int, turn_id: str, words: str) -> None:
        """Only the principal's events reach the overlay."""

    def antecedent_words(self, turn_id: str) -> str:
        """None: they shape a belief's index terms, which the resolver never reads."""
        return ""

    def update_session(self, session_id: str, **changes: Any) -> None:
        """Only the principal's events reach the overlay."""


def _order(item: tuple[tuple[int, int], BeliefRecord]) -> tuple[int, int]:
    return item[0]


def _existing(record: BeliefRecord) -> Existing:
    status = record.status
    return Existing(
        belief_id=record.belief_id,
        evidence=Evidence(
            belief_type=record.belief_type,
            subject_key=record.subject_key,
            normalized=record.normalized,
            polarity=record.polarity,
            authority=Authority(record.authority),
            instant=record.valid_from,
            session_id=record.source_session_id,
            seq=record.source_seq,
            source_event_ids=frozenset(record.source_event_ids),
            project=record.project,
            portable=record.portable,
        ),
        live=status in LIVE_STATUSES,
        rejected=status == Status.REJECTED,
        retired=status == Status.RETIRED and record.forgotten,
    )
