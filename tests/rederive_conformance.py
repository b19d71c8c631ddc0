"""Re-derivation cases of the store conformance suite: ``memory rederive``.

Mixed into every store's test class (memory, SQLite, PostgreSQL). A store is written
under a legacy formation policy (``LegacyExtractor``: no residence rule, and a reading
per turn the current policy no longer makes), then re-derived under today's
(``ClauseExtractor``): the policy is the formation version and the extractor's identity.
"""

from __future__ import annotations

import abc
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

import pytest

import memory_es
from memory_es.domain.principal import PrincipalMemory
from memory_es.domain.values import Authority, BeliefType, principal_aggregate_id
from memory_es.formation.established import EstablishedFact
from memory_es.formation.extractor import ClauseExtractor, Proposal, SourceTurn
from memory_es.policy import formation_policy
from memory_es.ports import FixedClock
from memory_es.services.commands import RederivePrincipal
from tests.conformance import START

DAY = 86400
REASON = f"rederived:{formation_policy()}"
# The clause extractor's identity (it carries its own version: clauses@N).
CLAUSES = ClauseExtractor().name


class LegacyExtractor:
    """An older formation policy: it read residence only from a turn that says "now"
    (a move), and it kept a reading of every turn ("User once said ...") that today's
    policy no longer derives."""

    name = "legacy@1"

    def __init__(self) -> None:
        self._inner = ClauseExtractor()

    def extract(self, turns: Sequence[SourceTurn]) -> list[Proposal]:
        kept = [
            p
            for p in self._inner.extract(turns)
            if "home location" not in p.subjects or "now" in p.source.text
        ]
        readings = [
            Proposal(
                statement=f"User once said {turn.text.rstrip('.!')}.",
                belief_type=BeliefType.FACT,
                subjects=(f"legacy reading {turn.turn_id}",),
                polarity=True,
                source=turn,
            )
            for turn in turns
            if turn.trusted and turn.role == "user"
        ]
        return [*kept, *readings]


class InterruptingExtractor(ClauseExtractor):
    """Today's policy (the same identity), failing the first time it reads ``trip``: a
    re-derivation killed part-way."""

    def __init__(self, trip: str) -> None:
        super().__init__()
        self.trip: str | None = trip

    def extract(self, turns: Sequence[SourceTurn]) -> list[Proposal]:
        if self.trip is not None and any(self.trip in t.text for t in turns):
            self.trip = None
            raise RuntimeError("interrupted")
        return super().extract(turns)


def write_legacy_store(memory: memory_es.Memory, clock: FixedClock) -> dict[str, str]:
    """Two principals' sessions under the legacy policy; the session ids by name."""
    memory.extractor = LegacyExtractor()
    sessions: dict[str, str] = {}
    for name, principal, turns in (
        ("rome", "ana", ("I live in Rome. I have a Vespa.",)),
        ("tea", "bo", ("I live in Oslo. I prefer tea over coffee.",)),
        ("milan", "ana", ("I live in Milan now.",)),
        ("bergen", "bo", ("I live in Bergen now.",)),
    ):
        clock.advance(DAY)
        session = memory.open_session(principal)
        for text in turns:
            clock.advance(60)
            memory.say(session, text)
        memory.close_session(session)
        sessions[name] = session
    return sessions


def beliefs(memory: memory_es.Memory, principal: str) -> dict[str, Any]:
    return {b.statement: b for b in memory.list_beliefs(principal)}


def state(memory: memory_es.Memory, *principals: str) -> set[tuple[Any, ...]]:
    """What re-derivation decides, without ids (a dry run before consumes some)."""
    return {
        (p, b.statement, b.status.value, b.authority, b.valid_from, b.valid_to, b.utility)
        for p in principals
        for b in memory.list_beliefs(p)
    }


def beliefs_by_session(memory: memory_es.Memory, principal: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for b in memory.list_beliefs(principal):
        out.setdefault(b.source_session_id, []).append(b.statement)
    return out


def log_head(memory: memory_es.Memory) -> int:
    return memory.projection_status().log_head


def events_of(memory: memory_es.Memory, principal: str, kind: type[Any]) -> list[Any]:
    return [
        e
        for e in memory.app.events.get(principal_aggregate_id(principal=principal))
        if isinstance(e, kind)
    ]


class RederiveConformance(abc.ABC):
    @abc.abstractmethod
    def store_url(self, tmp_path: Path) -> AbstractContextManager[str]: ...

    @contextmanager
    def legacy_store(self, tmp_path: Path, name: str) -> Iterator[memory_es.Memory]:
        """A store written under the legacy policy, opened with today's."""
        place = tmp_path / name
        place.mkdir()
        clock = FixedClock(START)
        with (
            self.store_url(place) as url,
            memory_es.open(url, clock=clock, ids=memory_es.SequentialIds()) as memory,
        ):
            write_legacy_store(memory, clock)
            memory.extractor = ClauseExtractor()
            clock.advance(DAY)
            yield memory

    # -- the diff, and nothing written ------------------------------------------------------

    def test_rederive_dry_run_prints_the_diff_and_writes_nothing(self, tmp_path: Path) -> None:
        with self.legacy_store(tmp_path, "store") as memory:
            head, dump = log_head(memory), memory.index.dump()
            dry = memory.rederive()
            assert log_head(memory) == head and memory.index.dump() == dump
            assert dry.dry_run and dry.sessions_examined == 4 and dry.sessions_skipped == 0
            ana = next(p for p in dry.principals if p.principal == "default/ana")
            # Today's policy reads the older residence too: it forms superseded by the
            # later one, as in a store that formed the sessions in order (not a conflict).
            assert [c.statement for c in ana.formed] == ["User lives in Rome."]
            assert [c.statement for c in ana.superseded] == ["User lives in Rome."]
            assert [c.statement for c in ana.retired] == [
                "User once said I live in Rome. I have a Vespa.",
                "User once said I live in Milan now.",
            ]
            assert ana.unchanged == 2  # the Vespa and Milan
            keys = dry.as_dict()
            assert (keys["would_form"], keys["would_retire"], keys["unchanged"]) == (2, 4, 4)
            # The dry run decided exactly what the confirmed run then does.
            done = memory.rederive(confirm=True).as_dict()
            assert (done["formed"], done["retired"], done["unchanged"]) == (2, 4, 4)
            assert done["superseded"] == keys["would_supersede"] == 2

    def test_confirm_applies_it_as_events_and_a_second_confirm_writes_nothing(
        self, tmp_path: Path
    ) -> None:
        with self.legacy_store(tmp_path, "store") as memory:
            vespa = beliefs(memory, "ana")["User has a Vespa."]
            milan = beliefs(memory, "ana")["User lives in Milan."]
            memory.rederive(confirm=True)
            ana = beliefs(memory, "ana")
            assert {s: b.status for s, b in ana.items()} == {
                "User has a Vespa.": "active",
                "User once said I live in Rome. I have a Vespa.": "retired",
                "User once said I live in Milan now.": "retired",
                "User lives in Rome.": "superseded",
                "User lives in Milan.": "active",
            }
            # Derived again with the same statement: the same belief, untouched.
            assert ana["User has a Vespa."] == vespa and ana["User lives in Milan."] == milan
            rome = ana["User lives in Rome."]
            assert rome.successor_id == milan.belief_id and rome.valid_to == milan.valid_from
            retired = ana["User once said I live in Milan now."]
            history = memory.belief_history(retired.belief_id)
            assert [h.event for h in history] == ["BeliefFormed", "BeliefRetired"]
            assert history[-1].fields["reason"] == REASON
            (record,) = events_of(memory, "ana", PrincipalMemory.SessionsRederived)
            assert (
                record.policy == f"{formation_policy()}/{CLAUSES}" and len(record.session_ids) == 2
            )
            assert memory.recall("ana", "where do I live").lines()[0].endswith("Milan.")

            head = log_head(memory)
            again = memory.rederive(confirm=True)
            assert log_head(memory) == head
            assert again.sessions_examined == 0 and again.sessions_skipped == 4
            assert not memory.formation_status().pending

    # -- gate.memory.rederive_opt_in ---------------------------------------------------------------

    def test_rederive_opt_in_rederive_replays_rejections_before_it_commits(
        self, tmp_path: Path
    ) -> None:
        with self.legacy_store(tmp_path, "store") as memory:
            # The user rejected a legacy reading and a belief today's policy derives again.
            vespa = beliefs(memory, "ana")["User has a Vespa."]
            memory.reject(vespa.belief_id)
            reading = beliefs(memory, "ana")["User once said I live in Milan now."]
            memory.reject(reading.belief_id)
            dry = memory.rederive(principal="ana")
            assert "User has a Vespa." not in {c.statement for c in dry.principals[0].formed}
            memory.rederive(principal="ana", confirm=True)
            ana = memory.list_beliefs("ana")
            assert [b.statement for b in ana].count("User has a Vespa.") == 1
            statuses = {b.statement: b.status for b in ana}
            assert statuses["User has a Vespa."] == "rejected"
            assert statuses["User once said I live in Milan now."] == "rejected"
            assert memory.recall("ana", "Vespa").lines() == []

    # -- never lost -------------------------------------------------------------------------

    def test_pins_citations_utility_and_remembered_beliefs_survive(self, tmp_path: Path) -> None:
        with self.legacy_store(tmp_path, "store") as memory:
            # The remember tool reads its text as today's rules would (no rule reads the
            # badge number directly: it forms word for word), under the legacy policy.
            memory.remember("ana", "My badge number is 42.")
            memory.remember("ana", "I am allergic to peanuts.", from_user=True)
            memory.extractor = LegacyExtractor()
            # An established fact, backed by a turn today's policy reads nothing from.
            session = memory.open_session("ana")
            turn = memory.say(session, "Our team ships on Fridays.")
            fact = EstablishedFact("User's team ships on Fridays.", (turn.turn_id,))
            memory.establish_facts(session, [fact])
            memory.close_session(session)
            memory.extractor = ClauseExtractor()
            ana = beliefs(memory, "ana")
            pinned = ana["User once said I live in Rome. I have a Vespa."]
            memory.pin(pinned.belief_id)
            vespa, reading = ana["User has a Vespa."], ana["User once said I live in Milan now."]
            session = memory.open_session("ana", snapshot=False)
            shown = memory.recall_in_session(session, "Vespa Milan").items
            assert {vespa.belief_id, reading.belief_id} <= {i.record.belief_id for i in shown}
            receipt = memory.record_usage(
                session, "run-1", f"[m:{vespa.short_id}] [m:{reading.short_id}]"
            )
            assert set(receipt.cited) == {vespa.belief_id, reading.belief_id}
            before = beliefs(memory, "ana")
            memory.rederive(principal="ana", confirm=True)
            after = beliefs(memory, "ana")
            # Remembered (AFFIRMED, and USER from the user) and pinned: kept as they were.
            kept = ("My badge number is 42.", "User's team ships on Fridays.")
            for statement in (*kept, "User is allergic to peanuts."):
                assert after[statement] == before[statement], statement
            assert {after[s].authority for s in kept} == {int(Authority.AFFIRMED)}
            assert after[statement].authority == int(Authority.USER)
            assert after[pinned.statement].status == "active" and after[pinned.statement].pinned
            # Derived again: the same id, utility and citation time.
            assert after["User has a Vespa."] == before["User has a Vespa."]
            assert after["User has a Vespa."].utility > 0
            # Retired: its utility and citation time stay on its row, its events in history.
            gone, cited = after[reading.statement], before[reading.statement]
            assert gone.status == "retired" and cited.utility > 0
            assert (gone.utility, gone.last_used_at) == (cited.utility, cited.last_used_at)
            history = [h.event for h in memory.belief_history(gone.belief_id)]
            assert history == ["BeliefFormed", "BeliefRetired"]

    # -- the version-aware bypass of the same-source shortcut ---------------------------------

    def test_a_session_under_the_current_policy_is_skipped_and_replay_always_reexamines(
        self, tmp_path: Path
    ) -> None:
        with self.legacy_store(tmp_path, "store") as memory:
            clock = memory.clock
            assert isinstance(clock, FixedClock)
            today = memory.open_session("ana")
            clock.advance(60)
            memory.say(today, "I like jazz.")
            memory.close_session(today)  # consolidated under today's policy
            report = memory.rederive(principal="ana", confirm=True)
            assert report.sessions_examined == 2 and report.sessions_skipped == 1
            assert today not in report.principals[0].sessions_examined
            replayed = memory.replay_session(today, confirm=True)
            assert replayed.trigger == "replay" and replayed.counts.same_source == 1

    def test_a_profile_that_turns_on_another_extractor_is_another_policy(
        self, tmp_path: Path
    ) -> None:
        with self.legacy_store(tmp_path, "store") as memory:
            memory.rederive(confirm=True)
            assert not memory.formation_status().pending
            memory.extractor = ClauseExtractor(residue=True)
            status = memory.formation_status()
            assert status.pending and status.stale_sessions == 4
            assert status.current == f"{formation_policy()}/{CLAUSES}+residue"
            assert status.stale_policies == (f"{formation_policy()}/{CLAUSES}",)
            assert memory.rederive(confirm=True).sessions_examined == 4
            assert not memory.formation_status().pending

    # -- resumable -----------------------------------------------------------------------------

    def test_a_principal_rederived_since_its_ledger_was_read_is_not_rederived_twice(
        self, tmp_path: Path
    ) -> None:
        """Another run (another process, or this one's attempt that lost a race and is
        retried) re-derived the principal after the ledger was read: nothing twice."""
        with self.legacy_store(tmp_path, "store") as memory:
            sessions = tuple(s for s, b in beliefs_by_session(memory, "ana").items() if b)
            assert len(sessions) == 2
            memory.rederive(principal="ana", confirm=True)
            head, dump = log_head(memory), memory.index.dump()
            late = RederivePrincipal("default", "ana", sessions, confirm=True, seen_version=0)
            result = memory.services.handle(late)
            assert result.sessions_examined == [] and result.sessions_skipped == 2
            assert log_head(memory) == head and memory.index.dump() == dump
            assert len(events_of(memory, "ana", PrincipalMemory.SessionsRederived)) == 1

    def test_an_interrupted_rederive_resumes_to_the_same_end_state(self, tmp_path: Path) -> None:
        with self.legacy_store(tmp_path, "whole") as whole:
            whole.rederive(confirm=True)
            expected = state(whole, "ana", "bo")
        with self.legacy_store(tmp_path, "cut") as memory:
            memory.extractor = InterruptingExtractor(trip="Bergen")  # bo's second session
            head = log_head(memory)
            with pytest.raises(RuntimeError, match="interrupted"):
                memory.rederive(confirm=True)
            # ana is done (one transaction, recorded); nothing of bo was written.
            assert events_of(memory, "ana", PrincipalMemory.SessionsRederived)
            assert not events_of(memory, "bo", PrincipalMemory.SessionsRederived)
            assert log_head(memory) > head
            status = memory.formation_status()
            assert status.stale_principals == 1 and status.stale_sessions == 2
            resumed = memory.rederive(confirm=True)
            assert resumed.sessions_skipped == 2 and resumed.sessions_examined == 2
            assert state(memory, "ana", "bo") == expected
            head = log_head(memory)
            assert memory.rederive(confirm=True).sessions_examined == 0
            assert log_head(memory) == head
