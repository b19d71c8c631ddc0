"""The projection runner: which events it reads from the log, and how it pages."""

from __future__ import annotations

from collections import Counter
from typing import Any, NoReturn
from uuid import uuid4

import pytest
from eventsourcing.domain import Aggregate
from eventsourcing.utils import get_topic, resolve_topic

import memory_es
from memory_es.domain.principal import PrincipalMemory
from memory_es.domain.session import FrozenSnapshot, Session
from memory_es.domain.values import principal_aggregate_id
from memory_es.ports import FixedClock
from memory_es.projections.base import IndexWriter
from memory_es.projections.projector import HANDLERS, project_event
from memory_es.projections.records import BeliefRecord, QuarantinedEvent, SessionRecord
from memory_es.projections.runner import PROJECTED_TOPICS, ProjectionRunner
from memory_es.sealing import SEALED, projected
from tests.conformance import play


class _Untouchable(IndexWriter):
    """A writer that fails on any use: the projector must not touch it."""

    def _fail(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise AssertionError("the projector used the writer for a skipped event")

    def tracked_position(self) -> int:
        self._fail()

    def set_tracking(self, position: int) -> None:
        self._fail()

    def name_principal(self, aggregate_id: str, principal: str) -> None:
        self._fail()

    def principal_of(self, aggregate_id: str) -> str:
        self._fail()

    def get(self, belief_id: str) -> BeliefRecord | None:
        self._fail()

    def insert_belief(self, record: BeliefRecord, terms: Counter[str]) -> None:
        self._fail()

    def update_belief(self, belief_id: str, **changes: Any) -> None:
        self._fail()

    def quarantine(self, event: QuarantinedEvent) -> None:
        self._fail()

    def record_turn(self, session_id: str, seq: int, turn_id: str, words: str) -> None:
        self._fail()

    def antecedent_words(self, turn_id: str) -> str:
        self._fail()

    def raise_head(self, principal: str, position: int) -> None:
        self._fail()

    def open_session(self, record: SessionRecord) -> None:
        self._fail()

    def update_session(self, session_id: str, **changes: Any) -> None:
        self._fail()


def _samples() -> list[Any]:
    session = Session(
        id=uuid4(), tenant="t", principal="p", project="general", opened_at="2026-03-02T09:00:00Z"
    )
    session.record_turn(
        turn_id="x",
        role="user",
        text="I live in Oslo.",
        trusted=True,
        at="2026-03-02T09:00:00Z",
        redactions=[],
        hazards=[],
    )
    session.establish_facts(facts=[], at="2026-03-02T09:00:30Z")
    session.take_session_snapshot(
        FrozenSnapshot(
            trace_id="r",
            watermark=0,
            belief_ids=[],
            lines=[],
            prefix="",
            prefix_digest="",
            taken_at="2026-03-02T09:00:30Z",
            trace_expires_at="2026-03-03T09:00:30Z",
            policy="retrieval@1",
        )
    )
    session.close(at="2026-03-02T09:01:00Z", trigger="session_close")
    principal = PrincipalMemory(tenant="t", principal="p")
    principal.request_confirmation(belief_id="a", partner_id="b", at="2026-03-02T09:01:00Z")
    principal.record_consolidation(
        session_id="s",
        trigger="session_close",
        policy="formation@1",
        extractor="e",
        counts={},
        at="2026-03-02T09:01:00Z",
    )
    principal.record_decay_sweep(at="2026-03-02T09:02:00Z", decayed=0, retired=0, policy="f")
    principal.record_rederivation(
        policy="formation@4",
        session_ids=["s"],
        formed=0,
        retired=0,
        superseded=0,
        unchanged=0,
        at="2026-03-02T09:03:00Z",
    )
    return [*session.collect_events(), *principal.collect_events()]


def _event_kinds() -> set[type[Any]]:
    """Every event class the aggregates define: what the log can hold."""
    # The library's generated bases, never recorded (a Session is created by Opened).
    bases = {PrincipalMemory.Event, Session.Event, Session.Created}
    return {
        kind
        for aggregate in (PrincipalMemory, Session)
        for kind in vars(aggregate).values()
        if isinstance(kind, type) and issubclass(kind, Aggregate.Event) and kind not in bases
    }


def test_every_event_kind_the_runner_does_not_read_is_one_the_projector_ignores() -> None:
    # The projector names what it reads by stored topic; each names an event class.
    projected = {resolve_topic(topic) for topic in HANDLERS}
    skipped = _event_kinds() - projected
    every = _samples()
    samples = [e for e in every if type(e) in skipped]
    assert {type(e) for e in samples} == skipped  # a new kind needs a sample here
    for event in samples:
        project_event(event, 1, _Untouchable())
    assert set(PROJECTED_TOPICS) == {get_topic(kind) for kind in projected} == set(HANDLERS)
    assert projected <= _event_kinds()
    # The tripwire works: an event the projector reads does touch the writer.
    created = next(e for e in every if isinstance(e, PrincipalMemory.Created))
    with pytest.raises(AssertionError, match="skipped event"):
        project_event(created, 1, _Untouchable())


def test_the_lean_log_read_builds_the_events_the_mapper_builds(
    persistent_store_url: str, clock: FixedClock
) -> None:
    with memory_es.open(persistent_store_url, clock=clock, ids=memory_es.SequentialIds()) as m:
        play(m, clock)
        runner = m.runner
        assert runner._read != runner._library_page  # the SQL stores take the lean path
        head = runner.log_head()
        for after, limit in ((0, 10_000), (0, 7), (11, 5), (head - 3, 10)):
            lean = runner._read(after, head, limit)
            library = runner._library_page(after, head, limit)
            assert lean and [p for p, _ in lean] == [p for p, _ in library]
            for (_, ours), (_, theirs) in zip(lean, library, strict=True):
                assert type(ours) is type(theirs)
                assert str(ours.originator_id) == str(theirs.originator_id)
                expected = {**vars(theirs), "originator_id": str(theirs.originator_id)}
                # The lean read opens only the sealed text the projector reads
                # (sealing.projected): a fact's, a rendering's or a user's turn's text
                # stays in its box, unopened.
                topic = f"{type(theirs).__module__}:{type(theirs).__qualname__}"
                if topic in SEALED and not projected(topic, vars(theirs)):
                    for field in SEALED[topic].fields:
                        expected.pop(field, None)
                assert {**vars(ours), "originator_id": str(ours.originator_id)} == expected


def test_the_lean_log_read_of_one_originator_is_the_librarys_read_filtered(
    persistent_store_url: str, clock: FixedClock
) -> None:
    """The as-of-position fold reads one principal's events in SQL (the stored events'
    key leads with the originator): the same events, in the same order, as the whole
    log's read filtered by originator."""
    with memory_es.open(persistent_store_url, clock=clock, ids=memory_es.SequentialIds()) as m:
        play(m, clock)
        alice = principal_aggregate_id(principal="alice")
        one = ProjectionRunner(m.app.recorder, m.app.mapper, m.index, originators=[alice])
        assert one._read != one._library_page and one._keep is None
        head = one.log_head()
        for after, limit in ((0, 10_000), (0, 3), (9, 4)):
            lean = one._read(after, head, limit)
            library = [
                (p, e)
                for p, e in m.runner._library_page(after, head, 10_000)
                if e.originator_id == alice
            ][:limit]
            assert lean and [p for p, _ in lean] == [p for p, _ in library]
            assert {str(e.originator_id) for _, e in lean} == {str(alice)}
