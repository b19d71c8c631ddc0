"""Reliability cases every store runs: what the log accepts, what the projector
does with an event it cannot apply, identity across tenants and principals; and, for the
stores that outlive a process, writers and first opens racing in real processes."""

from __future__ import annotations

import json
import unicodedata
import uuid
from collections.abc import Callable
from typing import Any

import pytest

import memory_es
from memory_es.benchmarks.reliability.store_probes import (
    CLOSES,
    SEQUENTIAL_SESSIONS,
    WRITERS,
    close_writer,
    force_unappliable_events,
    race,
    sequential_writer,
    told,
)
from memory_es.domain.values import PRINCIPAL_NAMESPACE
from memory_es.errors import InvalidInput, UnknownBelief, UsageError
from memory_es.formation.established import EstablishedFact
from memory_es.ports import FixedClock, iso

REFUSED = ("NUL \x00 byte", "bell \x07", "escape \x1b[31m", "C1 \x85 next line", "DEL \x7f")
PINNED_TOPIC = "memory_es.domain.principal:PrincipalMemory.BeliefPinned"
FORMED_TOPIC = "memory_es.domain.principal:PrincipalMemory.BeliefFormed"


def _statements(memory: memory_es.Memory, principal: str, **names: Any) -> list[str]:
    return [b.statement for b in memory.list_beliefs(principal, **names)]


class ReliabilityConformance:
    """Needs the ``url``, ``clock`` and ``memory`` fixtures (StoreConformance's)."""

    # -- the log accepts only what every read model can apply ------------------------------

    def test_nul_and_control_characters_are_refused_in_statements_and_names(
        self, memory: memory_es.Memory
    ) -> None:
        session = memory.open_session("ana")
        memory.say(session, "I live in Oslo.")
        head = memory.projection_status().log_head
        for text in REFUSED:
            with pytest.raises(InvalidInput, match="NUL and control characters"):
                memory.remember("ana", f"I like {text}.")
            with pytest.raises(InvalidInput, match="NUL and control characters"):
                memory.establish_facts(session, [EstablishedFact(f"User likes {text}.", ())])
        with pytest.raises(InvalidInput, match="U\\+0000"):
            memory.open_session("an\x00a")
        assert memory.projection_status().log_head == head  # nothing of them was written
        memory.close_session(session)
        assert "User lives in Oslo." in _statements(memory, "ana")
        assert memory.projection_status().quarantined == 0

    def test_a_turn_with_control_characters_is_kept_cleaned_on_every_turn_path(
        self, memory: memory_es.Memory
    ) -> None:
        session = memory.open_session("ana")
        for text in REFUSED:
            receipt = memory.say(session, f"I live in Oslo. {text}")
            assert receipt.cleaned_characters >= 1
            line = json.dumps(
                {"principal": "ana", "session": "s1", "at": "2026-03-02T09:00:00Z", "text": text}
            )
            memory.ingest([line])
        memory.say(session, "I work at Acme.\tTabs\nand newlines stay.")
        memory.close_session(session)
        stored = [t.text for t in memory.session_turns(session)]
        assert stored[0] == "I live in Oslo. NUL \ufffd byte"  # what no store holds: U+FFFD
        assert stored[2] == "I live in Oslo. escape [31m"  # other control characters: gone
        assert stored[-1] == "I work at Acme.\tTabs\nand newlines stay."
        assert "User lives in Oslo." in _statements(memory, "ana")
        assert memory.projection_status().quarantined == 0

    def test_text_is_nfc_normalized_before_it_is_recorded(self, memory: memory_es.Memory) -> None:
        told(memory, "ana", unicodedata.normalize("NFD", "I live in Zürich."))
        assert _statements(memory, "ana") == ["User lives in Zürich."]  # composed
        assert memory.recall("ana", "Zürich").lines()

    # -- the projector quarantines what it cannot apply -----------------------------------

    def test_an_event_the_read_model_cannot_apply_is_quarantined_not_fatal(
        self, url: str, memory: memory_es.Memory, clock: FixedClock
    ) -> None:
        told(memory, "ana", "I live in Oslo.")
        told(memory, "dan", "I live in Kyiv.")
        # In the log past the edge, not yet in the read model: a pin of a belief never
        # formed, a belief formed again under another principal's belief id, a turn with
        # a NUL byte (benchmarks/reliability/store_probes.py).
        session_id = force_unappliable_events(memory, "ana", "dan", "bea", at=iso(clock.now()))
        if memory.spec.persistent:
            memory.close()
            memory = memory_es.open(url, clock=clock)  # open catches up past them
        else:
            memory.catch_up()
        memory.close_session(session_id)
        expected = [PINNED_TOPIC, FORMED_TOPIC]
        if memory.spec.kind == "postgres":
            expected.append(FORMED_TOPIC)  # the NUL statement
        try:
            status = memory.projection_status()
            assert status.tracked_position == status.log_head
            assert sorted(q.topic for q in memory.index.quarantined()) == sorted(expected)
            assert status.quarantined == len(expected)
            assert memory.stats()["quarantined_events"] == len(expected)
            assert memory.recall("ana", "where do I live").lines()
            # Later writes still reach the read model; a rebuild meets them again, skips them.
            told(memory, "cho", "I live in Lima.")
            assert _statements(memory, "cho") == ["User lives in Lima."]
            memory.rebuild_projections()
            assert memory.projection_status().quarantined == len(expected)
            assert _statements(memory, "cho") == ["User lives in Lima."]
            assert "User lives in Oslo." in _statements(memory, "ana")
            assert _statements(memory, "dan") == ["User lives in Kyiv."]
        finally:
            memory.close()

    # -- identity ----------------------------------------------------------------------------

    def test_names_with_slashes_are_separate_principals(self, memory: memory_es.Memory) -> None:
        told(memory, "x/y", "I live in Oslo.", tenant="acme")
        told(memory, "y", "I live in Rome.", tenant="acme/x")
        assert _statements(memory, "x/y", tenant="acme") == ["User lives in Oslo."]
        assert _statements(memory, "y", tenant="acme/x") == ["User lives in Rome."]
        assert memory.recall("x/y", "live", tenant="acme").lines()[0].endswith("Oslo.")
        assert memory.recall("y", "live", tenant="acme/x").lines()[0].endswith("Rome.")

    def test_a_slash_named_principal_of_an_older_store_keeps_its_memory(
        self, memory: memory_es.Memory, clock: FixedClock, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        from memory_es.domain import principal as principal_module
        from memory_es.services import unit_of_work

        def old_key(*, tenant: str = "default", principal: str) -> uuid.UUID:
            return uuid.uuid5(PRINCIPAL_NAMESPACE, f"{tenant}/{principal}")

        with monkeypatch.context() as old_code:  # the aggregate id as it was keyed before
            old_code.setattr(principal_module, "principal_aggregate_id", old_key)
            old_code.setattr(unit_of_work, "principal_aggregate_id", old_key)
            told(memory, "x/y", "I live in Oslo.", tenant="acme")
        memory.services.adapters.evict_cache()
        clock.advance(86400)
        told(memory, "x/y", "I live in Rome now.", tenant="acme")
        beliefs = {b.statement: b for b in memory.list_beliefs("x/y", tenant="acme")}
        # The same aggregate went on: its resolver superseded what it knew.
        assert beliefs["User lives in Oslo."].status == "superseded"
        rome = beliefs["User lives in Rome."]
        assert beliefs["User lives in Oslo."].successor_id == rome.belief_id
        history = memory.belief_history(beliefs["User lives in Oslo."].belief_id)
        assert [e.event for e in history] == ["BeliefFormed", "BeliefSuperseded"]
        memory.pin(rome.belief_id)  # on the old aggregate: its stats count it
        assert memory.stats("x/y", tenant="acme")["pins"] == 1
        # The pair the old key confused with it is a principal of its own.
        told(memory, "y", "I live in Lima.", tenant="acme/x")
        assert _statements(memory, "y", tenant="acme/x") == ["User lives in Lima."]
        assert memory.stats("y", tenant="acme/x")["pins"] == 0
        assert memory.index.get(rome.belief_id).status == "active"  # untouched by it

    def test_a_name_is_one_principal_with_or_without_surrounding_spaces(
        self, memory: memory_es.Memory
    ) -> None:
        told(memory, " dana ", "I live in Oslo.", tenant=" acme")
        assert _statements(memory, "dana", tenant="acme") == ["User lives in Oslo."]
        assert _statements(memory, "dana ", tenant="acme ") == ["User lives in Oslo."]
        assert memory.recall("  dana", "live", tenant="acme").lines()
        assert memory.session(memory.open_session(" dana", tenant="acme")).principal == "dana"

    def test_a_short_id_resolves_only_within_its_principal(self, memory: memory_es.Memory) -> None:
        told(memory, "ana", "I live in Oslo.")
        told(memory, "bea", "I live in Rome.")
        (oslo,) = memory.list_beliefs("ana")
        actions: list[Callable[..., Any]] = [memory.reject, memory.pin, memory.confirm]
        for action in actions:
            with pytest.raises(UsageError, match="--principal"):
                action(oslo.short_id)
            with pytest.raises(UnknownBelief):
                action(oslo.short_id, principal="bea")
            with pytest.raises(UnknownBelief):
                action(oslo.belief_id, principal="bea")
        assert memory.pin(oslo.short_id, principal="ana").pinned
        assert memory.reject(oslo.belief_id).status == "rejected"  # a full id needs none


class ConcurrentProcessConformance:
    """For the stores that outlive a process (the ``url`` fixture): real processes,
    started together (the workloads are the reliability suite's:
    benchmarks/reliability/store_probes.py)."""

    def test_eight_writers_closing_ten_sessions_each_on_one_principal_lose_none(
        self, url: str
    ) -> None:
        memory_es.open(url).close()  # the tables exist before the race
        assert race(close_writer, [(url, w) for w in range(WRITERS)]) == [0] * WRITERS
        with memory_es.open(url) as memory:
            statements = set(_statements(memory, "shared"))
            assert statements == {
                f"User lives in City{w}x{n}." for w in range(WRITERS) for n in range(CLOSES)
            }
            closed = [
                n
                for n in memory.app.recorder.select_notifications(start=None, limit=100_000)
                if n.topic.endswith("ConsolidationRecorded")
            ]
            assert len(closed) == WRITERS * CLOSES
            assert memory.projection_status().quarantined == 0

    def test_two_processes_with_sequential_ids_never_collide(self, url: str) -> None:
        memory_es.open(url).close()
        assert race(sequential_writer, [(url, w) for w in (1, 2)]) == [0, 0]
        with memory_es.open(url) as memory:
            assert memory.projection_status().quarantined == 0
            beliefs = [b for w in (1, 2) for b in memory.list_beliefs(f"p{w}")]
            assert len(beliefs) == 2 * SEQUENTIAL_SESSIONS
            assert len({b.belief_id for b in beliefs}) == len(beliefs)
            assert len({b.short_id for b in beliefs}) == len(beliefs)
