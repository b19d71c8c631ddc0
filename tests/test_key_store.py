"""The key store commits a save's data keys with the save's events (memory_es/keys.py).

On SQLite and PostgreSQL the key table shares the store: the rows of the keys a save
creates are inserted in the transaction that appends the events they seal, so a sealed
event never lacks its key, a failed save leaves no key behind, and a save costs one
commit. A key id another writer stored meanwhile is a lost race, run again.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import memory_es
from memory_es.domain.principal import PrincipalMemory
from memory_es.keys import KeyRing, KeyRow, MemoryKeyTable
from memory_es.sealing import turn_key


def _refuse_own_inserts(memory: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(rows: Any) -> int:
        raise AssertionError(f"a key row written on the key table's own connection: {rows}")

    monkeypatch.setattr(memory.app.keys.table, "insert", refused)


def test_a_saves_data_keys_are_written_in_the_events_transaction(
    persistent_store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with memory_es.open(persistent_store_url) as memory:
        session = memory.open_session("ana")  # the principal's key encryption key, once
        _refuse_own_inserts(memory, monkeypatch)
        turn = memory.say(session, "I live in Lisbon.")
        assert memory.app.keys.table.select([turn_key(turn.turn_id)])
    with memory_es.open(persistent_store_url) as reopened:  # a cold key ring reads it back
        assert [t.text for t in reopened.session_turns(session)] == ["I live in Lisbon."]


def test_a_failed_save_leaves_no_key_behind(
    persistent_store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with memory_es.open(persistent_store_url) as memory:
        session = memory.open_session("ana")
        recorder = memory.app.recorder
        base = type(recorder).__mro__[2]  # the library's recorder, under KeyRowsWithEvents
        library_insert = base._insert_events

        def broken(self: Any, *args: Any, **kwargs: Any) -> Any:
            raise RuntimeError("the disk is full")

        monkeypatch.setattr(base, "_insert_events", broken)
        before = {r.key_id for r in memory.app.keys.export_rows()}
        with pytest.raises(RuntimeError, match="disk is full"):
            memory.say(session, "I live in Lisbon.")
        assert {r.key_id for r in memory.app.keys.export_rows()} == before
        monkeypatch.setattr(base, "_insert_events", library_insert)
        memory.say(session, "I live in Porto.")
    with memory_es.open(persistent_store_url) as reopened:
        assert [t.text for t in reopened.session_turns(session)] == ["I live in Porto."]


def test_a_key_id_stored_meanwhile_by_another_writer_is_a_lost_race_run_again(
    persistent_store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with memory_es.open(persistent_store_url) as memory:
        session = memory.open_session("ana")
        ring = memory.app.keys
        raced = {"done": False}
        take = ring.take_pending

        def another_writer_first() -> list[KeyRow]:
            rows = take()
            if rows and not raced["done"]:  # the same ids, stored first, with other keys
                raced["done"] = True
                other = KeyRing(ring.table)
                other.ensure([(r.key_id, r.owner) for r in rows])
            return rows

        monkeypatch.setattr(ring, "take_pending", another_writer_first)
        memory.say(session, "I live in Lisbon.")
        assert raced["done"]
        assert [t.text for t in memory.session_turns(session)] == ["I live in Lisbon."]
    with memory_es.open(persistent_store_url) as reopened:
        assert [t.text for t in reopened.session_turns(session)] == ["I live in Lisbon."]


def test_a_key_table_outside_the_store_gets_its_rows_before_the_save(tmp_path: Path) -> None:
    """A KMS adapter has no ``write_rows``: the ring inserts on its own, as before."""
    ring = KeyRing(MemoryKeyTable())
    assert ring.write_with_events() is False
    ring.ensure([("turn:t1", "default/ana")], with_events=True)
    assert ring.take_pending() == []
    assert ring.table.select(["turn:t1"])


def test_with_the_librarys_database_functions_the_keys_are_inserted_before_the_save(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """POSTGRES_ENABLE_DB_FUNCTIONS: the library inserts events by one function call,
    which never runs ``_insert_events``; the ring then writes its rows on its own."""
    from tests.stores import postgres_schema_url

    monkeypatch.setenv("POSTGRES_ENABLE_DB_FUNCTIONS", "y")
    with postgres_schema_url() as url:
        with memory_es.open(url) as memory:
            assert memory.app.recorder.key_ring is None  # type: ignore[attr-defined]
            session = memory.open_session("ana")
            memory.say(session, "I live in Lisbon.")
        with memory_es.open(url) as reopened:
            assert [t.text for t in reopened.session_turns(session)] == ["I live in Lisbon."]


def test_a_cold_key_ring_reads_the_rows_of_the_keys_it_opens_not_the_owners_every_row(
    persistent_store_url: str,
) -> None:
    """A principal holds a key a turn and a belief: a fresh process's first command
    (its aggregate snapshot's key first) reads the keys it opens by row, so what it reads
    does not grow with what the principal said before (issue 30)."""
    with memory_es.open(persistent_store_url) as memory:
        for n in range(30):
            session = memory.open_session("ana")
            memory.say(session, f"I own a bike number {n}.")
            memory.close_session(session)
        memory.app.take_snapshot(PrincipalMemory.create_id("default", "ana"))
        last = memory.open_session("ana")
        memory.say(last, "I live in Lisbon.")
    with memory_es.open(persistent_store_url) as cold:
        table = cold.app.keys.table
        read: list[str] = []
        real_select = table.select

        def counted(key_ids: Any) -> list[KeyRow]:
            rows = real_select(key_ids)
            read.extend(r.key_id for r in rows)
            return rows

        def refused(owner: str) -> list[KeyRow]:
            raise AssertionError(f"every key row of {owner} read")

        setattr(table, "select", counted)  # noqa: B010 - the instance's reads, counted
        setattr(table, "select_owner", refused)  # noqa: B010
        cold.close_session(last)
        assert "User lives in Lisbon." in {b.statement for b in cold.list_beliefs("ana")}
    # The snapshot's key, the closing session's turn keys and its key encryption key.
    assert len(read) < 10, read


def _counted_selects(memory: Any, monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The key ids of each read of the key table by id (the looks a save could make)."""
    ring = memory.app.keys
    assert ring is not None
    table = ring.table
    reads: list[list[str]] = []
    real_select = table.select

    def counted(key_ids: Any) -> list[KeyRow]:
        reads.append(list(key_ids))
        return list(real_select(key_ids))

    monkeypatch.setattr(table, "select", counted)
    return reads


def test_a_say_writes_its_new_turn_key_without_looking_it_up_first(
    persistent_store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A turn's key is new by construction (it seals one box of an event the save
    appends): the save inserts it with the events and reads no key row; a new principal's
    first save looks for its key encryption key once and, having stored its own, does not
    read it back (a say on a large store was 1 key-table statement of 3 more unsealed)."""
    with memory_es.open(persistent_store_url) as memory:
        reads = _counted_selects(memory, monkeypatch)
        session = memory.open_session("ana", snapshot=False)
        memory.say(session, "I live in Lisbon.")
        assert reads == [["kek:default/ana"]]
        reads.clear()
        turns = [memory.say(session, f"I keep {n} bees.") for n in range(3)]
        assert reads == []
        assert memory.app.keys is not None
        stored = memory.app.keys.table.select([turn_key(t.turn_id) for t in turns])
        assert len(stored) == 3
    with memory_es.open(persistent_store_url) as reopened:  # a cold ring opens them all
        texts = [t.text for t in reopened.session_turns(session)]
        assert texts == ["I live in Lisbon.", "I keep 0 bees.", "I keep 1 bees.", "I keep 2 bees."]


def test_a_save_whose_sealing_fails_keeps_no_key_it_created(
    persistent_store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The save created its turn's key, then failed before its recorder wrote it: the
    key is forgotten at once (never held to seal anything later), and no later save
    writes its row."""
    with memory_es.open(persistent_store_url) as memory:
        session = memory.open_session("ana", snapshot=False)
        memory.say(session, "I live in Lisbon.")
        ring = memory.app.keys
        assert ring is not None
        created: list[str] = []
        real_ensure = ring.ensure

        def noted(wanted: Any, **kwargs: Any) -> None:
            wanted = list(wanted)
            created.extend(k for k, _ in wanted)
            real_ensure(wanted, **kwargs)

        def broken(event: Any) -> Any:
            raise RuntimeError("the transcoder broke")

        monkeypatch.setattr(ring, "ensure", noted)
        monkeypatch.setattr(memory.app.mapper, "to_stored_event", broken)
        before = {r.key_id for r in ring.export_rows()}
        with pytest.raises(RuntimeError, match="transcoder broke"):
            memory.say(session, "I live in Porto.")
        assert created and all(ring.cached(k) is None for k in created)
        assert ring.cipher(created[0]) is None and ring.take_pending() == []
        monkeypatch.undo()
        memory.say(session, "I live in Faro.")
        written = {r.key_id for r in ring.export_rows()} - before
        assert len(written) == 1 and not written & set(created)
    with memory_es.open(persistent_store_url) as reopened:
        assert [t.text for t in reopened.session_turns(session)] == [
            "I live in Lisbon.",
            "I live in Faro.",
        ]


def test_a_destroyed_key_encryption_key_wraps_nothing_after() -> None:
    """Destroying an owner's key encryption key (by id, or the owner whole) drops its
    cipher too: the owner's next data key is wrapped by a new key encryption key the
    table holds, so a cold ring opens it (a cached cipher of the destroyed one would
    wrap keys nothing can unwrap)."""
    ring = KeyRing(MemoryKeyTable())
    ring.ensure([("turn:a", "default/ana")])
    first = ring.table.select(["kek:default/ana"])
    ring.destroy(["kek:default/ana"])
    assert "default/ana" not in ring._kek_ciphers
    ring.ensure([("turn:b", "default/ana")])
    assert ring.table.select(["kek:default/ana"]) != first
    assert KeyRing(ring.table).key("turn:b", "default/ana") == ring.cached("turn:b")
    ring.destroy_owner("default/ana")
    assert ring.cached("turn:b") is None and "default/ana" not in ring._kek_ciphers
    ring.ensure([("turn:c", "default/ana")])
    assert KeyRing(ring.table).key("turn:c", "default/ana") == ring.cached("turn:c")
    assert KeyRing(ring.table).key("turn:b", "default/ana") is None
