"""``memory-es review list|show|approve|decline`` on SQLite and PostgreSQL."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.test_cli import run

LOVE = "I love hiking in the Dolomites with my dog Pepper."
FAVOURITE = "Hiking the Dolomites with Pepper, my dog, is my favourite thing."


@pytest.fixture
def aligned(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    overlay = tmp_path / "aligned.yaml"
    overlay.write_text("lifecycle:\n  alignment:\n    enabled: true\n")
    monkeypatch.setenv("MEMORY_ES_PROFILE", str(overlay))


def said(capsys: pytest.CaptureFixture[str], url: str, *texts: str) -> None:
    for text in texts:
        code, session, _ = run(capsys, url, "session", "open", "--principal", "ana")
        assert code == 0
        assert run(capsys, url, "session", "say", session.strip(), text)[0] == 0
        assert run(capsys, url, "session", "close", session.strip())[0] == 0


def proposals(capsys: pytest.CaptureFixture[str], url: str) -> list[dict[str, object]]:
    code, out, _ = run(capsys, url, "review", "list", "--principal", "ana", "--json")
    assert code == 0
    listed: list[dict[str, object]] = json.loads(out)
    return listed


def test_review_list_prints_each_proposal_with_its_members_as_memory_list_prints_them(
    capsys: pytest.CaptureFixture[str], persistent_store_url: str, aligned: None
) -> None:
    url = persistent_store_url
    said(capsys, url, LOVE, FAVOURITE)
    [proposal] = proposals(capsys, url)
    assert {"id", "kind", "state", "members", "reason"} <= set(proposal)
    assert (proposal["kind"], proposal["state"]) == ("consolidation", "pending")
    code, out, _ = run(capsys, url, "memory", "list", "--principal", "ana", "--json")
    listed = {b["belief_id"] for b in json.loads(out)}
    assert set(proposal["members"]) <= listed  # type: ignore[arg-type]
    code, out, _ = run(capsys, url, "review", "show", str(proposal["id"]))
    assert code == 0 and "pre-state" in out and "effect BeliefDeactivated" in out


def test_review_decline_records_the_reason_and_approve_of_a_moved_proposal_exits_1(
    capsys: pytest.CaptureFixture[str], persistent_store_url: str, aligned: None
) -> None:
    url = persistent_store_url
    said(capsys, url, LOVE, FAVOURITE)
    [proposal] = proposals(capsys, url)
    code, out, _ = run(
        capsys, url, "review", "decline", str(proposal["id"]), "--reason", "different trips"
    )
    assert code == 0 and out.strip().endswith("different trips")
    said(
        capsys,
        url,
        "I love cooking risotto with saffron.",
        "Cooking risotto with saffron, I love it.",
    )
    pending = [p for p in proposals(capsys, url) if p["state"] == "pending"]
    assert len(pending) == 1
    member = str(pending[0]["members"][0])  # type: ignore[index]
    assert run(capsys, url, "memory", "reject", member)[0] == 0
    code, out, _ = run(capsys, url, "review", "approve", str(pending[0]["id"]))
    assert code == 1 and out.startswith("refused: [m:") and "is rejected now" in out
    code, out, _ = run(capsys, url, "stats", "--principal", "ana", "--json")
    stats = json.loads(out)
    assert stats["proposals_consolidation_declined"] == 1
    assert stats["proposals_consolidation_refused"] == 1


# -- source evidence declarations: ``sources declare|list|apply``, ``--source`` ----------


def test_sources_are_declared_listed_and_bound_on_the_command_line(
    capsys: pytest.CaptureFixture[str], persistent_store_url: str, tmp_path: Path
) -> None:
    url = persistent_store_url
    code, out, _ = run(capsys, url, "sources", "declare", "crawler", "--authority", "untrusted")
    assert (code, out) == (0, "declared crawler untrusted unknown v1\n")
    code, _, err = run(capsys, url, "sources", "declare", "crawler", "--authority", "root")
    assert code == 2 and "invalid choice" in err
    code, _, err = run(
        capsys, url, "sources", "declare", "crawler", "--authority", "untrusted", "--version", "1"
    )
    assert code == 2 and "higher version" in err
    declarations = tmp_path / "sources.yaml"
    declarations.write_text(
        "sources:\n  repo docs: {authority: repository_attested, verification: verified}\n"
    )
    code, out, _ = run(capsys, url, "--sources", str(declarations), "sources", "list", "--json")
    assert code == 0
    assert [(d["source"], d["authority"], d["version"]) for d in json.loads(out)] == [
        ("crawler", "untrusted", 1),
        ("repo docs", "repository_attested", 1),
    ]
    code, out, _ = run(capsys, url, "sources", "apply", str(declarations))
    assert (code, out) == (0, "unchanged repo docs repository_attested verified v1\n")

    code, session, _ = run(capsys, url, "session", "open", "--principal", "ana")
    session = session.strip()
    assert run(capsys, url, "session", "say", session, "I like jazz.")[0] == 0
    code, out, _ = run(
        capsys, url, "session", "say", session, "I live in Paris.", "--source", "crawler"
    )
    assert (code, out) == (0, "turn 2 recorded untrusted\n")  # evidence, never memory
    code, out, _ = run(
        capsys, url, "session", "say", session, "I use Emacs.", "--source", "repo docs"
    )
    assert (code, out) == (0, "turn 3 recorded\n")
    assert run(capsys, url, "session", "close", session)[0] == 0
    code, out, _ = run(capsys, url, "memory", "list", "--principal", "ana", "--json")
    statements = sorted(b["statement"] for b in json.loads(out))
    assert statements == ["User likes jazz.", "User uses Emacs."]

    code, bound, _ = run(
        capsys, url, "session", "open", "--principal", "ana", "--source", "repo docs"
    )
    assert code == 0 and len(bound.strip()) == 36  # the id alone, as ever
    code, _, err = run(capsys, url, "session", "open", "--principal", "ana", "--source", "x")
    assert code == 0 and "source 'x' is not declared" in err
    code, out, _ = run(capsys, url, "sources", "list", "--history")
    assert out.splitlines() == [
        "crawler untrusted unknown v1",
        "repo docs repository_attested verified v1",
    ]


def test_the_sources_commands_choices_are_the_declarations_enums() -> None:
    from memory_es.cli.sources_cmds import AUTHORITIES, VERIFICATIONS
    from memory_es.evidence.declarations import SourceAuthority, Verification

    assert tuple(a.value for a in SourceAuthority) == AUTHORITIES
    assert tuple(v.value for v in Verification) == VERIFICATIONS
