"""The lifecycle on every store: decay and retirement (gate.memory.decay_lifecycle), usage feedback
(gate.memory.usage_feedback), conflict confirmation, and L1 reversible deactivation (the RFC's
acceptance criteria), with the profile knobs each reads.

A mixin for the ``TestXStore`` classes: it uses their ``url`` and ``clock`` fixtures and
opens its own store with an extractor that reads conversation as *inferences* — every
proposal of the clause extractor at INFERRED, so it enters PROVISIONAL at the inferred
confidence through the real formation path — except turns opening with ``DIRECT``, which
stay direct statements at USER authority.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from datetime import timedelta
from typing import Any, ClassVar

import pytest

import memory_es
from memory_es.domain.principal import PrincipalMemory
from memory_es.domain.session import SESSION_IDLE_SECONDS
from memory_es.domain.values import Authority, principal_aggregate_id
from memory_es.errors import UsageError
from memory_es.formation.extractor import ClauseExtractor, Proposal, SourceTurn
from memory_es.ports import FixedClock, iso
from memory_es.profiles import load_profile
from memory_es.projections.records import BeliefRecord
from tests.context_conformance import spoken

DAY = 86400
DIRECT = "For the record: "
PRINCIPAL = "ana"


class InferringExtractor:
    """The clause extractor's readings as inferences (``DIRECT`` turns stay USER)."""

    name = "test-inferring"

    def __init__(self) -> None:
        self._clauses = ClauseExtractor()

    def extract(self, turns: Sequence[SourceTurn]) -> list[Proposal]:
        out: list[Proposal] = []
        for turn in turns:
            direct = turn.text.startswith(DIRECT)
            view = replace(turn, text=turn.text.removeprefix(DIRECT))
            for proposal in self._clauses.extract([view]):
                authority = None if direct else Authority.INFERRED
                out.append(replace(proposal, source=turn, authority=authority))
        return out


def say_session(memory: memory_es.Memory, clock: FixedClock, *turns: str) -> str:
    return spoken(memory, clock, PRINCIPAL, *turns)


def by_statement(memory: memory_es.Memory, statement: str) -> BeliefRecord:
    rows = [b for b in memory.list_beliefs(PRINCIPAL) if b.statement == statement]
    assert len(rows) == 1, (statement, [b.statement for b in memory.list_beliefs(PRINCIPAL)])
    return rows[0]


def live(memory: memory_es.Memory, statement: str) -> BeliefRecord:
    rows = [
        b
        for b in memory.list_beliefs(PRINCIPAL)
        if b.statement == statement and b.status in ("active", "provisional")
    ]
    assert len(rows) == 1, statement
    return rows[0]


def principal_events(memory: memory_es.Memory, kind: type[Any]) -> list[Any]:
    events = memory.app.events.get(principal_aggregate_id(principal=PRINCIPAL))
    return [e for e in events if isinstance(e, kind)]


def recalled(memory: memory_es.Memory, query: str, **kwargs: Any) -> list[str]:
    return [i.record.statement for i in memory.recall(PRINCIPAL, query, **kwargs).items]


JAZZ = "User likes jazz."
TEA = "User prefers tea."
OSLO = "User lives in Oslo."


class LifecycleConformance:
    """Cases every store must pass identically (mixed into the store test classes)."""

    @contextmanager
    def opened(
        self, url: str, clock: FixedClock, overlay: dict[str, Any] | None = None
    ) -> Iterator[memory_es.Memory]:
        with memory_es.open(
            url,
            clock=clock,
            ids=memory_es.SequentialIds(),
            extractor=InferringExtractor(),
            profile=load_profile(overlay),
        ) as memory:
            yield memory

    @pytest.fixture
    def lifecycle(self, url: str, clock: FixedClock) -> Iterator[memory_es.Memory]:
        with self.opened(url, clock) as memory:
            yield memory

    # -- formation at each tier ---------------------------------------------------------

    def test_inferences_enter_provisional_and_direct_statements_at_user(
        self, lifecycle: memory_es.Memory, clock: FixedClock
    ) -> None:
        say_session(lifecycle, clock, "I like jazz.", DIRECT + "I live in Oslo.")
        jazz, oslo = by_statement(lifecycle, JAZZ), by_statement(lifecycle, OSLO)
        assert (jazz.authority, jazz.status, jazz.confidence) == (1, "provisional", 0.6)
        assert (oslo.authority, oslo.status) == (3, "active")

    def test_remember_is_affirmed_and_from_user_is_user_and_neither_decays(
        self, lifecycle: memory_es.Memory, clock: FixedClock
    ) -> None:
        tool = lifecycle.remember(PRINCIPAL, "The deploy window is Friday")
        user = lifecycle.remember(PRINCIPAL, "My favourite number is seven", from_user=True)
        affirmed = lifecycle.index.get(tool.formed[0])
        stated = lifecycle.index.get(user.formed[0])
        assert affirmed is not None and stated is not None
        assert (affirmed.authority, stated.authority) == (2, 3)
        clock.advance(5 * 365 * DAY)
        for _ in range(3):
            report = lifecycle.run_maintenance()
            assert report.decay.eligible == 0
            clock.advance(2 * DAY)
        assert lifecycle.index.get(tool.formed[0]) == affirmed
        assert lifecycle.index.get(user.formed[0]) == stated

    def test_corroboration_raises_an_inference_to_the_maximum_and_promotes_it(
        self, lifecycle: memory_es.Memory, clock: FixedClock
    ) -> None:
        memory = lifecycle
        seen = []
        for _ in range(4):
            say_session(memory, clock, "I like jazz.")
            jazz = by_statement(memory, JAZZ)
            seen.append((jazz.confidence, jazz.status))
            clock.advance(DAY)
        # Stated again in another turn, an inference is corroborated: the maximum at two
        # pieces of evidence, so a re-stated belief is never decay-eligible.
        assert seen == [
            (0.6, "provisional"),
            (0.8, "active"),
            (0.8, "active"),
            (0.8, "active"),
        ]
        assert jazz.authority == 1 and jazz.evidence_count == 4
        clock.advance(400 * DAY)  # corroborated to the maximum: no longer decays
        assert memory.run_maintenance().decay.eligible == 0

    def test_a_restated_inference_is_not_decay_eligible_however_long_it_idles(
        self, lifecycle: memory_es.Memory, clock: FixedClock
    ) -> None:
        memory = lifecycle
        say_session(memory, clock, "I like jazz.", "I prefer tea.")
        clock.advance(DAY)
        say_session(memory, clock, "I like jazz.")  # re-stated once
        for _ in range(6):
            clock.advance(400 * DAY)
            report = memory.run_maintenance().decay
            assert by_statement(memory, JAZZ).belief_id not in report.decayed + report.retired
        jazz = by_statement(memory, JAZZ)
        assert (jazz.status, jazz.confidence) == ("active", 0.8)
        assert by_statement(memory, TEA).status == "retired"  # stated once: forgotten
        assert recalled(memory, "jazz") == [JAZZ]

    def test_new_evidence_restores_what_decay_took(
        self, lifecycle: memory_es.Memory, clock: FixedClock
    ) -> None:
        memory = lifecycle
        say_session(memory, clock, "I like jazz.")
        for _ in range(3):
            clock.advance(400 * DAY)
            memory.run_maintenance()
        assert by_statement(memory, JAZZ).confidence == 0.3
        say_session(memory, clock, "I like jazz.")
        assert by_statement(memory, JAZZ).confidence == 0.8

    # -- gate.memory.decay_lifecycle ----------------------------------------

    def test_decay_lifecycle_unused_provisional_beliefs_decay_and_retire(
        self, lifecycle: memory_es.Memory, clock: FixedClock
    ) -> None:
        """An idle provisional belief loses confidence and one below the floor retires
        with its validity closed, while an active user-stated belief and a recently
        reinforced belief are untouched."""
        memory = lifecycle
        say_session(memory, clock, "I like jazz.", "I prefer tea.", DIRECT + "I live in Oslo.")
        clock.advance(370 * DAY)  # past the preference tau (365 days)
        say_session(memory, clock, "I prefer tea.")  # reinforced: fresh evidence
        jazz, tea, oslo = (by_statement(memory, s) for s in (JAZZ, TEA, OSLO))
        head = memory.head_position(PRINCIPAL)

        report = memory.run_maintenance()
        assert report.decay.decayed == [jazz.belief_id] and report.decay.retired == []
        decayed = memory.index.get(jazz.belief_id)
        assert decayed is not None
        assert decayed.confidence == 0.5
        assert decayed.position == jazz.position  # a quiet change keeps its position
        assert memory.head_position(PRINCIPAL) == head
        assert memory.index.get(tea.belief_id) == tea
        assert memory.index.get(oslo.belief_id) == oslo

        # A second run at the same instant changes nothing.
        again = memory.run_maintenance()
        assert again.decay.eligible == 0 and memory.index.get(jazz.belief_id) == decayed

        confidences = []
        for _ in range(4):
            clock.advance(DAY)  # one sweep interval
            memory.run_maintenance()
            current = memory.index.get(jazz.belief_id)
            assert current is not None
            confidences.append(current.confidence)
        assert confidences == [0.4, 0.3, 0.2, 0.1]
        retired = memory.index.get(jazz.belief_id)
        assert retired is not None
        assert retired.status == "retired"
        assert retired.valid_to == iso(clock.now())
        assert retired.position > jazz.position  # retirement takes a fresh position
        assert memory.head_position(PRINCIPAL) == retired.position
        assert memory.index.get(oslo.belief_id) == oslo
        assert [e.reason for e in principal_events(memory, PrincipalMemory.BeliefRetired)] == [
            "decay"
        ]

        # Reachable only through historical reads, with the stale penalty.
        assert JAZZ not in recalled(memory, "jazz")
        historical = memory.recall(PRINCIPAL, "jazz", include_superseded=True).items
        assert [i.record.belief_id for i in historical] == [jazz.belief_id]
        assert historical[0].components.stale_penalty > 0
        as_of = memory.recall(PRINCIPAL, "jazz", as_of=clock.now() - timedelta(days=2)).items
        assert [i.record.belief_id for i in as_of] == [jazz.belief_id]

        # New evidence revives the statement: the same belief, standing on its first
        # evidence and the new (corroborated: the inferred maximum, active), valid again,
        # at a fresh position a session's delta reports.
        clock.advance(DAY)
        say_session(memory, clock, "I like jazz.")
        revived = live(memory, JAZZ)
        assert revived.belief_id == jazz.belief_id
        assert set(jazz.source_event_ids) < set(revived.source_event_ids)
        assert (revived.status, revived.confidence, revived.valid_to) == ("active", 0.8, None)
        assert revived.evidence_count == 2 and revived.last_evidence_at > jazz.last_evidence_at
        assert revived.position > retired.position
        assert memory.head_position(PRINCIPAL) >= revived.position
        assert len(principal_events(memory, PrincipalMemory.BeliefRevived)) == 1
        assert recalled(memory, "jazz") == [JAZZ]
        assert len(memory.list_beliefs(PRINCIPAL)) == 3  # no second copy formed
        assert memory.stats(PRINCIPAL)["beliefs_revived"] == 1
        before = memory.index.dump()
        memory.rebuild_projections()  # the read model is the events'
        assert memory.index.dump() == before

    def test_decay_never_moves_a_session_idle_boundary(
        self, lifecycle: memory_es.Memory, clock: FixedClock
    ) -> None:
        memory = lifecycle
        say_session(memory, clock, "I like jazz.")
        clock.advance(400 * DAY)
        open_session = memory.open_session(PRINCIPAL)
        memory.say(open_session, "Hello there.")
        before = memory.session(open_session).last_activity_at
        clock.advance(SESSION_IDLE_SECONDS - 60)
        report = memory.run_maintenance()
        assert report.decay.decayed and not report.idle.closed
        session = memory.session(open_session)
        assert session.last_activity_at == before and not session.is_closed
        # The boundary is where it was: the session goes idle on its own last turn.
        clock.advance(60)
        assert [c.session_id for c in memory.run_maintenance().idle.closed] == [open_session]

    def test_decay_reads_least_recently_evidenced_first_bounded_by_max_per_sweep(
        self, url: str, clock: FixedClock
    ) -> None:
        with self.opened(url, clock, {"formation": {"decay": {"max_per_sweep": 1}}}) as memory:
            say_session(memory, clock, "I like jazz.")
            clock.advance(DAY)
            say_session(memory, clock, "I prefer tea.")
            clock.advance(400 * DAY)
            first = memory.run_maintenance().decay
            assert first.eligible == 1 and first.decayed == [by_statement(memory, JAZZ).belief_id]
            second = memory.run_maintenance().decay  # jazz was touched within the interval
            assert second.decayed == [by_statement(memory, TEA).belief_id]

    def test_decay_knobs_are_read_from_the_profile(self, url: str, clock: FixedClock) -> None:
        overlay = {
            "formation": {"decay": {"step": 0.25, "floor_confidence": 0.3}},
            "retrieval": {"decay_tau_days": {"preference": 10.0}},
        }
        with self.opened(url, clock, overlay) as memory:
            say_session(memory, clock, "I like jazz.")
            clock.advance(9 * DAY)
            assert memory.run_maintenance().decay.eligible == 0  # tau 10 days
            clock.advance(2 * DAY)
            memory.run_maintenance()
            assert by_statement(memory, JAZZ).confidence == 0.35
            clock.advance(DAY)
            memory.run_maintenance()  # 0.1 < floor 0.3: retired
            assert by_statement(memory, JAZZ).status == "retired"

    def test_the_decay_schedule_is_read_from_the_profile(self, url: str, clock: FixedClock) -> None:
        with self.opened(url, clock, {"formation": {"scheduled_enabled": False}}) as memory:
            say_session(memory, clock, "I like jazz.")
            clock.advance(400 * DAY)
            report = memory.run_maintenance()
            assert not report.decay.enabled and by_statement(memory, JAZZ).confidence == 0.6

    def test_the_sweep_interval_is_read_from_the_profile(self, url: str, clock: FixedClock) -> None:
        interval = {"formation": {"scheduled_interval_seconds": 7 * DAY}}
        with self.opened(url, clock, interval) as memory:
            say_session(memory, clock, "I like jazz.")
            clock.advance(400 * DAY)
            memory.run_maintenance()
            assert by_statement(memory, JAZZ).confidence == 0.5
            clock.advance(3 * DAY)
            memory.run_maintenance()  # touched 3 days ago, the interval is 7
            assert by_statement(memory, JAZZ).confidence == 0.5
            clock.advance(4 * DAY)
            memory.run_maintenance()
            assert by_statement(memory, JAZZ).confidence == 0.4

    def test_a_pinned_belief_never_decays(
        self, lifecycle: memory_es.Memory, clock: FixedClock
    ) -> None:
        say_session(lifecycle, clock, "I like jazz.")
        jazz = lifecycle.pin(by_statement(lifecycle, JAZZ).short_id, principal=PRINCIPAL)
        assert jazz.pinned
        clock.advance(400 * DAY)
        assert lifecycle.run_maintenance().decay.eligible == 0
        lifecycle.unpin(jazz.belief_id)
        assert lifecycle.run_maintenance().decay.decayed == [jazz.belief_id]

    def test_a_dry_run_writes_nothing(self, lifecycle: memory_es.Memory, clock: FixedClock) -> None:
        say_session(lifecycle, clock, "I like jazz.")
        clock.advance(400 * DAY)
        before = lifecycle.index.dump()
        head = lifecycle.runner.log_head()
        report = lifecycle.run_maintenance(dry_run=True)
        assert report.decay.decayed == [by_statement(lifecycle, JAZZ).belief_id]
        assert lifecycle.index.dump() == before and lifecycle.runner.log_head() == head

    # -- gate.memory.usage_feedback -----------------------------------------

    def test_usage_feedback_citing_a_belief_resists_decay_and_never_raises_confidence(
        self, lifecycle: memory_es.Memory, clock: FixedClock
    ) -> None:
        """A belief whose short id appears in a completed run's final message is marked
        cited on its trace, gains utility and a fresh usage instant, and keeps its
        confidence exactly; a returned-but-uncited belief loses utility; repeating the
        completion changes nothing."""
        memory = lifecycle
        say_session(memory, clock, "I like jazz.", "I prefer tea.")
        clock.advance(300 * DAY)
        jazz, tea = by_statement(memory, JAZZ), by_statement(memory, TEA)
        session = memory.open_session(PRINCIPAL)
        snapshot = memory.session(session).session_snapshot
        assert snapshot is not None
        assert set(snapshot["belief_ids"]) == {jazz.belief_id, tea.belief_id}
        memory.context(session, "What music do I like?")
        clock.advance(60)
        final = f"You like jazz [m:{jazz.short_id}]."
        receipt = memory.record_usage(session, "run-1", final)
        assert receipt.recorded and receipt.cited == (jazz.belief_id,)
        assert receipt.uncited == (tea.belief_id,)

        cited = memory.index.get(jazz.belief_id)
        uncited = memory.index.get(tea.belief_id)
        assert cited is not None and uncited is not None
        assert cited.utility == 0.1 and cited.last_used_at == iso(clock.now())
        assert cited.confidence == jazz.confidence
        assert cited.last_evidence_at == jazz.last_evidence_at
        assert cited.position == jazz.position
        assert uncited.utility == -0.02 and uncited.confidence == tea.confidence
        traces = [memory.trace(t) for t in receipt.traces]
        assert len(traces) == 2  # the snapshot trace and the context pack's in-turn trace
        assert all(t is not None and t.cited == (jazz.belief_id,) for t in traces)

        # Repeating the completion changes nothing.
        dump = memory.index.dump()
        repeat = memory.record_usage(session, "run-1", final)
        assert not repeat.recorded and memory.index.dump() == dump
        assert len(principal_events(memory, PrincipalMemory.UsageRecorded)) == 1

        # The usage clock resists decay: 370 days without evidence, 70 since the citation.
        clock.advance(70 * DAY)
        report = memory.run_maintenance()
        assert report.decay.decayed == [tea.belief_id]
        assert memory.index.get(jazz.belief_id) == cited

        # Utility reaches the ranking's utility term.
        scored = {i.record.belief_id: i for i in memory.recall(PRINCIPAL, "jazz tea").items}
        assert scored[jazz.belief_id].components.utility == 0.1
        assert scored[tea.belief_id].components.utility == -0.02

    def test_utility_is_bounded_and_the_deltas_are_read_from_the_profile(
        self, url: str, clock: FixedClock
    ) -> None:
        overlay = {
            "retrieval": {"usage": {"cited_utility_delta": 0.6, "uncited_utility_delta": 0.7}}
        }
        with self.opened(url, clock, overlay) as memory:
            say_session(memory, clock, "I like jazz.", "I prefer tea.")
            jazz = by_statement(memory, JAZZ)
            session = memory.open_session(PRINCIPAL)
            for run in ("a", "b"):
                memory.record_usage(session, run, f"[m:{jazz.short_id}]")
            assert by_statement(memory, JAZZ).utility == 1.0
            assert by_statement(memory, TEA).utility == -1.0

    def test_a_citation_of_nothing_returned_credits_nothing(
        self, lifecycle: memory_es.Memory, clock: FixedClock
    ) -> None:
        say_session(lifecycle, clock, "I like jazz.")
        session = lifecycle.open_session(PRINCIPAL, snapshot=False)
        receipt = lifecycle.record_usage(
            session, "r", f"[m:{by_statement(lifecycle, JAZZ).short_id}]"
        )
        assert receipt.cited == () and receipt.uncited == ()
        assert by_statement(lifecycle, JAZZ).utility == 0.0

    # -- conflict confirmation -----------------------------------------------------------

    def test_confirming_a_conflict_supersedes_the_partner_and_closes_both_ends(
        self, lifecycle: memory_es.Memory, clock: FixedClock
    ) -> None:
        memory = lifecycle
        say_session(memory, clock, DIRECT + "I live in Oslo.")
        clock.advance(DAY)
        say_session(memory, clock, "I live in Bergen.")  # an inference contradicting the user
        oslo, bergen = by_statement(memory, OSLO), by_statement(memory, "User lives in Bergen.")
        assert bergen.conflicts_with == (oslo.belief_id,) and oslo.status == "active"
        pending = memory.conflicts(PRINCIPAL)
        assert {p.belief.belief_id for p in pending} == {oslo.belief_id, bergen.belief_id}
        stats = memory.stats(PRINCIPAL)
        assert (stats["conflicts_committed"], stats["confirmations_requested"]) == (1, 1)

        confirmed = memory.confirm(bergen.short_id, principal=PRINCIPAL)  # the user: Bergen
        assert (confirmed.authority, confirmed.status) == (3, "active")
        assert confirmed.conflicts_with == ()
        old = memory.index.get(oslo.belief_id)
        assert old is not None
        assert (old.status, old.successor_id, old.conflicts_with) == (
            "superseded",
            bergen.belief_id,
            (),
        )
        assert memory.conflicts(PRINCIPAL) == []
        assert recalled(memory, "where do I live") == ["User lives in Bergen."]
        assert len(principal_events(memory, PrincipalMemory.ConflictConfirmed)) == 1
        assert memory.stats(PRINCIPAL)["confirmations_settled"] == 1
        with pytest.raises(UsageError):
            memory.confirm(bergen.belief_id)  # nothing awaits confirmation any more

    # -- L1: the RFC's acceptance criteria -------------------------------------------------

    L1_ON: ClassVar[dict[str, Any]] = {"lifecycle": {"l1": {"enabled": True, "retention_days": 30}}}
    EPISODE = "User went to a support group at the library."

    def test_l1_with_every_option_disabled_changes_nothing_and_reports_a_dry_run(
        self, lifecycle: memory_es.Memory, clock: FixedClock
    ) -> None:
        say_session(lifecycle, clock, DIRECT + "I went to a support group at the library.")
        clock.advance(200 * DAY)
        dump = lifecycle.index.dump()
        report = lifecycle.run_maintenance()
        assert not report.l1.enabled and report.l1.dry_run
        assert report.l1.candidates == [by_statement(lifecycle, self.EPISODE).belief_id]
        assert report.l1.deactivated == [] and lifecycle.index.dump() == dump

    def test_l1_deactivates_only_low_expired_unprotected_beliefs_with_auto_decay(
        self, url: str, clock: FixedClock
    ) -> None:
        with self.opened(url, clock, self.L1_ON) as memory:
            say_session(
                memory,
                clock,
                DIRECT + "I went to a support group at the library.",
                DIRECT + "I visited the lighthouse in the morning.",
                DIRECT + "I live in Oslo.",
            )
            episode = by_statement(memory, self.EPISODE)
            pinned = by_statement(memory, "User visited the lighthouse in the morning.")
            assert (
                episode.importance,
                pinned.importance,
                by_statement(memory, OSLO).importance,
            ) == (
                0,
                0,
                1,
            )
            memory.pin(pinned.belief_id)
            clock.advance(20 * DAY)
            assert memory.run_maintenance().l1.candidates == []  # not yet expired
            # Low-importance beliefs remain eligible for ordinary recall.
            assert self.EPISODE in recalled(memory, "support group")
            clock.advance(20 * DAY)
            report = memory.run_maintenance()
            assert report.l1.deactivated == [episode.belief_id]
            gone = memory.index.get(episode.belief_id)
            assert gone is not None and gone.status == "inactive"
            assert self.EPISODE not in recalled(memory, "support group")
            events = principal_events(memory, PrincipalMemory.BeliefDeactivated)
            assert [(e.belief_id, e.reason) for e in events] == [
                (episode.belief_id, "auto_decay:v1")
            ]
            # Idempotent: a second run at the same instant changes nothing.
            dump = memory.index.dump()
            assert memory.run_maintenance().l1.deactivated == []
            assert memory.index.dump() == dump
            assert memory.stats(PRINCIPAL)["deactivations"] == 1

            # Recoverable: the same belief, no new statement, a new lifecycle interval.
            back = memory.reactivate(episode.short_id, principal=PRINCIPAL)
            assert (back.belief_id, back.statement, back.status) == (
                episode.belief_id,
                episode.statement,
                episode.status,
            )
            assert back.interval_started_at == iso(clock.now())
            assert len(memory.list_beliefs(PRINCIPAL)) == 3
            assert memory.run_maintenance().l1.deactivated == []  # its interval restarted
            assert self.EPISODE in recalled(memory, "support group")
            assert memory.stats(PRINCIPAL)["reactivations"] == 1
            with pytest.raises(UsageError):
                memory.reactivate(episode.belief_id)  # it is not deactivated

    def test_l1_spares_a_belief_with_an_unresolved_inbound_relation(
        self, url: str, clock: FixedClock
    ) -> None:
        overlay = {
            "lifecycle": {"l1": {"enabled": True, "retention_days": 30, "importance_floor": 1}}
        }
        with self.opened(url, clock, overlay) as memory:
            say_session(memory, clock, DIRECT + "I live in Oslo.", DIRECT + "I like tea.")
            say_session(memory, clock, "I live in Bergen.")
            clock.advance(60 * DAY)
            report = memory.run_maintenance()
            assert report.l1.deactivated == [by_statement(memory, "User likes tea.").belief_id]
            assert by_statement(memory, OSLO).status == "active"

    def test_session_end_deactivates_session_tier_beliefs_recoverably(
        self, lifecycle: memory_es.Memory, clock: FixedClock
    ) -> None:
        memory = lifecycle
        say_session(memory, clock, "I prefer tea.")
        session = say_session(
            memory, clock, "I like jazz.", "I prefer tea.", DIRECT + "I live in Oslo."
        )
        ended = memory.end_session(session)
        jazz = by_statement(memory, JAZZ)
        assert ended == [jazz.belief_id] and jazz.status == "inactive"
        # Corroborated across sessions (tea: the inferred maximum, active) and direct
        # statements (Oslo) are not session-tier.
        assert by_statement(memory, TEA).status == "active"
        assert by_statement(memory, OSLO).status == "active"
        reasons = [e.reason for e in principal_events(memory, PrincipalMemory.BeliefDeactivated)]
        assert reasons == ["session_end"]
        assert memory.reactivate(jazz.belief_id).status == "provisional"
        open_one = memory.open_session(PRINCIPAL)
        with pytest.raises(UsageError):
            memory.end_session(open_one)

    def test_l1_knobs_are_read_from_the_profile(self, url: str, clock: FixedClock) -> None:
        overlay = {"lifecycle": {"l1": {"enabled": True, "retention_days": 5, "max_per_sweep": 1}}}
        with self.opened(url, clock, overlay) as memory:
            say_session(memory, clock, DIRECT + "I went to a support group at the library.")
            say_session(memory, clock, DIRECT + "I visited the lighthouse in the morning.")
            clock.advance(6 * DAY)
            assert len(memory.run_maintenance().l1.deactivated) == 1
            assert len(memory.run_maintenance().l1.deactivated) == 1

    def test_lifecycle_state_is_rebuilt_from_the_log(self, url: str, clock: FixedClock) -> None:
        with self.opened(url, clock, self.L1_ON) as memory:
            say_session(
                memory, clock, "I like jazz.", DIRECT + "I went to a support group at the library."
            )
            session = memory.open_session(PRINCIPAL)
            memory.record_usage(session, "r1", f"[m:{by_statement(memory, JAZZ).short_id}]")
            memory.pin(by_statement(memory, JAZZ).belief_id)
            clock.advance(400 * DAY)
            memory.unpin(by_statement(memory, JAZZ).belief_id)
            memory.run_maintenance()
            before = memory.index.dump()
            memory.rebuild_projections()
            assert memory.index.dump() == before

    # -- stats -------------------------------------------------------------------------------

    def test_stats_count_the_lifecycle_from_the_log_without_statements(
        self, lifecycle: memory_es.Memory, clock: FixedClock
    ) -> None:
        memory = lifecycle
        say_session(memory, clock, "I like jazz.", "I prefer tea.")
        session = memory.open_session(PRINCIPAL)
        memory.record_usage(
            session, "r1", f"[m:{by_statement(memory, JAZZ).short_id}] [m:ffffffff]"
        )
        clock.advance(400 * DAY)
        memory.run_maintenance()
        stats = memory.stats(PRINCIPAL)
        for key in (
            "decay_sweeps",
            "beliefs_decayed",
            "beliefs_retired",
            "citations_recorded",
            "citations_ambiguous",
            "conflicts_committed",
            "confirmations_requested",
            "deactivations",
            "reactivations",
            "trace_expiries",
            "quarantined_events",
        ):
            assert type(stats[key]) is int
        assert (stats["decay_sweeps"], stats["beliefs_decayed"], stats["citations_recorded"]) == (
            1,
            2,
            1,
        )
        assert stats["trace_expiries"] == 1  # the snapshot trace, past its retention
        assert memory.stats("nobody")["beliefs_decayed"] == 0
        assert memory.stats()["beliefs_decayed"] == 2
        assert "jazz" not in repr(stats).lower()
