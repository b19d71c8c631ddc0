"""The principal aggregate's state: no belief in it (the read model holds what the
resolver reads), the resolver's reads reaching the decision every belief would, and
snapshots of every older version loading."""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, cast

from eventsourcing.domain import Snapshot
from eventsourcing.persistence import StoredEvent
from hypothesis import given, settings
from hypothesis import strategies as st

from memory_es.bootstrap import MemoryApplication
from memory_es.domain.principal import OUTDATED, FormedBelief, PrincipalMemory
from memory_es.domain.resolver import Evidence, Existing, resolve
from memory_es.domain.values import LIVE_STATUSES, Authority, Status
from memory_es.projections.base import RecallIndex
from memory_es.projections.memory import MemoryRecallIndex
from memory_es.projections.projector import project_event
from memory_es.projections.records import principal_key
from memory_es.projections.sqlite import SqliteRecallIndex
from memory_es.services.read_model_beliefs import ReadModelBeliefs

POPO = {"PERSISTENCE_MODULE": "eventsourcing.popo"}
ANA = principal_key("default", "ana")

# Few values of each field, so statements, subjects, sources and sessions collide often.
STATEMENTS = [
    "user lives in oslo",
    "user lives in bergen",
    "user prefers tea",
    "ci runs on make",
    "user no longer lives in oslo",
]
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


# An operation: ("form", evidence, provisional), or (kind, index of a formed belief, turns).
operation = st.one_of(
    st.tuples(st.just("form"), evidence(), st.booleans()),
    st.tuples(
        st.sampled_from(["supersede", "reject", "reinforce", "decay", "revive", "deactivate"]),
        st.integers(0, 30),
        st.lists(st.sampled_from(TURNS), min_size=1, max_size=2),
    ),
)


class Reference:
    """Every belief as the resolver sees it, kept by hand from the operations (what the
    aggregate's belief table held): the decision over all of them is the one to reach."""

    def __init__(self) -> None:
        self.beliefs: dict[str, Existing] = {}

    def every(self) -> list[Existing]:
        return list(self.beliefs.values())

    def change(self, belief_id: str, **changes: Any) -> None:
        current = self.beliefs[belief_id]
        self.beliefs[belief_id] = Existing(
            belief_id,
            changes.pop("evidence", current.evidence),
            live=changes.get("live", current.live),
            rejected=changes.get("rejected", current.rejected),
            retired=changes.get("retired", current.retired),
        )


def apply(principal: PrincipalMemory, reference: Reference, op: tuple[Any, ...]) -> None:
    kind, target, extra = op
    if kind == "form":
        belief_id = f"b{len(reference.beliefs)}"
        ev: Evidence = target
        status = Status.PROVISIONAL if extra else Status.ACTIVE
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
                status=status.value,
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
        reference.beliefs[belief_id] = Existing(belief_id, ev, live=True)
        return
    if not reference.beliefs:
        return
    belief_id = list(reference.beliefs)[target % len(reference.beliefs)]
    now = reference.beliefs[belief_id]
    at = INSTANTS[-1]
    if kind == "supersede":
        principal.supersede_belief(belief_id=belief_id, successor_id="b-x", valid_to=at, policy="p")
        reference.change(belief_id, live=False, rejected=False, retired=False)
    elif kind == "reject":
        principal.reject_belief(belief_id=belief_id, at=at, policy="p")
        reference.change(belief_id, live=False, rejected=True, retired=False)
    elif kind == "reinforce":
        principal.reinforce_belief(
            belief_id=belief_id, source_event_ids=extra, source_session_id="s9", at=at, policy="p"
        )
        sources = now.evidence.source_event_ids | frozenset(extra)
        evidence = Evidence(**{**vars(now.evidence), "source_event_ids": sources})
        reference.change(belief_id, evidence=evidence)
    elif kind == "decay" and now.live:
        principal.retire_belief(belief_id, 0.1, at, "decay", "p")
        reference.change(belief_id, live=False, retired=True)
    elif kind == "revive" and now.retired:
        principal.revive_belief(belief_id, 0.8, Status.ACTIVE.value, at, "p")
        reference.change(belief_id, live=True, retired=False)
    elif kind == "deactivate" and now.live:
        principal.deactivate_belief(belief_id, "auto_decay:v1", at, "p")
        reference.change(belief_id, live=False)


def project(index: RecallIndex, events: list[Any], first_position: int) -> None:
    with index.writer() as writer:
        for position, event in enumerate(events, first_position):
            project_event(event, position, writer)
        writer.set_tracking(first_position + len(events) - 1)


@contextmanager
def both_indexes() -> Iterator[dict[str, RecallIndex]]:
    with tempfile.TemporaryDirectory() as folder:
        sqlite = SqliteRecallIndex(str(Path(folder) / "index.db"))
        sqlite.migrate()
        try:
            yield {"memory": MemoryRecallIndex(), "sqlite": sqlite}
        finally:
            sqlite.close()


def reads_over(index: RecallIndex, principal: PrincipalMemory, stored: int) -> ReadModelBeliefs:
    return ReadModelBeliefs(index, ANA, stored, lambda _after: principal.pending_events)


@settings(max_examples=150, deadline=None)
@given(
    ops=st.lists(operation, max_size=30),
    saved_after=st.integers(0, 30),
    incoming=st.lists(evidence(), min_size=1, max_size=6),
)
def test_the_resolvers_reads_reach_the_decision_every_belief_would(
    ops: list[tuple[Any, ...]], saved_after: int, incoming: list[Evidence]
) -> None:
    """Beliefs partly in the read model (their events projected) and partly pending on
    the aggregate: the candidates read give the resolver the decision it reaches over
    every belief, on the in-memory and the SQLite read model alike."""
    with both_indexes() as indexes:
        principal = PrincipalMemory(tenant="default", principal="ana")
        reference = Reference()
        for op in ops[:saved_after]:
            apply(principal, reference, op)
        saved = principal.collect_events()
        for index in indexes.values():
            project(index, saved, 1)
        for op in ops[saved_after:]:
            apply(principal, reference, op)
        for name, index in indexes.items():
            reads = reads_over(index, principal, len(saved))
            for ev in incoming:
                decision = resolve(ev, reads.candidates(ev))
                assert decision == resolve(ev, reference.every()), name
            assert [b.belief_id for b in reads.live()] == [
                b.belief_id for b in reference.every() if b.live
            ]


def test_what_a_read_checks_by_id_follows_the_pending_events_over_the_read_model() -> None:
    principal = PrincipalMemory(tenant="default", principal="ana")
    reference = Reference()
    ev = Evidence(
        "preference", "jazz", "user likes jazz", True, Authority.INFERRED,
        INSTANTS[0], "s1", 1, frozenset({"t1"}), "general", True,
    )  # fmt: skip
    apply(principal, reference, ("form", ev, True))
    apply(principal, reference, ("form", ev, True))
    index = MemoryRecallIndex()
    project(index, principal.collect_events(), 1)
    principal.retire_belief("b0", 0.1, INSTANTS[1], "decay", "p")
    principal.retire_belief("b1", 0.6, INSTANTS[1], "rederived:formation@9", "p")
    principal.pin_belief(belief_id="b1", at=INSTANTS[1])
    reads = reads_over(index, principal, 3)
    assert reads.version == 3
    # Only a decay retirement is revivable ("forgotten"); the read model itself has not
    # seen either retirement yet.
    assert [reads.is_forgotten(b) for b in ("b0", "b1")] == [True, False]
    assert [index.get(b).status for b in ("b0", "b1")] == ["provisional"] * 2  # type: ignore[union-attr]
    assert reads.is_pinned("b1") and not reads.is_pinned("b0")
    assert [e.retired for e in reads.candidates(ev)] == [True, False]
    principal.revive_belief("b0", 0.8, "active", INSTANTS[2], "p")
    assert not reads.is_forgotten("b0") and reads.status_of("b0") == "active"
    principal.deactivate_belief("b0", "session_end", INSTANTS[2], "p")
    assert reads.prior_status("b0") == "active" and reads.status_of("b0") == "inactive"
    assert reads.evidence_of("b0") == 1 and reads.authority_of("b0") is Authority.INFERRED
    assert reads.type_and_key("b0") == ("preference", "jazz")
    assert reads.status_of("b9") is None


# -- the aggregate's own state -------------------------------------------------------------


def beliefs_formed(n: int) -> PrincipalMemory:
    principal = PrincipalMemory(tenant="default", principal="ana")
    reference = Reference()
    for k in range(n):
        ev = Evidence(
            "fact", f"thing {k}", f"user owns thing {k}", True, Authority.USER,
            INSTANTS[0], "s1", k, frozenset({f"t{k}"}), "general", True,
        )  # fmt: skip
        apply(principal, reference, ("form", ev, False))
    return principal


def test_a_snapshot_holds_no_belief_whatever_the_principal_believes() -> None:
    small, large = beliefs_formed(1), beliefs_formed(500)
    small_state = PrincipalMemory.Snapshot.take(small).state
    large_state = PrincipalMemory.Snapshot.take(large).state
    assert small_state.keys() == large_state.keys()
    assert {k: v for k, v in large_state.items() if not k.startswith("_")} == {
        "tenant": "default",
        "principal": "ana",
        "usage_runs": [],
        "class_version": 6,
    }


def test_usage_runs_are_what_the_aggregate_keeps_for_its_invariant() -> None:
    principal = beliefs_formed(1)
    principal.record_usage(
        run_id="run-1", session_id="s1", cited=["b0"], uncited=[], ambiguous=[],
        cited_delta=0.1, uncited_delta=0.05, at=INSTANTS[1],
    )  # fmt: skip
    assert principal.usage_recorded("run-1") and not principal.usage_recorded("run-2")


# A snapshot as version 5 of the aggregate stored it (written by main at 8a3e72c): two
# beliefs in packed columns, b2 pinned, usage recorded for run-1, at version 5.
V5_SNAPSHOT_TOPIC = "memory_es.domain.principal:PrincipalMemory.Snapshot"
V5_SNAPSHOT_STATE = (
    b'{"timestamp":{"_type_":"datetime_iso","_data_":"2026-12-03T09:06:22.110624+00:00"},'
    b'"topic":"memory_es.domain.principal:PrincipalMemory","state":{"_created_on":'
    b'{"_type_":"datetime_iso","_data_":"2026-12-03T09:06:22.109136+00:00"},"_modified_on":'
    b'{"_type_":"datetime_iso","_data_":"2026-12-03T09:06:22.109581+00:00"},"tenant":"default",'
    b'"principal":"ana","type_names":["user_model_attr"],"status_names":["active"],'
    b'"session_ids":["s1"],"project_names":["general"],"pinned_ids":["b2"],"deactivated":{},'
    b'"usage_runs":["run-1"],"forgotten_ids":[],"class_version":5,"lookup_orders":{"ids":'
    b'"AAAAAAEAAAA=","statements":"AAAAAAEAAAA=","subjects":"AAAAAAAAAAAAAAEAAAAAAA=="},'
    b'"packed_columns":{"belief_ids":{"rows":2,"chunks":["b1\\nb2"]},"belief_keys":{"rows":2,'
    b'"chunks":["home location\\ntea"]},"belief_normalized":{"rows":2,"chunks":'
    b'["user lives in oslo\\nuser prefers tea"]},"belief_valid_from":{"rows":2,"chunks":'
    b'["2026-03-02T09:00:00Z\\n2026-03-02T09:00:00Z"]},"belief_sources":{"rows":2,"chunks":'
    b'["t1\\nt2"]}},"integer_columns":{"belief_types":{"type":"B","data":"AAA="},'
    b'"belief_polarities":{"type":"B","data":"AQE="},"belief_authorities":{"type":"B",'
    b'"data":"AwM="},"belief_statuses":{"type":"B","data":"AAA="},"belief_sessions":'
    b'{"type":"B","data":"AAA="},"belief_seqs":{"type":"B","data":"AQI="},"belief_projects":'
    b'{"type":"B","data":"AAA="},"belief_portable":{"type":"B","data":"AQE="}}}}'
)
# The same as version 1 stored it (a dict of belief views), and version 2 (its columns).
V1_SNAPSHOT_TOPIC = "eventsourcing.domain:Snapshot"
V1_SNAPSHOT_STATE = (
    b'{"timestamp":{"_type_":"datetime_iso","_data_":"2026-11-30T12:03:30.961183+00:00"},'
    b'"topic":"memory_es.domain.principal:PrincipalMemory","state":{"_created_on":'
    b'{"_type_":"datetime_iso","_data_":"2026-11-30T12:03:30.960617+00:00"},"_modified_on":'
    b'{"_type_":"datetime_iso","_data_":"2026-11-30T12:03:30.961147+00:00"},"tenant":"default",'
    b'"principal":"ana","beliefs":{"b1":{"type":"user_model_attr","key":"home location",'
    b'"norm":"user lives in oslo","pol":true,"auth":3,"status":"active",'
    b'"vf":"2026-03-02T09:00:00Z","sess":"s1","seq":1,"src":["t1"],"proj":"general",'
    b'"port":true}}}}'
)


def loaded_from(topic: str, state: bytes, version: int = 5) -> tuple[MemoryApplication, Any]:
    app = MemoryApplication(env=POPO)
    principal_id = PrincipalMemory.create_id("default", "ana")
    assert app.snapshots is not None
    app.snapshots.recorder.insert_events([StoredEvent(principal_id, version, topic, state)])
    return app, app.repository.get(principal_id)


def _as_version(state: bytes, version: int, drop: tuple[str, ...]) -> bytes:
    import json

    document = json.loads(state)
    for key in drop:
        document["state"].pop(key)
    document["state"]["class_version"] = version
    return json.dumps(document).encode()


OLDER_SNAPSHOTS: dict[str, Callable[[], tuple[MemoryApplication, Any]]] = {
    "1": lambda: loaded_from(V1_SNAPSHOT_TOPIC, V1_SNAPSHOT_STATE),
    "2": lambda: loaded_from(
        V5_SNAPSHOT_TOPIC,
        _as_version(V5_SNAPSHOT_STATE, 2, ("pinned_ids", "deactivated", "usage_runs")),
    ),
    "4": lambda: loaded_from(V5_SNAPSHOT_TOPIC, _as_version(V5_SNAPSHOT_STATE, 4, ())),
    "5": lambda: loaded_from(V5_SNAPSHOT_TOPIC, V5_SNAPSHOT_STATE),
}


def test_snapshots_of_every_older_version_load_without_their_belief_table() -> None:
    for version, load in OLDER_SNAPSHOTS.items():
        _, principal = load()
        assert isinstance(principal, PrincipalMemory), version
        assert principal.version == 5
        state = {k: v for k, v in vars(principal).items() if not k.startswith("_")}
        runs = ["run-1"] if version in ("4", "5") else []
        assert state == {
            "tenant": "default",
            "principal": "ana",
            "usage_runs": runs,
            OUTDATED: True,
        }


def test_an_aggregate_loaded_from_an_older_snapshot_is_snapshotted_on_its_next_save() -> None:
    app, principal = OLDER_SNAPSHOTS["5"]()
    principal.reject_belief(belief_id="b1", at="2026-03-07T09:00:00Z", policy="p")
    app.save(principal)  # version 6: no interval reached, but the snapshot is outdated
    assert app.snapshots is not None
    stored = app.snapshots.recorder.select_events(principal.id, desc=True, limit=1)[0]
    assert stored.originator_version == 6
    assert OUTDATED not in vars(principal)
    snapshot = app.mapper.to_domain_event(stored)
    assert isinstance(snapshot, Snapshot)
    assert snapshot.state["class_version"] == 6 and OUTDATED not in snapshot.state
    assert len(stored.state) < len(V5_SNAPSHOT_STATE) / 2
    principal.record_usage(
        run_id="run-2", session_id="s1", cited=[], uncited=[], ambiguous=[],
        cited_delta=0.1, uncited_delta=0.05, at="2026-03-08T09:00:00Z",
    )  # fmt: skip
    app.save(principal)  # version 7: nothing outdated, no interval: no snapshot
    assert app.snapshots.recorder.select_events(principal.id, desc=True, limit=1)[0] == stored
    cold = MemoryApplication(env=POPO)
    assert cold.snapshots is not None
    cold.snapshots.recorder.insert_events([stored])
    assert cold.repository.get(principal.id).usage_runs == ["run-1"]


def test_snapshots_taken_on_save_hold_what_a_replay_of_the_log_gives() -> None:
    """A save whose events reach an interval is snapshotted from memory at the version it
    leaves the aggregate at (the interval inside the batch or its last event): each
    snapshot equals a replay of the log to its version."""
    app = MemoryApplication(env=POPO)
    app.snapshotting_intervals = {PrincipalMemory: 4}  # type: ignore[misc]
    principal = beliefs_formed(3)
    principal.supersede_belief(belief_id="b0", successor_id="b2", valid_to="x", policy="p")
    principal.reject_belief(belief_id="b1", at="x", policy="p")
    app.save(principal)  # versions 1-6: 4 is inside the batch, the snapshot is of 6
    principal.reinforce_belief(
        belief_id="b2", source_event_ids=["t3"], source_session_id="s2", at="x", policy="p"
    )
    principal.record_usage(
        run_id="run-1", session_id="s1", cited=["b2"], uncited=[], ambiguous=[],
        cited_delta=0.1, uncited_delta=0.05, at="x",
    )  # fmt: skip
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


def test_live_statuses_are_the_read_models() -> None:
    from memory_es.projections.candidates import LIVE

    assert set(LIVE) == LIVE_STATUSES
