"""Forgetting by crypto-shredding, on every store: the proof.

Marker words go into turns; after ``forget --confirm`` no byte of the store (the SQLite
file and its WAL, a ``pg_dump`` of the PostgreSQL schema, the in-memory recorder's
rows), no export of the log and no read (recall, history, context pack, a recall as of
a past position, a rebuild from 0, a re-derivation) holds them; what other evidence
supports stays, a rejection stays durable.
"""

from __future__ import annotations

import abc
import subprocess
from collections.abc import Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit
from uuid import UUID

import pytest

import memory_es
from memory_es.domain.values import Status
from memory_es.errors import InvalidInput, UsageError
from memory_es.forgetting import FORGOTTEN_REASON
from memory_es.logio import compact_log
from memory_es.sealing import FORGOTTEN

MARKER = "quokkaville"  # what must be forgotten (lower case: lexemes are)
SHARED = "durian"  # also stated in a session that is not forgotten
SECRET_TURN = f"I live in {MARKER.capitalize()}."
SHARED_TURN = f"I love {SHARED} fruit."


def raw_store_bytes(url: str, tmp_path: Path, memory: Any | None = None) -> bytes:
    """Every byte the store keeps: the SQLite file and its companions, a pg_dump of the
    PostgreSQL schema, or the in-memory recorder's stored states and key rows."""
    if url.startswith("sqlite"):
        path = Path(url.removeprefix("sqlite:///"))
        return b"".join(p.read_bytes() for p in path.parent.glob(path.name + "*"))
    if url.startswith("postgres"):
        parts = urlsplit(url)
        schema = parse_qs(parts.query)["schema"][0]
        dumped = subprocess.run(
            [
                "pg_dump",
                "-h",
                parts.hostname or "127.0.0.1",
                "-p",
                str(parts.port or 5432),
                "-U",
                parts.username or "postgres",
                "-n",
                schema,
                parts.path.lstrip("/") or "postgres",
            ],
            capture_output=True,
            check=True,
        )
        return dumped.stdout
    assert memory is not None
    recorders = [memory.app.recorder, memory.app.snapshots.recorder]
    states = [bytes(e.state) for r in recorders for e in r._stored_events]
    keys = [r.material for r in memory.app.keys.export_rows()]
    return b"".join(states + keys)


class ForgettingConformance(abc.ABC):
    @abc.abstractmethod
    def store_url(self, tmp_path: Path) -> AbstractContextManager[str]: ...

    def _store(self, tmp_path: Path) -> Iterator[tuple[str, Any]]:
        with self.store_url(tmp_path) as url:
            memory = memory_es.open(url)
            try:
                yield url, memory
            finally:
                memory.close()

    def _two_sessions(self, memory: Any) -> tuple[str, str, str]:
        """Session A says the marker and the shared statement; session B the shared one;
        session C opens after both (its session snapshot renders A's beliefs)."""
        a = memory.open_session("ana")
        memory.say(a, SECRET_TURN)
        memory.say(a, SHARED_TURN)
        memory.close_session(a)
        b = memory.open_session("ana")
        memory.say(b, SHARED_TURN)
        memory.close_session(b)
        c = memory.open_session("ana")
        assert MARKER in self._context(memory, c)
        return a, b, c

    def _context(self, memory: Any, session: str) -> str:
        # The model's view: what it is shown, not the query (which names the marker).
        pack = memory.context(session, f"where do I live {MARKER} {SHARED}").as_dict()
        pack.pop("messages", None)
        return repr(pack).lower()

    def _reads(self, memory: Any, session: str, past: int, tmp_path: Path) -> str:
        """Everything a user or operator can read back, as one lower-case text."""
        query = f"where do I live {MARKER} {SHARED}"
        out = [
            repr(memory.recall("ana", query).lines()),
            repr(memory.recall("ana", query, as_of_position=past).lines()),
            repr([(b.statement, b.status) for b in memory.list_beliefs("ana")]),
            self._context(memory, session),
        ]
        for belief in memory.list_beliefs("ana"):
            out.append(repr(memory.belief_history(belief.belief_id)))
        for name, decrypted in (("sealed.jsonl", False), ("opened.jsonl", True)):
            memory.export_log(tmp_path / name, decrypted=decrypted)
            out.append((tmp_path / name).read_text())
        return "\n".join(out).lower()

    def _nothing_comes_back(
        self, url: str, memory: Any, session: str, past: int, tmp_path: Path, *gone: str
    ) -> None:
        """No read and no byte of the store holds ``gone``: now, after a rebuild from
        position 0, and after a re-derivation of every session."""
        for step in ("forgotten", "rebuilt from 0", "re-derived"):
            if step == "rebuilt from 0":
                memory.rebuild_projections(resume=False)
            elif step == "re-derived":
                memory.rederive(confirm=True)
            reads = self._reads(memory, session, past, tmp_path)
            raw = raw_store_bytes(url, tmp_path, memory).lower()
            for text in gone:
                assert text not in reads, (step, text)
                assert text.encode() not in raw, (step, text)

    def test_a_dry_run_says_what_would_go_and_writes_nothing(self, tmp_path: Path) -> None:
        for _, memory in self._store(tmp_path):
            a, _, _ = self._two_sessions(memory)
            head = memory.runner.log_head()
            report = memory.forget(session=a)
            assert not report.confirmed and memory.runner.log_head() == head
            by_id = {b.belief_id: b.statement for b in memory.list_beliefs("ana")}
            assert [by_id[b] for b in report.retracted] == ["User lives in Quokkaville."]
            assert [by_id[b] for b in report.kept] == ["User loves durian fruit."]
            assert MARKER in repr(memory.recall("ana", MARKER).lines()).lower()

    def test_forgetting_a_session_leaves_no_marker_anywhere(self, tmp_path: Path) -> None:
        for url, memory in self._store(tmp_path):
            a, _, c = self._two_sessions(memory)
            past = memory.runner.log_head()
            report = memory.forget(session=a, confirm=True, reason="the user asked")
            assert report.confirmed and report.keys_destroyed > 0
            assert MARKER not in repr(report.as_dict()).lower()
            self._nothing_comes_back(url, memory, c, past, tmp_path, MARKER)
            # What session B also said stays, its forgotten source dropped.
            (shared,) = [b for b in memory.list_beliefs("ana") if SHARED in b.statement]
            assert shared.status == Status.ACTIVE
            assert SHARED in repr(memory.recall("ana", SHARED).lines())
            # The retraction is an event, with the reason; the erasure record has no text.
            (gone,) = report.retracted
            retirements = [
                e.fields for e in memory.belief_history(gone) if e.event == "BeliefRetired"
            ]
            assert [f["reason"] for f in retirements] == [FORGOTTEN_REASON]

    def test_forgetting_a_turn_keeps_the_rest_of_its_session(self, tmp_path: Path) -> None:
        for url, memory in self._store(tmp_path):
            a = memory.open_session("ana")
            secret = memory.say(a, SECRET_TURN)
            memory.say(a, SHARED_TURN)
            memory.close_session(a)
            c = memory.open_session("ana")  # its session snapshot renders the marker
            assert MARKER in self._context(memory, c)
            past = memory.runner.log_head()
            report = memory.forget(turn=secret.turn_id, confirm=True)
            assert report.turn_ids == [secret.turn_id] and report.session_ids == []
            self._nothing_comes_back(url, memory, c, past, tmp_path, MARKER)
            statements = [
                b.statement for b in memory.list_beliefs("ana") if b.status == Status.ACTIVE
            ]
            assert statements == ["User loves durian fruit."]
            # Formation's evidence is the turn that remains; the event reads its placeholder.
            assert [t.text for t in memory.session_turns(a)] == [SHARED_TURN]
            events = memory.session_events(UUID(a))
            texts = [e.text for e in events if type(e).__name__ == "TurnRecorded"]
            assert texts == [FORGOTTEN, SHARED_TURN]

    def test_a_rejection_stays_durable_when_its_evidence_is_forgotten(self, tmp_path: Path) -> None:
        for _, memory in self._store(tmp_path):
            a = memory.open_session("ana")
            memory.say(a, SHARED_TURN)
            memory.close_session(a)
            (belief,) = memory.list_beliefs("ana")
            memory.reject(belief.belief_id)
            report = memory.forget(session=a, confirm=True)
            assert report.rejections_kept == [belief.belief_id]
            b = memory.open_session("ana")
            memory.say(b, SHARED_TURN)
            memory.close_session(b)
            live = [x for x in memory.list_beliefs("ana") if x.status == Status.ACTIVE]
            assert live == []

    def test_forgetting_a_principal_leaves_no_marker(self, tmp_path: Path) -> None:
        for url, memory in self._store(tmp_path):
            _, _, c = self._two_sessions(memory)
            other = memory.open_session("bo")
            memory.say(other, "I live in Lisbon.")
            memory.close_session(other)
            past = memory.runner.log_head()
            report = memory.forget(principal="ana", confirm=True)
            assert len(report.session_ids) == 3
            self._nothing_comes_back(url, memory, c, past, tmp_path, MARKER, SHARED)
            assert [b.statement for b in memory.list_beliefs("bo")] == ["User lives in Lisbon."]
            assert memory.app.keys.table.select_owner("default/ana") == []

    def test_an_unknown_target_is_refused_and_changes_nothing(self, tmp_path: Path) -> None:
        for _, memory in self._store(tmp_path):
            head = memory.runner.log_head()
            for unknown in ({"principal": "nobody"}, {"turn": "no-such-turn"}):
                with pytest.raises(InvalidInput, match="no "):
                    memory.forget(confirm=True, **unknown)
            with pytest.raises(UsageError, match="exactly one"):
                memory.forget(confirm=True)
            assert memory.runner.log_head() == head

    def test_a_log_moved_with_its_keys_recalls_what_the_source_did(self, tmp_path: Path) -> None:
        for _, memory in self._store(tmp_path):
            self._two_sessions(memory)
            memory.export_log(tmp_path / "log.jsonl")
            memory.export_keys(tmp_path / "keys.jsonl")
            assert MARKER not in (tmp_path / "log.jsonl").read_text().lower()
            expected = memory.recall("ana", MARKER).lines()
            with memory_es.open("memory://") as target:
                target.import_keys(tmp_path / "keys.jsonl")
                target.import_log(tmp_path / "log.jsonl")
                assert target.recall("ana", MARKER).lines() == expected

    def test_a_store_written_without_sealing_reads_on_and_seals_new_text(
        self, tmp_path: Path
    ) -> None:
        with self.store_url(tmp_path) as url:
            if url == "memory://":
                return  # one process: there is no earlier store to reopen
            with memory_es.open(url, sealing=False) as old:
                a = old.open_session("ana")
                old.say(a, SECRET_TURN)
                old.close_session(a)
            with memory_es.open(url) as memory:
                assert MARKER in repr(memory.recall("ana", MARKER).lines()).lower()
                b = memory.open_session("ana")
                memory.say(b, SHARED_TURN)
                memory.close_session(b)
                assert SHARED in repr(memory.recall("ana", SHARED).lines())

    def test_log_compact_seals_a_plaintext_store_so_it_can_forget(self, tmp_path: Path) -> None:
        with self.store_url(tmp_path) as url, memory_es.open(url, sealing=False) as old:
            a = old.open_session("ana")
            old.say(a, SECRET_TURN)
            old.say(a, SHARED_TURN)
            old.close_session(a)
            with pytest.raises(UsageError, match="without sealing"):
                old.forget(session=a, confirm=True)
            with memory_es.open("memory://") as sealed:
                done = compact_log(old, sealed)
                assert done.events == old.runner.log_head()
                assert sealed.index.dump() == old.index.dump()
                sealed.forget(turn=memory_es_turn(old, a, SECRET_TURN), confirm=True)
                assert MARKER.encode() not in raw_store_bytes("memory://", tmp_path, sealed)
                lines = sealed.recall("ana", f"{MARKER} {SHARED}").lines()
                assert MARKER not in repr(lines).lower() and SHARED in repr(lines)


def memory_es_turn(memory: Any, session: str, text: str) -> str:
    """The id of the session's turn with this text."""
    (turn,) = [t.turn_id for t in memory.session_turns(session) if t.text == text]
    return turn
