"""Policy bumps: a read model built under retrieval@1 is detected stale and rebuilt
(retrieval@6); a store formed under an older formation policy is reported at start-up
and re-derived (``memory rederive``) to what a fresh store forms."""

from __future__ import annotations

import warnings
from datetime import timedelta
from pathlib import Path
from typing import Any

import orjson
import pytest

import memory_es
from memory_es import policy
from memory_es.domain.values import LIVE_STATUSES
from memory_es.errors import StaleFormationWarning, StaleReadModel
from memory_es.formation.extractor import ClauseExtractor
from memory_es.policy import PROJECTION_SCHEMA_VERSION, retrieval_policy
from memory_es.ports import FixedClock
from tests.conformance import DAY, START, play
from tests.rederive_conformance import LegacyExtractor
from tests.test_cli import run

# The version a store was formed under, and the clause extractor's identity; a test
# build bumps the version past it.
OLD = policy.FORMATION_POLICY_VERSION
CLAUSES = ClauseExtractor().name


def test_a_retrieval_1_read_model_is_refused_then_rebuilt(persistent_store_url: str) -> None:
    url = persistent_store_url
    assert retrieval_policy() == "retrieval@6"
    clock = FixedClock(START)
    with memory_es.open(url, clock=clock, ids=memory_es.SequentialIds()) as memory:
        play(memory, clock)
        expected = memory.index.dump()
        lines = memory.recall("alice", "where do I live").lines()
        execute = getattr(memory.index, "_execute")  # noqa: B009 - SQL stores only
        with memory.index.writer():
            # As the foundation left it: no BM25 statistics, built under retrieval@1.
            execute("DELETE FROM principal_stats")
            execute(
                "UPDATE projection_tracking SET version = ? WHERE name = ?",
                (f"recall_index@{PROJECTION_SCHEMA_VERSION};retrieval@1", "recall_index"),
            )
    with pytest.raises(StaleReadModel, match=r"retrieval@1.*retrieval@6"):
        memory_es.open(url)
    with memory_es.open(url, on_stale="rebuild") as memory:
        expected_version = f"recall_index@{PROJECTION_SCHEMA_VERSION};retrieval@6"
        assert memory.projection_status().version == expected_version
        assert memory.index.dump() == expected
        assert memory.recall("alice", "where do I live").lines() == lines


def test_a_read_model_of_schema_8_is_rebuilt_once_at_start_up_and_said(
    persistent_store_url: str, capfd: pytest.CaptureFixture[str]
) -> None:
    """Schema 9 added what the resolver reads (migration 0010) and 10 each turn's
    antecedent words (0011, read by retrieval@6), all of it from the log: a store built
    as 8 under retrieval@5 (those columns empty, no subject or turn rows) is rebuilt by
    the first open, which says so on stderr; the rebuilt read model is a fresh build's,
    and a close after it meets the beliefs formed before."""
    url = persistent_store_url
    clock = FixedClock(START)
    with memory_es.open(url, clock=clock, ids=memory_es.SequentialIds()) as memory:
        play(memory, clock)
        expected = memory.index.dump()
        execute = getattr(memory.index, "_execute")  # noqa: B009 - SQL stores only
        with memory.index.writer():
            execute("UPDATE beliefs SET normalized = '', subject_key = '', source_seq = 0")
            execute("DELETE FROM belief_subjects")
            execute("DELETE FROM turns")
            execute(
                "UPDATE projection_tracking SET version = ? WHERE name = ?",
                ("recall_index@8;retrieval@5", "recall_index"),
            )
    capfd.readouterr()
    with memory_es.open(url, clock=clock, ids=memory_es.SequentialIds()) as memory:
        said = capfd.readouterr().err
        assert "built as recall_index@8;retrieval@5" in said
        assert "rebuilding it once from the log" in said
        assert memory.index.dump() == expected
        home = {b.statement: b for b in memory.list_beliefs("alice")}
        clock.advance(DAY)
        session = memory.open_session("alice")
        memory.say(session, "I live in Portland.")
        memory.close_session(session)
        again = {b.statement: b for b in memory.list_beliefs("alice")}
        assert again.keys() == home.keys()  # met, not formed twice
        portland = "User lives in Portland."
        assert again[portland].evidence_count == home[portland].evidence_count + 1
    with memory_es.open(url, clock=clock) as memory:
        assert "rebuilding" not in capfd.readouterr().err  # once


# -- a formation policy bump, end to end ------------------------------------------

TURNS = [
    orjson.dumps({"principal": p, "session": s, "at": at, "text": text}).decode()
    for p, s, at, text in (
        ("ana", "rome", "2026-03-02T09:00:00Z", "I live in Rome. I have a Vespa."),
        ("bo", "tea", "2026-03-03T09:00:00Z", "I live in Oslo. I prefer tea over coffee."),
        ("ana", "milan", "2026-03-04T09:00:00Z", "I live in Milan now."),
        ("bo", "bergen", "2026-03-05T09:00:00Z", "I live in Bergen now."),
    )
]
QUERIES = (("ana", "where do I live"), ("ana", "Vespa"), ("bo", "where do I live"), ("bo", "tea"))


def recall_index(memory: memory_es.Memory) -> tuple[list[tuple[Any, ...]], list[list[str]]]:
    """The recall read model as a reader sees it, without what names a store's own run
    (ids, positions, formation instants, the policy tag of a belief left untouched): the
    live beliefs with what ranks and filters them, and the recalled lines of each query."""
    live = sorted(
        (
            b.principal,
            b.statement,
            b.belief_type,
            b.status.value,
            b.authority,
            b.confidence,
            b.project,
            b.portable,
            b.valid_from,
            b.valid_to,
            b.evidence_count,
            b.last_evidence_at,
            b.utility,
        )
        for principal in ("ana", "bo")
        for b in memory.list_beliefs(principal)
        if b.status in LIVE_STATUSES
    )
    lines = [[line.split("] ", 1)[1] for line in memory.recall(p, q).lines()] for p, q in QUERIES]
    return live, lines


def test_a_formation_bump_is_reported_at_start_up_and_rederives_to_a_fresh_store(
    persistent_store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = persistent_store_url
    with memory_es.open(url, ids=memory_es.SequentialIds(), extractor=LegacyExtractor()) as old:
        old.ingest(TURNS)
    # The test build: the formation version bumped and today's extractor in place.
    monkeypatch.setattr(policy, "FORMATION_POLICY_VERSION", OLD + 1)
    clock = FixedClock(START + timedelta(days=30))
    stale = rf"4 of 4 sessions \(2 principals\) were formed under formation@{OLD}/legacy@1; this"
    with (
        pytest.warns(
            StaleFormationWarning, match=stale + rf".*formation@{OLD + 1}/{CLAUSES}.*rederive"
        ),
        memory_es.open(url, clock=clock, extractor=ClauseExtractor()) as memory,
    ):
        assert memory.formation_staleness is not None
        assert memory.formation_staleness.stale_policies == (f"formation@{OLD}/legacy@1",)
        head = memory.projection_status().log_head
        dry = memory.rederive().as_dict()
        assert memory.projection_status().log_head == head  # a dry run writes nothing
        assert (dry["sessions_examined"], dry["would_form"], dry["would_retire"]) == (4, 2, 4)
        done = memory.rederive(confirm=True).as_dict()
        assert (done["formed"], done["retired"], done["unchanged"]) == (2, 4, 4)
        retired = next(b for b in memory.list_beliefs("ana") if b.status == "retired")
        reason = memory.belief_history(retired.belief_id)[-1].fields["reason"]
        assert reason == f"rederived:formation@{OLD + 1}"
        with memory_es.open("memory://", extractor=ClauseExtractor()) as fresh:
            fresh.ingest(TURNS)
            assert recall_index(memory) == recall_index(fresh)
            assert recall_index(memory)[1][0] == ["User lives in Milan."]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # re-derived: nothing is stale any more
        with memory_es.open(url, extractor=ClauseExtractor()) as memory:
            assert memory.formation_staleness is None
            assert memory.rederive(confirm=True).sessions_examined == 0


def test_the_command_line_names_the_stale_policy_and_its_fix(
    capsys: pytest.CaptureFixture[str],
    persistent_store_url: str,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    url = persistent_store_url
    turns = tmp_path / "turns.jsonl"
    turns.write_text("\n".join(TURNS) + "\n")
    assert run(capsys, url, "ingest", str(turns))[0] == 0
    monkeypatch.setattr(policy, "FORMATION_POLICY_VERSION", OLD + 1)

    code, out, err = run(capsys, url, "memory", "list", "--principal", "ana")
    assert code == 0 and "User has a Vespa." in out
    assert err.count("\n") == 1 and err.startswith("memory-es: warning: 4 of 4 sessions")
    assert (
        f"formation@{OLD}/{CLAUSES}+residue" in err
        and f"formation@{OLD + 1}/{CLAUSES}+residue" in err
    )
    assert "`memory-es memory rederive --all --dry-run`" in err
    code, out, _ = run(capsys, url, "projections", "status")
    assert code == 0 and "formation: re-derivation pending — 4 of 4 sessions" in out
    status = orjson.loads(run(capsys, url, "projections", "status", "--json")[1])
    assert status["formation"]["pending"] and status["formation"]["stale_sessions"] == 4

    for dry_run in ((), ("--dry-run",)):
        code, out, err = run(capsys, url, "memory", "rederive", "--all", *dry_run, "--json")
        dry = orjson.loads(out)
        assert code == 0 and err == "" and dry["dry_run"]
        assert {"sessions_examined", "sessions_skipped", "would_form", "would_retire"} <= set(dry)
        assert (dry["sessions_examined"], dry["would_form"], dry["would_retire"]) == (4, 0, 0)
    after = orjson.loads(run(capsys, url, "projections", "status", "--json")[1])
    assert after["log_head"] == status["log_head"]
    code, out, _ = run(capsys, url, "memory", "rederive", "--principal", "ana")
    assert code == 0 and "would stay:" in out and out.rstrip().endswith("add --confirm to apply it")

    code, out, _ = run(capsys, url, "memory", "rederive", "--all", "--confirm", "--json")
    done = orjson.loads(out)
    assert code == 0 and {"formed", "retired", "unchanged"} <= set(done)
    assert (done["sessions_examined"], done["formed"], done["retired"]) == (4, 0, 0)
    assert done["unchanged"] == dry["unchanged"] > 0
    head = orjson.loads(run(capsys, url, "projections", "status", "--json")[1])["log_head"]
    code, out, _ = run(capsys, url, "memory", "rederive", "--all", "--confirm", "--json")
    assert orjson.loads(out)["sessions_skipped"] == 4 and orjson.loads(out)["formed"] == 0
    assert orjson.loads(run(capsys, url, "projections", "status", "--json")[1])["log_head"] == head
    code, out, err = run(capsys, url, "memory", "list", "--principal", "ana")
    assert code == 0 and err == ""
    assert (
        f"formation: formation@{OLD + 1}/{CLAUSES}+residue — current (4 sessions)"
        in (run(capsys, url, "projections", "status")[1])
    )


@pytest.mark.parametrize(
    "args, message",
    [
        (("--all", "--dry-run", "--confirm"), "--dry-run and --confirm contradict each other"),
        ((), "one of the arguments --principal --all is required"),
        (("--all", "--principal", "ana"), "not allowed with argument"),
        (("--principal", "nobody"), "unknown principal: nobody has no memory"),
    ],
)
def test_rederive_usage_errors_are_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, args: tuple[str, ...], message: str
) -> None:
    url = f"sqlite:///{tmp_path / 'm.db'}"
    memory_es.open(url).close()  # a store that exists: the usage is what is refused
    code, out, err = run(capsys, url, "memory", "rederive", *args)
    assert code == 2 and out == "" and message in err
    assert err.strip().splitlines()[-1].startswith("memory-es")


def test_start_up_reads_staleness_from_the_read_model_not_the_log(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What is stale comes from each session's projected formation key (one grouped
    query), equal to what the log's ledger says, with no scan of the log."""
    from memory_es.services import ledger

    with memory_es.open(
        "memory://", ids=memory_es.SequentialIds(), extractor=LegacyExtractor()
    ) as m:
        m.ingest(TURNS)
        m.extractor = ClauseExtractor(residue=True)
        by_log = ledger.formation_status_from_log(m.app, m.extractor.name)

        def no_scan(*_: Any) -> Any:
            raise AssertionError("the start-up check scanned the log")

        monkeypatch.setattr(ledger, "_events", no_scan)
        status = m.formation_status()
    assert status == by_log and status.pending and status.stale_sessions == 4
    assert status.stale_policies == (f"formation@{OLD}/legacy@1",)
