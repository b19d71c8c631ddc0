"""Stores written by earlier code keep working.

``tests/data/store_38fedeb.sqlite`` was written by commit 38fedeb, the head before wave 2
(``tests/data/make_store_38fedeb.py``, run with that commit's code): two principals, five
sessions, supersessions, a rejection and a remember. ``store_38fedeb.json`` beside it holds
what that code recalled and listed at the end. Today's code must open the store, load every
aggregate in it, rebuild the read model from position 0 and answer the same.
"""

from __future__ import annotations

import json
import shutil
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

import memory_es
from memory_es.errors import StaleFormationWarning

DATA = Path(__file__).parent / "data"
STORE = DATA / "store_38fedeb.sqlite"
EXPECTED: dict[str, Any] = json.loads((DATA / "store_38fedeb.json").read_text())


@pytest.fixture
def old_store(tmp_path: Path) -> str:
    copy = tmp_path / STORE.name
    shutil.copyfile(STORE, copy)
    return f"sqlite:///{copy}"


def _open(url: str) -> memory_es.Memory:
    clock = memory_es.FixedClock(datetime.fromisoformat(EXPECTED["now"]))
    # The read model may carry an older policy version: rebuilding it is the documented way.
    return memory_es.open(url, clock=clock, on_stale="rebuild")


def _answers(memory: memory_es.Memory) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    recall = [
        {
            "principal": q["principal"],
            "query": q["query"],
            "lines": memory.recall(q["principal"], q["query"]).lines(),
        }
        for q in EXPECTED["recall"]
    ]
    beliefs = {
        p: sorted([b.belief_id, b.statement, str(b.status)] for b in memory.list_beliefs(p))
        for p in EXPECTED["beliefs"]
    }
    return recall, beliefs


def test_fixture_is_small_and_from_the_old_head() -> None:
    assert EXPECTED["written_by"] == "38fedeb"
    assert STORE.stat().st_size < 200_000


def test_old_store_replays_every_aggregate(old_store: str) -> None:
    with _open(old_store) as memory:
        originators: dict[Any, int] = {}
        for item in memory.app.recorder.select_notifications(start=1, limit=10_000):
            originators[item.originator_id] = max(
                originators.get(item.originator_id, 0), item.originator_version
            )
        assert len(originators) >= 7  # two principals, five sessions
        for originator_id, version in originators.items():
            aggregate = memory.app.repository.get(originator_id)
            assert aggregate.version == version


def test_old_store_recalls_as_it_did(old_store: str) -> None:
    with _open(old_store) as memory:
        recall, beliefs = _answers(memory)
    assert recall == EXPECTED["recall"]
    assert beliefs == EXPECTED["beliefs"]


def test_old_store_rebuilds_and_recalls_identically(old_store: str) -> None:
    with _open(old_store) as memory:
        replayed = memory.rebuild_projections()
        assert replayed > 0
        assert memory.projection_status().tracked_position == memory.projection_status().log_head
        recall, beliefs = _answers(memory)
    assert recall == EXPECTED["recall"]
    assert beliefs == EXPECTED["beliefs"]


def test_old_store_takes_new_writes(old_store: str) -> None:
    with _open(old_store) as memory:
        session = memory.open_session("alice")
        memory.say(session, "I live in Denver now.")
        memory.close_session(session)
        assert (
            memory.recall("alice", "where do I live").lines()[0].endswith("User lives in Denver.")
        )


def test_old_store_formed_under_formation_3_is_reported_and_rederived(old_store: str) -> None:
    """The store predates formation@4: start-up names the stale policy and the fix; a
    re-derivation keeps the rejection, and a second one writes nothing."""
    with pytest.warns(StaleFormationWarning, match=r"formation@3/clauses@3.*rederive --all"):
        memory = _open(old_store)
    with memory:
        rejected = {
            b.statement
            for p in EXPECTED["beliefs"]
            for b in memory.list_beliefs(p)
            if b.status == "rejected"
        }
        assert rejected
        head = memory.projection_status().log_head
        dry = memory.rederive()
        assert dry.sessions_examined == 5 and memory.projection_status().log_head == head
        done = memory.rederive(confirm=True)
        assert done.as_dict()["formed"] == dry.as_dict()["would_form"]
        assert done.as_dict()["retired"] == dry.as_dict()["would_retire"]
        for p in EXPECTED["beliefs"]:
            beliefs = memory.list_beliefs(p)
            for statement in rejected & {b.statement for b in beliefs}:
                assert {b.status for b in beliefs if b.statement == statement} == {"rejected"}
        assert not memory.formation_status().pending
        head = memory.projection_status().log_head
        assert memory.rederive(confirm=True).sessions_examined == 0
        assert memory.projection_status().log_head == head
