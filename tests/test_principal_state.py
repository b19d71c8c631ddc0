"""The principal aggregate's state: lookups that change no decision, snapshots old and new."""

from __future__ import annotations

from typing import Any, cast
from uuid import UUID

from eventsourcing.domain import Snapshot
from eventsourcing.persistence import StoredEvent
from hypothesis import given, settings
from hypothesis import strategies as st

from memory_es.bootstrap import MemoryApplication
from memory_es.domain.belief_table import INTEGERS, ORDERS, OUTDATED, PACKED, _Lookups
from memory_es.domain.principal import FormedBelief, PrincipalMemory
from memory_es.domain.resolver import Evidence, Outcome, resolve
from memory_es.domain.values import Authority, Status

POPO = {"PERSISTENCE_MODULE": "eventsourcing.popo"}

# Few values of each field, so statements, subjects, sources and sessions collide often.
STATEMENTS = ["user lives in oslo", "user lives in bergen", "user prefers tea", "ci runs on make"]
KEYS = ["home location", "tea", "tea|coffee", "coffee", ""]
TYPES = ["user_model_attr", "preference"]
SESSIONS = ["s1", "s2", "s3"]
INSTANTS = ["2026-03-02T09:00:00Z", "2026-03-03T09:00:00Z", "2026-03-04T09:00:00Z"]
PROJECTS = ["general", "acme"]
TURNS = ["t1", "t2", "t3", "t4"]


@st.composite
def evidence(draw: st.DrawFn) -> Evidence:
    return Evidence(
        belief_type=draw(st.sampled_from(TYPES)),
        subject_key=draw(st.sampled_from(KEYS)),
        normalized=draw(st.sampled_from(STATEMENTS)),
        polarity=draw(st.booleans()),
        authority=draw(st.sampled_from(list(Authority))),
        instant=draw(st.sampled_from(INSTANTS)),
        session_id=draw(st.sampled_from(SESSIONS)),
        seq=draw(st.integers(1, 3)),
        source_event_ids=frozenset(draw(st.lists(st.sampled_from(TURNS), max_size=2))),
        project=draw(st.sampled_from(PROJECTS)),
        portable=draw(st.booleans()),
    )


# An operation: ("form", evidence, provisional), ("reform", (index of a formed belief,
# evidence), provisional): its id formed again, or (kind, index of a formed belief, turns).
operation = st.one_of(
    st.tuples(st.just("form"), evidence(), st.booleans()),
    st.tuples(st.just("reform"), st.tuples(st.integers(0, 30), evidence()), st.booleans()),
    st.tuples(
        st.sampled_from(["supersede", "reject", "reinforce"]),
        st.integers(0, 30),
        st.lists(st.sampled_from(TURNS), min_size=1, max_size=2),
    ),
)


def apply(principal: PrincipalMemory, op: tuple[Any, ...]) -> None:
    kind, target, extra = op
    if kind in ("form", "reform"):
        belief_id = f"b{len(principal.belief_ids)}"
        if kind == "reform":
            if not principal.belief_ids:
                return
            index, target = target
            belief_id = principal.belief_ids[index % len(principal.belief_ids)]
        ev: Evidence = target
        principal.form_belief(
            FormedBelief(
                belief_id=belief_id,
                statement=ev.normalized,
                normalized=ev.normalized,
                belief_type=ev.belief_type,
                subjects=[ev.subject_key],
                subject_key=ev.subject_key,
                polarity=ev.polarity,
                authority=int(ev.authority),
                confidence=0.9,
                status=(Status.PROVISIONAL if extra else Status.ACTIVE).value,
                project=ev.project,
                portable=ev.portable,
                source_event_ids=sorted(ev.source_event_ids),
                source_session_id=ev.session_id,
                source_seq=ev.seq,
                valid_from=ev.instant,
                formed_at=ev.instant,
                policy="formation@test",
                supersedes=None,
                conflicts_with=None,
            )
        )
        return
    if not principal.belief_ids:
        return
    belief_id = principal.belief_ids[target % len(principal.belief_ids)]
    if kind == "supersede":
        principal.supersede_belief(
            belief_id=belief_id, successor_id="b-next", valid_to=INSTANTS[-1], policy="p"
        )
    elif kind == "reject":
        principal.reject_belief(belief_id=belief_id, at=INSTANTS[-1], policy="p")
    else:
        principal.reinforce_belief(
            belief_id=belief_id,
            source_event_ids=extra,
            source_session_id="s9",
            at=INSTANTS[-1],
            policy="p",
        )


def reloaded(principal: PrincipalMemory) -> PrincipalMemory:
    """The aggregate through a stored snapshot, as a cold load sees it."""
    app = MemoryApplication(env=POPO)
    stored = app.mapper.to_stored_event(PrincipalMemory.Snapshot.take(principal))
    snapshot = app.mapper.to_domain_event(stored)
    assert isinstance(snapshot, Snapshot)
    restored = snapshot.mutate(None)
    assert isinstance(restored, PrincipalMemory)
    return restored


def assert_same_decisions(principal: PrincipalMemory, incoming: list[Evidence]) -> None:
    every = principal.existing()
    for ev in incoming:
        assert resolve(ev, principal.candidates(ev)) == resolve(ev, every)


@settings(max_examples=300, deadline=None)
@given(
    ops=st.lists(operation, max_size=30),
    warm_after=st.integers(0, 30),
    incoming=st.lists(evidence(), min_size=1, max_size=6),
)
def test_candidates_reach_the_decision_every_belief_would(
    ops: list[tuple[Any, ...]], warm_after: int, incoming: list[Evidence]
) -> None:
    """Lookups built part way (then kept up by each event) or afresh after a snapshot
    give the resolver the decision it reaches over every belief."""
    principal = PrincipalMemory(tenant="default", principal="ana")
    for number, op in enumerate(ops):
        if number == warm_after:
            principal.candidates(incoming[0])  # build the lookups now; events maintain them
        apply(principal, op)
    assert_same_decisions(principal, incoming)
    restored = reloaded(principal)
    assert restored.beliefs == principal.beliefs
    assert_same_decisions(restored, incoming)


# A snapshot as version 1 of the aggregate stored it (belief_id -> compact view), written
# by memory_es before the columns: b1 superseded by b2, b3 reinforced, b5 rejected.
V1_SNAPSHOT_TOPIC = "eventsourcing.domain:Snapshot"
V1_SNAPSHOT_STATE = (
    b'{"timestamp":{"_type_":"datetime_iso","_data_":"2026-11-30T12:03:30.961183+00:00"},'
    b'"topic":"memory_es.domain.principal:PrincipalMemory","state":{"_created_on":'
    b'{"_type_":"datetime_iso","_data_":"2026-11-30T12:03:30.960617+00:00"},"_modified_on":'
    b'{"_type_":"datetime_iso","_data_":"2026-11-30T12:03:30.961147+00:00"},"tenant":"default",'
    b'"principal":"ana","beliefs":{"b1":{"type":"user_model_attr","key":"home location",'
    b'"norm":"user lives in oslo","pol":true,"auth":3,"status":"superseded",'
    b'"vf":"2026-03-02T09:00:00Z","sess":"s1","seq":1,"src":["t1"],"proj":"general",'
    b'"port":true},"b2":{"type":"user_model_attr","key":"home location",'
    b'"norm":"user lives in bergen","pol":true,"auth":3,"status":"active",'
    b'"vf":"2026-03-03T09:00:00Z","sess":"s2","seq":3,"src":["t7"],"proj":"general",'
    b'"port":true},"b3":{"type":"preference","key":"tea|coffee","norm":"user prefers tea",'
    b'"pol":true,"auth":3,"status":"active","vf":"2026-03-03T09:01:00Z","sess":"s2","seq":4,'
    b'"src":["t2","t8","t9"],"proj":"general","port":true},"b4":{"type":"fact",'
    b'"key":"build","norm":"the build uses make","pol":true,"auth":1,"status":"provisional",'
    b'"vf":"2026-03-04T09:00:00Z","sess":"s3","seq":2,"src":["t10"],"proj":"acme",'
    b'"port":false},"b5":{"type":"preference","key":"licorice","norm":"user likes licorice",'
    b'"pol":true,"auth":3,"status":"rejected","vf":"2026-03-04T09:02:00Z","sess":"s3",'
    b'"seq":5,"src":["t11"],"proj":"general","port":true}}}}'
)


def stored_v1_snapshot(app: MemoryApplication) -> UUID:
    principal_id = PrincipalMemory.create_id("default", "ana")
    assert app.snapshots is not None
    app.snapshots.recorder.insert_events(
        [StoredEvent(principal_id, 9, V1_SNAPSHOT_TOPIC, V1_SNAPSHOT_STATE)]
    )
    return principal_id


def incoming(statement: str, key: str, **changes: Any) -> Evidence:
    fields: dict[str, Any] = {
        "belief_type": "user_model_attr",
        "subject_key": key,
        "normalized": statement,
        "polarity": True,
        "authority": Authority.USER,
        "instant": "2026-03-06T09:00:00Z",
        "session_id": "s4",
        "seq": 1,
        "source_event_ids": frozenset({"t20"}),
        "project": "general",
        "portable": True,
        **changes,
    }
    return Evidence(**fields)


def test_a_version_1_snapshot_loads_upcast_to_the_columns() -> None:
    app = MemoryApplication(env=POPO)
    principal: PrincipalMemory = app.repository.get(stored_v1_snapshot(app))
    assert isinstance(principal, PrincipalMemory)
    assert principal.version == 9
    assert principal.belief_ids == ["b1", "b2", "b3", "b4", "b5"]
    assert principal.session_ids == ["s1", "s2", "s3"]
    assert principal.beliefs["b3"] == {
        "type": "preference",
        "key": "tea|coffee",
        "norm": "user prefers tea",
        "pol": True,
        "auth": 3,
        "status": "active",
        "vf": "2026-03-03T09:01:00Z",
        "sess": "s2",
        "seq": 4,
        "src": ["t2", "t8", "t9"],
        "proj": "general",
        "port": True,
    }
    assert [principal.status_of(b) for b in ("b1", "b4", "b5", "b6")] == [
        Status.SUPERSEDED,
        Status.PROVISIONAL,
        Status.REJECTED,
        None,
    ]
    cases = {
        incoming("user lives in trondheim", "home location"): (Outcome.CONTRADICTION, "b2"),
        incoming("user lives in oslo", "home location", source_event_ids=frozenset({"t1"})): (
            Outcome.SAME_SOURCE,
            "b1",
        ),
        incoming("user likes licorice", "licorice", belief_type="preference"): (
            Outcome.REJECTED,
            "b5",
        ),
        incoming("user prefers coffee", "coffee", belief_type="preference"): (
            Outcome.CONTRADICTION,
            "b3",
        ),
        incoming("the build uses make", "build", belief_type="fact", project="acme"): (
            Outcome.DUPLICATE,
            "b4",
        ),
        incoming("the build uses make", "build", belief_type="fact", portable=False): (
            Outcome.NEW,
            None,
        ),
    }
    every = principal.existing()
    for ev, (outcome, existing_id) in cases.items():
        decision = resolve(ev, principal.candidates(ev))
        assert (decision.outcome, decision.existing_id) == (outcome, existing_id)
        assert decision == resolve(ev, every)


def test_a_new_snapshot_holds_the_columns_packed_and_the_lookup_orders() -> None:
    app = MemoryApplication(env=POPO)
    principal: PrincipalMemory = app.repository.get(stored_v1_snapshot(app))
    assert isinstance(principal, PrincipalMemory)
    principal.candidates(incoming("user lives in oslo", "home location"))  # build lookups
    principal.reinforce_belief(
        belief_id="b2", source_event_ids=["t30"], source_session_id="s5", at="x", policy="p"
    )
    app.save(principal)  # loaded from a version 1 snapshot: this save snapshots it
    assert app.snapshots is not None
    stored = app.snapshots.recorder.select_events(principal.id, desc=True, limit=1)[0]
    assert stored.topic == "memory_es.domain.principal:PrincipalMemory.Snapshot"
    snapshot = app.mapper.to_domain_event(stored)
    assert isinstance(snapshot, Snapshot)
    state = snapshot.state
    assert state["class_version"] == 5
    assert "beliefs" not in state and not any(k.startswith("_derived") for k in state)
    # The text columns are one string each; the lookups are two sorted orders of rows.
    packed = state[PACKED]
    assert not any(column in state for column in packed)
    assert packed["belief_ids"] == {"rows": 5, "chunks": ["b1\nb2\nb3\nb4\nb5"]}
    assert packed["belief_sources"]["chunks"][0].split("\n")[1] == "t30 t7"
    # rows by statement: "the build uses make" (b4), "user likes licorice" (b5), "user
    # lives in bergen" (b2), "user lives in oslo" (b1), "user prefers tea" (b3)
    # The integer columns: base64 of the smallest array that holds them.
    assert {c: state[INTEGERS][c]["type"] for c in ("belief_seqs", "belief_portable")} == {
        "belief_seqs": "B",
        "belief_portable": "B",
    }
    orders = _Lookups.from_packed(state[ORDERS])
    assert orders.statements.tolist() == [3, 4, 1, 0, 2]
    cold = MemoryApplication(env=POPO)
    assert cold.snapshots is not None
    cold.snapshots.recorder.insert_events([stored])
    restored: PrincipalMemory = cold.repository.get(principal.id)
    assert isinstance(restored, PrincipalMemory)
    # A chunk stays packed until read; the stored orders are the ones a sort builds.
    assert restored.belief_valid_from._chunks == [packed["belief_valid_from"]["chunks"][0]]
    assert restored.beliefs == principal.beliefs
    assert restored.belief_valid_from._chunks == [[vf for vf in principal.belief_valid_from]]
    assert restored.belief_portable == [True, True, True, False, True]
    assert restored.belief_seqs == [1, 3, 4, 2, 5]
    resorted = reloaded_without_orders(restored)
    assert restored._lookups() == resorted._lookups()


def reloaded_without_orders(principal: PrincipalMemory) -> PrincipalMemory:
    """The aggregate as a version 4 snapshot of it loads: plain columns, no orders."""
    state = dict(vars(principal))
    state.pop("_derived_state", None)
    state.pop(ORDERS, None)
    state.pop(PACKED, None)
    for column in ("belief_ids", "belief_keys", "belief_normalized", "belief_valid_from"):
        state[column] = list(getattr(principal, column))
    state["belief_sources"] = [s.split() for s in principal.belief_sources]
    state["class_version"] = 4
    snapshot = PrincipalMemory.Snapshot(
        originator_id=principal.id,
        originator_version=principal.version,
        timestamp=PrincipalMemory.Snapshot.create_timestamp(),
        topic=PrincipalMemory.Snapshot.take(principal).topic,
        state={k: v for k, v in state.items() if k not in ("_id", "_version", "_pending_events")},
    )
    restored = snapshot.mutate(None)
    assert isinstance(restored, PrincipalMemory)
    return restored


def test_a_version_4_snapshot_loads_and_decides_as_before() -> None:
    app = MemoryApplication(env=POPO)
    principal: PrincipalMemory = app.repository.get(stored_v1_snapshot(app))
    assert isinstance(principal, PrincipalMemory)
    old = reloaded_without_orders(principal)
    assert old.beliefs == principal.beliefs
    assert old.beliefs["b3"]["src"] == ["t2", "t8", "t9"]
    assert old.evidence_of("b3") == 3
    assert_same_decisions(
        old, [incoming("user prefers coffee", "coffee", belief_type="preference")]
    )
    # Formation after the load sorts the lookups once, then keeps them up.
    apply(old, ("form", incoming("user lives in tromso", "home location"), False))
    assert_same_decisions(old, [incoming("user lives in tromso", "home location")])
    assert reloaded(old).beliefs == old.beliefs


def test_snapshots_taken_on_save_hold_what_a_replay_of_the_log_gives() -> None:
    """A save whose events reach an interval is snapshotted from memory at the version it
    leaves the aggregate at (the interval inside the batch or its last event): each
    snapshot equals a replay of the log to its version."""
    app = MemoryApplication(env=POPO)
    app.snapshotting_intervals = {PrincipalMemory: 4}  # type: ignore[misc]
    principal = PrincipalMemory(tenant="default", principal="ana")
    forms = [("form", incoming(f"user owns car {n}", "car"), False) for n in range(3)]
    for op in [*forms, ("supersede", 0, ["t1"]), ("reject", 1, ["t1"])]:
        apply(principal, op)
    app.save(principal)  # versions 1-6: 4 is inside the batch, the snapshot is of 6
    for op in [("reinforce", 2, ["t3"]), ("form", incoming("user owns a bike", "bike"), True)]:
        apply(principal, op)
    app.save(principal)  # versions 7-8: 8 is the save's last event
    assert app.snapshots is not None
    stored = app.snapshots.recorder.select_events(principal.id)
    assert [s.originator_version for s in stored] == [6, 8]
    for snapshot_record in stored:
        version = snapshot_record.originator_version
        replayed: Any = None
        for domain_event in app.events.get(principal.id, lte=version):
            replayed = cast(PrincipalMemory.Event, domain_event).mutate(replayed)
        assert isinstance(replayed, PrincipalMemory)
        snapshot = app.mapper.to_domain_event(snapshot_record)
        expected = PrincipalMemory.Snapshot.take(replayed)
        assert isinstance(snapshot, Snapshot)
        assert snapshot.topic == expected.topic
        assert snapshot.state == app.mapper.transcoder.decode(
            app.mapper.transcoder.encode(expected.state)
        )


def test_values_holding_a_separator_survive_a_snapshot() -> None:
    """A statement with a newline keeps its column a plain list; a source id with a space
    keeps its row as JSON: both load back as they were and decide the same."""
    principal = PrincipalMemory(tenant="default", principal="ana")
    odd = incoming("user lives\nin oslo", "home location", source_event_ids=frozenset({"t 1"}))
    apply(principal, ("form", odd, False))
    apply(principal, ("form", incoming("user prefers tea", "tea"), False))
    apply(principal, ("reinforce", 0, ["[t2"]))
    state = PrincipalMemory.Snapshot.take(principal).state
    assert state[PACKED]["belief_normalized"] == {"values": list(principal.belief_normalized)}
    assert state[PACKED]["belief_ids"] == {"rows": 2, "chunks": ["b0\nb1"]}
    restored = reloaded(principal)
    assert restored.beliefs == principal.beliefs
    assert restored.beliefs["b0"]["src"] == ["[t2", "t 1"]
    assert_same_decisions(restored, [odd, incoming("user lives in bergen", "home location")])


def test_columns_of_many_chunks_decide_as_plain_lists_would() -> None:
    """Past one chunk of rows (TextColumn): a reload reads only the chunks it needs, and
    rows formed, reinforced or formed again across chunk boundaries keep the decisions."""
    principal = PrincipalMemory(tenant="default", principal="ana")
    for n in range(2500):
        ev = incoming(f"user owns car {n % 700}", f"car {n % 300}", session_id=f"s{n % 5}")
        apply(principal, ("form", ev, n % 3 == 0))
    for op in [("reinforce", 1500, ["t9"]), ("supersede", 2049, ["t1"]), ("reject", 3, ["t1"])]:
        apply(principal, op)
    restored = reloaded(principal)
    asked = [incoming("user owns car 5", "car 5"), incoming("user owns car 699", "car 99")]
    # A statement and subject no belief has: the bisections read, no candidate row does.
    assert restored.candidates(incoming("user owns a boat", "boat")) == []
    assert all(isinstance(c, str) for c in restored.belief_valid_from._chunks)
    assert len(restored.belief_valid_from._chunks) == 3
    assert_same_decisions(restored, asked)
    apply(restored, ("reform", (1024, incoming("user owns car 1", "car 7")), False))
    apply(restored, ("form", incoming("user owns car 5", "car 6"), False))
    assert_same_decisions(restored, asked)
    again = reloaded(restored)
    assert again.beliefs == restored.beliefs
    assert len(again.belief_ids) == 2501 and again.belief_ids[-1] == "b2500"


def test_an_aggregate_loaded_from_an_older_snapshot_is_snapshotted_on_its_next_save() -> None:
    app = MemoryApplication(env=POPO)
    principal: PrincipalMemory = app.repository.get(stored_v1_snapshot(app))
    assert isinstance(principal, PrincipalMemory)
    assert vars(principal)[OUTDATED] is True
    principal.reject_belief(belief_id="b4", at="2026-03-07T09:00:00Z", policy="p")
    app.save(principal)  # version 10: no interval reached, but the snapshot is outdated
    assert app.snapshots is not None
    stored = app.snapshots.recorder.select_events(principal.id, desc=True, limit=1)[0]
    assert stored.originator_version == 10
    assert stored.topic == "memory_es.domain.principal:PrincipalMemory.Snapshot"
    assert OUTDATED not in vars(principal)
    snapshot = app.mapper.to_domain_event(stored)
    assert isinstance(snapshot, Snapshot)
    assert snapshot.state["class_version"] == 5 and OUTDATED not in snapshot.state
    principal.reinforce_belief(
        belief_id="b2", source_event_ids=["t31"], source_session_id="s5", at="x", policy="p"
    )
    app.save(principal)  # version 11: nothing outdated, no interval: no snapshot
    assert app.snapshots.recorder.select_events(principal.id, desc=True, limit=1)[0] == stored
    cold = MemoryApplication(env=POPO)
    assert cold.snapshots is not None
    cold.snapshots.recorder.insert_events([stored])
    assert cold.repository.get(principal.id).beliefs["b4"]["status"] == "rejected"


def test_integer_columns_pack_in_the_smallest_array_that_holds_them() -> None:
    from memory_es.domain.packed_columns import pack_ints, unpack_ints

    cases = {(): "B", (True, False): "B", (0, 255): "B", (256,): "H", (70000,): "I"}
    cases |= {(2**32,): "q", (-1, 5): "q"}
    for values, typecode in cases.items():
        packed = pack_ints(list(values))
        assert packed["type"] == typecode
        assert unpack_ints(packed) == [int(v) for v in values]
