"""What the resolver reads: the principal's beliefs at the version the close saves on,
with the batch's own beliefs the read model does not hold yet; never a stale read that
gets saved."""

from __future__ import annotations

from collections.abc import Iterable

import orjson
import pytest

import memory_es
from memory_es.domain.resolver import Decision, Evidence, Existing, resolve
from memory_es.formation import consolidation


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


def told(memory: memory_es.Memory, principal: str, text: str) -> None:
    session = memory.open_session(principal)
    memory.say(session, text)
    memory.close_session(session)


__all__ = ["ResolverReadsConformance", "SharedStoreResolverReadsConformance"]
