"""The cheap paths of sealing (memory_es/sealing.py) give what the plain ones give.

- The projector's page reader opens a page's boxes together (``unseal_page``, its keys
  by ``KeyRing.keys_for``): a rebuild from a cold key ring recalls what the same log
  written without sealing recalls.
- The mapper hands its own projector the text it has just sealed (the handoff): the
  inline projector decrypts none of its own writes, the text never reaches a stored
  byte, another writer's box at the same version is decrypted as usual, and a destroyed
  key voids the handoff (forgetting still shows nothing).
"""

from __future__ import annotations

import base64
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import UUID

import orjson
import pytest
from cryptography.exceptions import InvalidTag
from eventsourcing.utils import get_topic

import memory_es
from memory_es.benchmarks.perf import synthetic
from memory_es.benchmarks.perf.phases import build_beliefs
from memory_es.domain.principal import FormedBelief, PrincipalMemory
from memory_es.domain.values import DEFAULT_TENANT, GENERAL_SCOPE, BeliefType, normalize_statement
from memory_es.es_internals import events_table_name
from memory_es.keys import (
    CIPHER_CACHE_MAX,
    KEY_BYTES,
    NONCE_BYTES,
    KeyRing,
    KeyRow,
    KeyTable,
    MemoryKeyTable,
    PostgresKeyTable,
    RandomKeys,
    SeededKeys,
    SqliteKeyTable,
    _after_fork_in_child,
)
from memory_es.policy import formation_policy
from memory_es.ports import FixedClock
from memory_es.sealing import (
    FORGOTTEN,
    HANDOFF_MAX,
    PROJECTED_TEXT,
    SEALED_KEY,
    SealingError,
    SealingMapper,
    _text_only,
    belief_key,
    state_key,
    turn_key,
)
from memory_es.stores import parse_store_url
from tests.conftest import START
from tests.stores import postgres_schema_url

N = 150  # beliefs: more than one projector page at a small page size
QUERIES = 12


def _open(url: str, *, sealing: bool) -> memory_es.Memory:
    return memory_es.open(
        url,
        ids=memory_es.SequentialIds(),
        clock=FixedClock(START),
        sealing=sealing,
        check_formation=False,
    )


def _recalls(memory: memory_es.Memory) -> list[list[tuple[str, str, float]]]:
    text = synthetic.Text(seed=N)
    for _ in range(N):
        text.statement()
    return [
        [(s.record.belief_id, s.record.statement, s.score) for s in memory.recall("p", q).items]
        for q in (text.query() for _ in range(QUERIES))
    ]


def _build(url: str, *, sealing: bool) -> list[list[tuple[str, str, float]]]:
    with _open(url, sealing=sealing) as memory:
        build_beliefs(memory, "p", N, synthetic.Text(seed=N), per_session=40)
        return _recalls(memory)


@pytest.mark.parametrize("workers", [1, 2])
def test_a_cold_sealed_rebuild_recalls_what_the_plain_log_recalls(
    tmp_path: Path, workers: int
) -> None:
    plain_url, sealed_url = f"sqlite:///{tmp_path}/plain.db", f"sqlite:///{tmp_path}/sealed.db"
    plain = _build(plain_url, sealing=False)
    inline = _build(sealed_url, sealing=True)  # projected inline: the handoff's text
    assert plain == inline and any(plain)
    for url, sealing in ((plain_url, False), (sealed_url, True)):
        with _open(url, sealing=sealing) as memory:  # a cold key ring
            memory.runner._page_size = 64  # several pages, each opened together
            memory.rebuild_projections(resume=False, workers=workers)
            assert _recalls(memory) == plain


def test_a_sealed_rebuild_on_any_sql_store_recalls_what_its_inline_projector_did(
    persistent_store_url: str,
) -> None:
    inline = _build(persistent_store_url, sealing=True)
    with _open(persistent_store_url, sealing=True) as memory:
        opened: list[int] = []
        keys_for = memory.app.keys.keys_for

        def counted(wanted: Any) -> Any:
            opened.append(len(wanted))
            return keys_for(wanted)

        memory.app.keys.keys_for = counted  # type: ignore[method-assign]
        memory.runner._page_size = 64
        memory.rebuild_projections(resume=False)
        assert _recalls(memory) == inline
    # Every belief's statement opened, a page's keys at a time; facts, renderings and the
    # user's own turns (all of this log's turns: they lend the next turn no words,
    # sealing.lends_words) stay unopened.
    assert sum(opened) == N and len(opened) > 1


def test_a_cold_rebuild_opens_the_statements_and_the_turns_that_lend_words_alone(
    tmp_path: Path,
) -> None:
    """The projector reads a turn's text only for the words it lends the next turn (the
    other side's message, docs/retrieval.md "The turn before"): a rebuild from a cold key
    ring decrypts every statement and those turns, none of the user's own, and indexes
    what the live projector did."""
    url = f"sqlite:///{tmp_path / 'sealed.db'}"
    asked_by_assistant: list[str] = []
    with _open(url, sealing=True) as memory:
        session = memory.open_session("p")
        for place in ("orchard", "meadow", "barn"):
            question = memory.say(session, f"How often do you visit the {place}?", role="assistant")
            asked_by_assistant.append(question.turn_id)
            memory.say(session, f"Three times a week, the {place} keeps me calm.")
        memory.close_session(session)
        live = memory.index.dump()
        table = events_table_name(memory.app.recorder)
    with sqlite3.connect(tmp_path / "sealed.db") as db:
        (beliefs,) = db.execute(
            f"SELECT count(*) FROM {table} WHERE topic = ?",
            [get_topic(PrincipalMemory.BeliefFormed)],
        ).fetchone()
    with _open(url, sealing=True) as memory:
        opened: list[str] = []
        keys_for = memory.app.keys.keys_for

        def counted(wanted: Any) -> Any:
            opened.extend(key_id for key_id, _ in wanted)
            return keys_for(wanted)

        memory.app.keys.keys_for = counted  # type: ignore[method-assign]
        memory.rebuild_projections(resume=False)
        assert memory.index.dump() == live
    assert beliefs > 0
    assert sorted(k for k in opened if k.startswith("turn:")) == sorted(
        turn_key(t) for t in asked_by_assistant
    )
    assert len([k for k in opened if k.startswith("belief:")]) == beliefs
    assert all(k.startswith(("turn:", "belief:")) for k in opened)


def test_the_inline_projector_decrypts_none_of_its_own_writes_and_no_text_is_stored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "sealed.db"
    text = synthetic.Text(seed=N)
    statements = [text.statement()[0] for _ in range(N)]
    with _open(f"sqlite:///{path}", sealing=True) as memory:
        mapper = memory.app.mapper
        assert isinstance(mapper, SealingMapper)

        def refused(wanted: Any) -> Any:
            raise AssertionError(f"decrypted its own writes: {len(wanted)} keys")

        monkeypatch.setattr(mapper.keys, "keys_for", refused)
        build_beliefs(memory, "p", N, synthetic.Text(seed=N), per_session=40)
        assert not mapper._handoff  # every handed-off text taken by the projector
        listed = {b.statement for b in memory.list_beliefs("p")}
        assert set(statements) <= listed
        table = events_table_name(memory.app.recorder)
    with sqlite3.connect(path) as db:
        states = [bytes(s) for (s,) in db.execute(f"SELECT state FROM {table}")]
    assert len(states) > 2 * N
    for statement in statements:
        assert not any(statement.encode() in state for state in states)


def _mapper() -> tuple[SealingMapper, PrincipalMemory, Any]:
    """An in-memory store's sealing mapper (its transcodings registered), and one formed
    belief's event, not saved."""
    with memory_es.open("memory://") as memory:
        mapper = memory.app.mapper
    assert isinstance(mapper, SealingMapper)
    aggregate = PrincipalMemory(tenant=DEFAULT_TENANT, principal="p")
    aggregate.collect_events()
    event = _form(aggregate, "b1", "User keeps bees on the roof.")
    return mapper, aggregate, event


def _form(aggregate: PrincipalMemory, belief_id: str, statement: str) -> Any:
    aggregate.form_belief(
        FormedBelief(
            belief_id=belief_id,
            statement=statement,
            normalized=normalize_statement(statement),
            belief_type=BeliefType.FACT.value,
            subjects=["bees"],
            subject_key="bees",
            polarity=True,
            authority=3,
            confidence=0.9,
            status="active",
            project=GENERAL_SCOPE,
            portable=True,
            source_event_ids=["t1"],
            source_session_id=str(UUID(int=1)),
            source_seq=1,
            valid_from="2026-01-01T00:00:00+00:00",
            formed_at="2026-01-01T00:00:00+00:00",
            policy=formation_policy(),
            supersedes=None,
            conflicts_with=None,
        )
    )
    (event,) = aggregate.collect_events()
    return event


def _stored(mapper: SealingMapper, aggregate: PrincipalMemory, event: Any) -> Any:
    mapper.prepare([event], {aggregate.id: aggregate})
    return mapper.to_stored_event(event)


def _page(mapper: SealingMapper, stored: Any) -> dict[str, Any]:
    fields: dict[str, Any] = mapper.transcoder.decode(stored.state)
    assert SEALED_KEY in fields
    mapper.unseal_page(
        [(stored.topic, str(stored.originator_id), stored.originator_version, fields)]
    )
    return fields


def _no_decryption(wanted: Any) -> Any:
    raise AssertionError(f"decrypted {len(wanted)} keys")


def test_the_handoff_is_taken_for_its_own_box_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    mapper, aggregate, event = _mapper()
    stored = _stored(mapper, aggregate, event)
    assert b"bees on the roof" not in stored.state and mapper._handoff
    with monkeypatch.context() as patched:  # our own box: from the handoff, no decryption
        patched.setattr(mapper.keys, "keys_for", _no_decryption)
        assert _page(mapper, stored)["statement"] == "User keeps bees on the roof."
    assert not mapper._handoff
    # Another writer's event at the same originator and version (a lost race: ours never
    # stored), sealed under the same key: its own box, which ours must not stand in for.
    mapper.to_stored_event(event)
    theirs = SealingMapper(transcoder=mapper.transcoder, keys=mapper.keys)
    their_aggregate = PrincipalMemory(tenant=DEFAULT_TENANT, principal="p")
    their_aggregate.collect_events()
    their_event = _form(their_aggregate, "b1", "User hates bees.")
    assert (their_event.originator_id, their_event.originator_version) == (
        event.originator_id,
        event.originator_version,
    )
    their_stored = _stored(theirs, their_aggregate, their_event)
    assert _page(mapper, their_stored)["statement"] == "User hates bees."
    assert not mapper._handoff  # the mismatched entry dropped, not kept for later


def test_a_destroyed_key_voids_the_handoff_and_a_moved_box_still_fails() -> None:
    mapper, aggregate, event = _mapper()
    stored = _stored(mapper, aggregate, event)
    assert mapper._handoff
    mapper.keys.destroy([belief_key("b1")])
    fields = _page(mapper, stored)
    assert fields["statement"] == FORGOTTEN and fields["subjects"] == []
    # A box moved to another version does not open (its version is associated data).
    mapper2, aggregate2, event2 = _mapper()
    moved = _stored(mapper2, aggregate2, event2)
    mapper2.forget_handoff()
    moved.__dict__["originator_version"] = moved.originator_version + 1
    with pytest.raises(SealingError, match="does not open"):
        _page(mapper2, moved)


def test_the_handoff_is_bounded() -> None:
    mapper, aggregate, event = _mapper()
    _stored(mapper, aggregate, event)
    for n in range(HANDOFF_MAX + 5):
        mapper._hand_off("x", n, "box", {"statement": "s"})
    assert len(mapper._handoff) == HANDOFF_MAX
    assert ("x", HANDOFF_MAX + 4) in mapper._handoff and ("x", 0) not in mapper._handoff


def test_keys_for_gives_what_key_gives_one_by_one() -> None:
    source = KeyRing(MemoryKeyTable())
    source.ensure([("a", "o1"), ("b", "o1"), ("c", "o2")])
    source.destroy(["b"])
    table = source.table
    wanted = [("a", "o1"), ("b", "o1"), ("c", "o1"), ("c", "o2"), ("zz", "o1")]
    got = KeyRing(table).keys_for(wanted)  # a cold ring: every row read in one query
    one_by_one = KeyRing(table)
    assert got == [one_by_one.key(k, o) for k, o in wanted]
    assert got[0] == source.key("a", "o1") and got[3] == source.key("c", "o2")
    assert got[1] is None and got[2] is None and got[4] is None  # gone, another's, absent
    assert all(isinstance(r, KeyRow) for r in table.select(["a"]))


def test_text_only_fields_are_sealed_as_the_transcoder_would_write_them() -> None:
    """The seal path skips the transcoder's walk for fields of strings and lists of
    strings: the same bytes, so stores written before and after read alike."""
    mapper, _, _ = _mapper()
    fields = {"statement": "User keeps bees.", "subjects": ["bees", "roof"], "context": ""}
    assert _text_only(fields) and orjson.dumps(fields) == mapper.transcoder.encode(fields)
    assert not _text_only({"facts": [{"kind": "x"}]}) and not _text_only({"state": None})


def test_the_box_is_added_to_the_stored_state_as_encode_would_write_it() -> None:
    mapper, aggregate, event = _mapper()
    stored = _stored(mapper, aggregate, event)
    fields = mapper.transcoder.decode(stored.state)
    # Last but the class version, as before: the stored bytes are the earlier code's.
    assert list(fields)[-2:] == [SEALED_KEY, "class_version"]
    box = fields.pop(SEALED_KEY)
    state = {k: v for k, v in vars(event).items() if k in fields}
    extra = {SEALED_KEY: box, "class_version": 2}
    assert mapper.transcoder.encode_with(state, extra) == mapper.transcoder.encode(
        {**state, **extra}
    )


def _sealed_page(n: int) -> tuple[SealingMapper, list[Any]]:
    """A mapper, cold (its handoff and unwrapped keys dropped), and n beliefs' stored
    events, one belief a key."""
    mapper, aggregate, _ = _mapper()
    events = [_form(aggregate, f"b{i}", f"User keeps {i} bees.") for i in range(2, 2 + n)]
    mapper.prepare(events, {aggregate.id: aggregate})
    stored = [mapper.to_stored_event(e) for e in events]
    mapper.forget_handoff()
    mapper.keys._keys = {k: v for k, v in mapper.keys._keys.items() if k.startswith("kek:")}
    return mapper, stored


def _unseal(
    mapper: SealingMapper, stored: list[Any], page: list[dict[str, Any]] | None = None
) -> list[dict[str, Any]]:
    """The stored events' states (``page``: decoded already) opened as the page path does."""
    if page is None:
        page = [mapper.transcoder.decode(s.state) for s in stored]
    mapper.unseal_page(
        [
            (s.topic, str(s.originator_id), s.originator_version, f)
            for s, f in zip(stored, page, strict=True)
        ]
    )
    return page


def test_a_page_opens_each_box_under_its_own_key_and_a_destroyed_one_as_its_placeholder() -> None:
    """The page path decrypts its boxes together (the ciphers built and used by map):
    each box still opens under its own key, in its place, a destroyed key's box reads as
    its placeholder beside live ones, and a repeated box opens twice."""
    mapper, stored = _sealed_page(6)
    mapper.keys.destroy([belief_key("b3"), belief_key("b6")])
    opened = _unseal(mapper, [*stored, stored[0]])
    assert [f["statement"] for f in opened] == [
        "User keeps 2 bees.",
        FORGOTTEN,
        "User keeps 4 bees.",
        "User keeps 5 bees.",
        FORGOTTEN,
        "User keeps 7 bees.",
        "User keeps 2 bees.",
    ]
    assert opened[1]["normalized"] == f"{FORGOTTEN} b3" and opened[1]["subjects"] == []
    assert all(SEALED_KEY not in f for f in opened)


def test_an_altered_box_in_a_page_fails_naming_its_event() -> None:
    mapper, stored = _sealed_page(5)
    moved = stored[3]
    moved.__dict__["originator_version"] = moved.originator_version + 10
    with pytest.raises(SealingError, match=rf"v{moved.originator_version} does not open"):
        _unseal(mapper, stored)


def test_keys_for_unwraps_each_owner_under_its_own_key_encryption_key() -> None:
    """A page mixing owners: each owner's keys unwrapped in one pass over its key
    encryption key; an owner forgotten whole reads as None beside a live one; a key asked
    for twice comes back twice; and the SQLite table's rows are KeyRows of bytes."""
    source = KeyRing(MemoryKeyTable())
    source.ensure([("a", "o1"), ("b", "o2"), ("c", "o3"), ("d", "o1")])
    expected = {k: source.key(k, o) for k, o in [("a", "o1"), ("b", "o2"), ("d", "o1")]}
    source.destroy_owner("o3")
    wanted = [("a", "o1"), ("b", "o2"), ("c", "o3"), ("a", "o1"), ("d", "o1")]
    got = KeyRing(source.table).keys_for(wanted)
    assert got == [expected["a"], expected["b"], None, expected["a"], expected["d"]]


def test_the_sqlite_key_table_reads_rows_as_key_rows(tmp_path: Path) -> None:
    from memory_es.keys import SqliteKeyTable

    table = SqliteKeyTable(str(tmp_path / "keys.db"))
    table.insert([KeyRow("k1", "o", b"\x00material"), KeyRow("k2", "o", b"m2")])
    rows = sorted(table.select(["k1", "k2", "absent"]))
    assert rows == [KeyRow("k1", "o", b"\x00material"), KeyRow("k2", "o", b"m2")]
    assert all(isinstance(r, KeyRow) and type(r.material) is bytes for r in rows)
    assert rows[0].key_id == "k1" and rows[0].owner == "o"
    table.close()


@pytest.fixture(params=["memory", "sqlite", "sqlite without json_each", "postgres"])
def key_table(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[KeyTable]:
    """Each key table, empty; SQLite also as built without JSON (its IN-list chunks)."""
    if request.param == "memory":
        yield MemoryKeyTable()
        return
    if request.param == "postgres":
        import psycopg

        with postgres_schema_url() as url:
            spec = parse_store_url(url)
            with psycopg.connect(**spec.pg_connect, autocommit=True) as db:
                db.execute(f'CREATE SCHEMA IF NOT EXISTS "{spec.pg_schema}"')
            postgres = PostgresKeyTable(spec.pg_connect, spec.pg_schema)
            yield postgres
            postgres.close()
        return
    table = SqliteKeyTable(str(tmp_path / "keys.db"))
    table._json_each = request.param == "sqlite"
    yield table
    table.close()


def test_every_key_table_reads_an_owners_rows_among_ids_as_id_and_bytes(
    key_table: KeyTable,
) -> None:
    """``select_owned`` (a page's keys): the owner's rows among the ids, another owner's
    and absent ones left out, more ids than one IN list binds; ``select`` reads the same
    rows as KeyRows."""
    many = [KeyRow(f"belief:{i:04}", "o", bytes([i % 256]) * 60) for i in range(1200)]
    stored = [*many, KeyRow("k1", "o", b"\x00m1"), KeyRow("k2", "other", b"m2")]
    assert key_table.insert(stored) == len(stored)
    ids = ["k1", "k2", "absent", *(r.key_id for r in many)]
    got = sorted(key_table.select_owned("o", ids))
    assert got == sorted([("k1", b"\x00m1"), *((r.key_id, r.material) for r in many)])
    assert all(type(material) is bytes for _, material in got)
    assert key_table.select_owned("other", ids) == [("k2", b"m2")]
    assert key_table.select_owned("o", []) == []
    assert sorted(key_table.select(ids)) == sorted(stored)


def test_a_box_the_fast_base64_decoder_refuses_opens_as_it_did_before() -> None:
    """The page path decodes base64 with a validating SIMD decoder; a box written with
    line breaks in its base64 (which binascii always skipped) opens as before."""
    mapper, stored = _sealed_page(3)
    page = [mapper.transcoder.decode(s.state) for s in stored]
    box = page[1][SEALED_KEY]["b"]
    page[1][SEALED_KEY]["b"] = box[:40] + "\n" + box[40:]
    assert [f["statement"] for f in _unseal(mapper, stored, page)] == [
        f"User keeps {i} bees." for i in (2, 3, 4)
    ]


def test_a_statement_holding_braces_and_tags_opens_unchanged() -> None:
    """A plaintext with an object inside (a brace in a statement) goes through the
    transcoder's decode, plain text through orjson's: both open to the text sealed."""
    mapper, aggregate, _ = _mapper()
    statements = ['User writes {"_type_": "uuid", "_data_": "x"} in notes.', "User keeps bees."]
    events = [_form(aggregate, f"b{i}", text) for i, text in enumerate(statements, start=2)]
    assert {get_topic(type(e)) for e in events} <= PROJECTED_TEXT
    mapper.prepare(events, {aggregate.id: aggregate})
    stored = [mapper.to_stored_event(e) for e in events]
    mapper.forget_handoff()
    mapper.keys._keys = {k: v for k, v in mapper.keys._keys.items() if k.startswith("kek:")}
    assert [f["statement"] for f in _unseal(mapper, stored)] == statements


def test_a_destroyed_keys_cipher_is_dropped_with_it_and_never_reused() -> None:
    ring = KeyRing(MemoryKeyTable())
    ring.ensure([("a", "o1"), ("b", "o1"), ("c", "o2")])
    assert ring.cipher("a", keep=False) is not None and not ring._ciphers
    cipher = ring.cipher("a")
    assert cipher is not None and ring.cipher("a") is cipher  # kept for the next box
    box = cipher.encrypt(b"0" * 12, b"text", b"aad")
    ring.destroy(["a"])
    assert ring.cipher("a") is None and "a" not in ring._ciphers
    # The same id made again is a new key: the old cipher is not what seals with it.
    ring.ensure([("a", "o1")])
    again = ring.cipher("a")
    assert again is not None and again is not cipher
    with pytest.raises(InvalidTag):
        again.decrypt(b"0" * 12, box, b"aad")
    assert ring.cipher("b") is not None
    ring.destroy_owner("o1")  # a principal forgotten whole: its ciphers go with its keys
    assert ring.cipher("b") is None and ring.cipher("a") is None
    assert set(ring._ciphers) == set()  # "c" was never asked for a cipher
    assert ring.cipher("c") is not None
    ring.settle_failed([KeyRow("c", "o2", b"")])  # a failed save's key: its cipher too
    assert "c" not in ring._ciphers


def test_a_forgotten_snapshots_cipher_does_not_open_its_box() -> None:
    with memory_es.open("memory://", ids=memory_es.SequentialIds()) as memory:
        mapper = memory.app.mapper
        assert isinstance(mapper, SealingMapper)
        session = memory.open_session("p", snapshot=False)
        memory.say(session, "I keep bees on the roof.")
        aggregate = memory.app.repository.get(UUID(session))
        snapshot = type(aggregate).Snapshot.take(aggregate)
        key_id = state_key(session)
        mapper.note_owner(session, "default/p")
        stored = mapper.to_stored_event(snapshot)  # its key made now, as log compact does
        kept = mapper.keys._ciphers.get(key_id)
        assert kept is not None  # a snapshot's key seals each snapshot: its cipher kept
        assert mapper.to_stored_event(snapshot) and mapper.keys._ciphers[key_id] is kept

        def opened() -> dict[str, Any]:
            fields: dict[str, Any] = mapper.transcoder.decode(stored.state)
            mapper.unseal(stored.topic, session, stored.originator_version, fields)
            return fields

        assert opened()["state"] is not None
        mapper.keys.destroy([key_id])
        assert key_id not in mapper.keys._ciphers and opened()["state"] is None
        # A turn's key seals one box: its cipher is built for it, never kept.
        assert not [k for k in mapper.keys._ciphers if k.startswith("turn:")]


def test_the_cipher_cache_is_bounded() -> None:
    ring = KeyRing(MemoryKeyTable())
    ids = [f"k{n}" for n in range(CIPHER_CACHE_MAX + 3)]
    ring.ensure([(k, "o") for k in ids])
    for key_id in ids:
        assert ring.cipher(key_id) is not None
    assert len(ring._ciphers) == CIPHER_CACHE_MAX and "k0" not in ring._ciphers


def test_a_saves_boxes_take_each_reserved_nonce_once() -> None:
    ring = KeyRing(MemoryKeyTable(), SeededKeys("nonces"))
    ring.reserve_nonces(3)
    taken = [ring.nonce() for _ in range(5)]  # three reserved, then drawn one by one
    assert len(set(taken)) == 5
    again = KeyRing(MemoryKeyTable(), SeededKeys("nonces"))
    assert taken == [again.nonce() for _ in range(5)]  # the seeded order, as unreserved
    ring.reserve_nonces(4)
    ring.reserve_nonces(1)  # an earlier save's leftovers are dropped, never given
    assert ring.nonce() not in taken and ring._reserved.nonces == []
    ring.reserve_nonces(2)
    _after_fork_in_child()  # a forked child does not use its parent's reserved nonces
    assert getattr(ring._reserved, "nonces", None) is None


def test_random_keys_draw_a_batch_as_many_single_draws() -> None:
    pairs = RandomKeys().new_keys_and_nonces(3)
    assert [(len(k), len(n)) for k, n in pairs] == [(KEY_BYTES, NONCE_BYTES)] * 3
    assert len({k for k, _ in pairs} | {n for _, n in pairs}) == 6
    nonces = RandomKeys().new_nonces(4)
    assert [len(n) for n in nonces] == [NONCE_BYTES] * 4 and len(set(nonces)) == 4
    assert RandomKeys().new_nonces(0) == []


def test_a_sealed_save_gives_every_box_its_own_nonce(tmp_path: Path) -> None:
    with _open(f"sqlite:///{tmp_path / 's.db'}", sealing=True) as memory:
        build_beliefs(memory, "p", 30, synthetic.Text(seed=3), per_session=10)
        recorder: Any = memory.app.recorder
        with sqlite3.connect(tmp_path / "s.db") as db:
            states = [
                orjson.loads(row[0])
                for row in db.execute(f"SELECT state FROM {events_table_name(recorder)}")
            ]
    boxes = [base64.b64decode(s[SEALED_KEY]["b"]) for s in states if SEALED_KEY in s]
    assert len(boxes) >= 60 and len({box[:NONCE_BYTES] for box in boxes}) == len(boxes)
