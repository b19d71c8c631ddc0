"""What the resolver reads: the principal's beliefs at the version the close saves on,
with the batch's own beliefs the read model does not hold yet; never a stale read that
gets saved."""

from __future__ import annotations

from collections.abc import Iterable
from uuid import UUID

import orjson
import pytest

import memory_es
from memory_es.domain.belief_reads import BeliefReads
from memory_es.domain.principal import PrincipalMemory
from memory_es.domain.resolver import Decision, Evidence, Existing, resolve
from memory_es.es_internals import evict_cache
from memory_es.formation import consolidation
from memory_es.services.unit_of_work import UnitOfWork


class ResolverReadsConformance:
    def test_a_batch_resolve_meets_the_beliefs_its_earlier_sessions_formed(
        self, memory: memory_es.Memory, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """An ingest batch is written whole at its end: its second session's resolve
        meets the first session's belief while the read model holds none of it, and
        reinforces it instead of forming it twice."""
        reads: list[tuple[list[str], int]] = []

        def resolve_recording(incoming: Evidence, beliefs: Iterable[Existing]) -> Decision:
            candidates = list(beliefs)
            projected = len(memory.list_beliefs("lea"))
            reads.append(([b.evidence.normalized for b in candidates], projected))
            return resolve(incoming, candidates)

        monkeypatch.setattr(consolidation, "resolve", resolve_recording)
        lines = [
            {"principal": "lea", "session": key, "at": at, "text": "I live in Porto."}
            for key, at in (("first", "2026-03-02T09:00:00Z"), ("second", "2026-03-03T09:00:00Z"))
        ]
        report = memory.ingest([orjson.dumps(line).decode() for line in lines])

        assert reads == [([], 0), (["user lives in porto"], 0)]
        assert (report.formed, report.counts["reinforced"]) == (1, 1)
        (porto,) = memory.list_beliefs("lea")
        assert porto.evidence_count == 2

    def test_the_resolve_a_close_saves_read_the_principal_at_the_version_it_saves_on(
        self, memory: memory_es.Memory, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """A writer forms "User lives in Bergen." while the close's resolve of "Leeds"
        runs on a read taken before it: that read is never saved (the log's version check
        refuses its events); the close runs again on a read at the version the writer
        left, which holds Bergen, and its events follow that version."""
        told(memory, "kai", "I live in Oslo.")
        session = memory.open_session("kai")
        memory.say(session, "I live in Leeds.")
        opened: list[BeliefReads] = []  # every read a unit of work handed out, in order
        real_beliefs = UnitOfWork.beliefs

        def beliefs_recording(uow: UnitOfWork, principal: PrincipalMemory) -> BeliefReads:
            reads = real_beliefs(uow, principal)
            opened.append(reads)
            return reads

        reads_used: list[tuple[int, list[str]]] = []  # (version read at, statements met)
        written: list[int] = []  # the principal's version the writer left

        def resolve_racing(incoming: Evidence, beliefs: Iterable[Existing]) -> Decision:
            candidates = list(beliefs)
            if incoming.normalized == "user lives in leeds":
                reads_used.append(
                    (opened[-1].version, sorted(b.evidence.normalized for b in candidates))
                )
                if not written:
                    # Another writer: its own load of the principal, not this command's.
                    evict_cache(memory.app)
                    told(memory, "kai", "I live in Bergen.")
                    written.append(stored_version(memory, "kai"))
            return resolve(incoming, candidates)

        before = stored_version(memory, "kai")
        monkeypatch.setattr(UnitOfWork, "beliefs", beliefs_recording)
        monkeypatch.setattr(consolidation, "resolve", resolve_racing)
        memory.close_session(session)
        beliefs = {b.statement: b for b in memory.list_beliefs("kai")}

        assert reads_used[0] == (before, ["user lives in oslo"])
        # The attempt saved read at the writer's version, and Bergen was in its read.
        assert reads_used[-1] == (written[0], ["user lives in bergen", "user lives in oslo"])
        saved = [e.originator_version for e in memory.app.events.get(principal_id("kai"))]
        assert saved[saved.index(written[0]) + 1 :], "the close saved on the writer's version"
        leeds, bergen = beliefs["User lives in Leeds."], beliefs["User lives in Bergen."]
        assert bergen.belief_id in leeds.conflicts_with  # met, as its read held it


class SharedStoreResolverReadsConformance:
    def test_a_resolve_that_raced_a_writer_is_saved_only_on_a_read_with_its_belief(
        self, url: str, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """The writer forms "User lives in Bergen." after this instance loaded the
        principal and before its resolve returns: the read without Bergen is never
        saved; the close saved resolves "Leeds" on a read that holds Bergen, and meets it."""
        reads: list[tuple[str, list[str]]] = []
        with memory_es.open(url) as memory, memory_es.open(url) as writer:
            told(memory, "kai", "I live in Oslo.")
            session = memory.open_session("kai")
            memory.say(session, "I live in Leeds.")
            raced = False

            def resolve_racing(incoming: Evidence, beliefs: Iterable[Existing]) -> Decision:
                nonlocal raced
                candidates = list(beliefs)
                if incoming.normalized == "user lives in leeds":
                    reads.append((incoming.normalized, [b.evidence.normalized for b in candidates]))
                    if not raced:
                        raced = True
                        told(writer, "kai", "I live in Bergen.")
                return resolve(incoming, candidates)

            monkeypatch.setattr(consolidation, "resolve", resolve_racing)
            memory.close_session(session)
            beliefs = {b.statement: b for b in memory.list_beliefs("kai")}

        assert reads[0] == ("user lives in leeds", ["user lives in oslo"])
        assert "user lives in bergen" in reads[-1][1]
        leeds, bergen = beliefs["User lives in Leeds."], beliefs["User lives in Bergen."]
        # Leeds was said first, so Bergen's later evidence stands: linked as a conflict
        # (a read without Bergen would have superseded Oslo alone and left Bergen beside it).
        assert bergen.belief_id in leeds.conflicts_with
        assert beliefs["User lives in Oslo."].status == "superseded"


def principal_id(principal: str) -> UUID:
    return PrincipalMemory.create_id("default", principal)


def stored_version(memory: memory_es.Memory, principal: str) -> int:
    """The principal's version in the log (its last stored event's)."""
    *_, last = memory.app.events.get(principal_id(principal))
    return int(last.originator_version)


def told(memory: memory_es.Memory, principal: str, text: str) -> None:
    session = memory.open_session(principal)
    memory.say(session, text)
    memory.close_session(session)


__all__ = ["ResolverReadsConformance", "SharedStoreResolverReadsConformance"]
