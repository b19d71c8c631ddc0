"""The lifecycle's pure rules (usage plans, importance), what decay retirement leaves
revivable, and the lifecycle on the command line. Store-facing behaviour is in
tests/lifecycle_conformance.py, on every store."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from memory_es.domain.principal import FormedBelief, PrincipalMemory
from memory_es.domain.resolver import Evidence
from memory_es.domain.values import Authority
from memory_es.lifecycle.importance import importance
from memory_es.lifecycle.usage import plan_usage, shown_trace
from memory_es.profiles import load_profile
from tests.aggregate_reads import reads_of
from tests.stores import sqlite_url
from tests.test_cli import run

POPO = {"PERSISTENCE_MODULE": "eventsourcing.popo"}


def trace(trace_id: str, *returned: str) -> Any:
    return shown_trace(
        trace_id=trace_id,
        principal="default/ana",
        kind="in_turn",
        session_id="s",
        created_at="2026-03-02T09:00:00Z",
        expires_at="2026-04-01T09:00:00Z",
        policy="retrieval@2",
        item_limit=len(returned),
        returned=returned,
    )


# -- usage plans ---------------------------------------------------------------------------

A = "aaaaaaaa-0000-0000-0000-000000000001"
A2 = "aaaaaaaa-0000-0000-0000-000000000002"  # the same short id as A
B = "bbbbbbbb-0000-0000-0000-000000000001"
C = "cccccccc-0000-0000-0000-000000000001"


def test_a_short_id_that_fits_several_returned_beliefs_credits_and_charges_nothing() -> None:
    plan = plan_usage([trace("t1", A, B), trace("t2", A2, C)], "See [m:aaaaaaaa] and [m:bbbbbbbb].")
    assert plan.ambiguous == ("aaaaaaaa",)
    assert plan.cited == (B,)
    assert plan.uncited == (C,)  # A and A2 are neither credited nor charged
    assert plan.marks == {"t1": (B,)}


def test_citations_are_the_renderers_form_only() -> None:
    plan = plan_usage([trace("t", A, B)], "aaaaaaaa, m:bbbbbbbb, [m:BBBBBBBB]")
    assert plan.cited == () and plan.uncited == (A, B)


def test_a_belief_cited_through_one_trace_is_not_charged_through_another() -> None:
    plan = plan_usage([trace("t1", B), trace("t2", B, C)], "[m:bbbbbbbb]")
    assert plan.cited == (B,) and plan.uncited == (C,)
    assert plan.marks == {"t1": (B,), "t2": (B,)}


# -- importance ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("belief_type", "key", "authority", "updates", "expected"),
    [
        ("fact", "episode/user went out", Authority.USER, False, 0),  # a working note: low
        ("fact", "episode/user went out", Authority.USER, True, 1),
        ("preference", "tea", Authority.USER, False, 1),
        ("user_model_attr", "home location", Authority.USER, True, 2),
        ("procedure_pointer", "deploys", Authority.AFFIRMED, True, 3),  # clamped at 3
        ("procedure_pointer", "deploys", Authority.INFERRED, True, 1),  # weak evidence: <= normal
        ("unknown_kind", "x", Authority.USER, False, 1),  # unknown kinds: the neutral base
    ],
)
def test_importance_is_the_rfcs_deterministic_seed(
    belief_type: str, key: str, authority: Authority, updates: bool, expected: int
) -> None:
    assert (
        importance(
            belief_type=belief_type,
            subject_key=key,
            authority=int(authority),
            updates_state=updates,
        )
        == expected
    )


# -- the aggregate ------------------------------------------------------------------------------


def _formed(principal: PrincipalMemory, belief_id: str, source: str) -> None:
    principal.form_belief(
        FormedBelief(
            belief_id=belief_id,
            statement="User likes jazz.",
            normalized="user likes jazz",
            belief_type="preference",
            subjects=["jazz"],
            subject_key="jazz",
            polarity=True,
            authority=int(Authority.INFERRED),
            confidence=0.6,
            status="provisional",
            project="general",
            portable=True,
            source_event_ids=[source],
            source_session_id="s1",
            source_seq=1,
            valid_from="2026-03-02T09:00:00Z",
            formed_at="2026-03-02T09:00:00Z",
            policy="formation@test",
            supersedes=None,
            conflicts_with=None,
        )
    )


def test_only_a_decay_retirement_is_revivable() -> None:
    principal = PrincipalMemory(tenant="default", principal="ana")
    reads = reads_of(principal)
    _formed(principal, "b1", "t1")
    _formed(principal, "b2", "t2")
    principal.retire_belief("b1", 0.1, "2027-01-01T00:00:00Z", "decay", "formation@test")
    principal.retire_belief(
        "b2", 0.6, "2027-01-01T00:00:00Z", "rederived:formation@9", "formation@test"
    )
    assert reads.is_forgotten("b1") and not reads.is_forgotten("b2")
    assert [e.retired for e in reads.candidates(_jazz())] == [True, False]
    principal.revive_belief("b1", 0.8, "active", "2027-02-01T00:00:00Z", "formation@test")
    assert not reads.is_forgotten("b1") and reads.status_of("b1") == "active"
    assert [e.live for e in reads.candidates(_jazz())] == [True, False]


def _jazz() -> Evidence:
    return Evidence(
        belief_type="preference",
        subject_key="jazz",
        normalized="user likes jazz",
        polarity=True,
        authority=Authority.INFERRED,
        instant="2027-03-01T00:00:00Z",
        session_id="s2",
        seq=1,
        source_event_ids=frozenset({"t9"}),
        project="general",
        portable=True,
    )


def test_the_lifecycle_knobs_default_off_and_mirror_the_shipped_document() -> None:
    shipped = load_profile()
    assert shipped.lifecycle.l1.enabled is False
    assert load_profile({"lifecycle": {"l1": {"enabled": True}}}).lifecycle.l1.enabled


# -- the command line ---------------------------------------------------------------------------


def test_the_lifecycle_commands_end_to_end(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    url = sqlite_url(tmp_path)
    code, session, _ = run(capsys, url, "session", "open", "--principal", "ana")
    session = session.strip()
    assert code == 0
    run(capsys, url, "session", "say", session, "I live in Oslo. I like jazz.")
    assert run(capsys, url, "session", "close", session)[0] == 0
    code, out, _ = run(capsys, url, "memory", "list", "--principal", "ana", "--json")
    beliefs = json.loads(out)
    jazz = next(b for b in beliefs if b["statement"] == "User likes jazz.")
    assert jazz["utility"] == 0.0 and jazz["last_used_at"] is None

    code, second, _ = run(capsys, url, "session", "open", "--principal", "ana")
    second = second.strip()
    assert run(capsys, url, "context", "--session", second, "What music?")[0] == 0
    cite = ("memory", "cite", "--session", second, "--run", "run-1", "--json")
    code, out, _ = run(capsys, url, *cite, f"You like jazz [m:{jazz['short_id']}].")
    assert code == 0 and json.loads(out)["cited"] == [jazz["belief_id"]]
    code, out, _ = run(capsys, url, *cite, f"You like jazz [m:{jazz['short_id']}].")
    assert json.loads(out)["recorded"] is False
    code, out, _ = run(capsys, url, "memory", "list", "--principal", "ana", "--json")
    cited = next(b for b in json.loads(out) if b["belief_id"] == jazz["belief_id"])
    assert cited["utility"] == 0.1 and cited["confidence"] == jazz["confidence"]

    code, out, _ = run(capsys, url, "memory", "pin", jazz["short_id"], "--principal", "ana")
    assert code == 0 and "pinned" in out
    code, out, _ = run(capsys, url, "memory", "unpin", jazz["belief_id"])
    assert code == 0 and "unpinned" in out
    code, _, err = run(capsys, url, "memory", "reactivate", jazz["short_id"], "--principal", "ana")
    assert code == 2 and "not deactivated" in err and "Traceback" not in err
    code, _, err = run(capsys, url, "memory", "confirm", jazz["short_id"], "--principal", "ana")
    assert code == 2 and "no conflict" in err
    code, out, _ = run(capsys, url, "memory", "conflicts", "--principal", "ana", "--json")
    assert code == 0 and json.loads(out) == []

    later = "2027-06-01T09:00:00Z"
    code, out, _ = run(capsys, url, "maintenance", "run", "--dry-run", "--json", now=later)
    dry = json.loads(out)
    assert code == 0 and dry["dry_run"] and dry["l1"]["dry_run"]
    code, out, _ = run(capsys, url, "maintenance", "run", now=later)
    assert code == 0 and "decay sweep" in out and "L1 auto_decay:v1" in out
    code, out, _ = run(capsys, url, "maintenance", "run", "--json", now=later)
    assert json.loads(out)["decay"]["eligible"] == 0  # the same instant: nothing changes

    code, out, _ = run(capsys, url, "stats", "--principal", "ana", "--json")
    stats = json.loads(out)
    assert code == 0 and stats["citations_recorded"] == 1
    assert all(type(v) is int for v in stats.values())
    assert "jazz" not in out.lower() and str(tmp_path) not in out
    code, out, _ = run(capsys, url, "stats")
    assert code == 0 and "decay_sweeps:" in out


def test_remember_from_user_forms_at_user_authority(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    url = sqlite_url(tmp_path)
    run(capsys, url, "memory", "remember", "--principal", "ana", "The deploy window is Friday")
    run(capsys, url, "memory", "remember", "--principal", "ana", "--from-user", "Ship on Monday")
    _, out, _ = run(capsys, url, "memory", "list", "--principal", "ana", "--json")
    authorities = {b["statement"]: b["authority"] for b in json.loads(out)}
    assert authorities == {"The deploy window is Friday.": 2, "Ship on Monday.": 3}
