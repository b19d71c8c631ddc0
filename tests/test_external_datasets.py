"""External dataset adapters (seed: "Public datasets, opt-in and never vendored").

Every test runs on tiny synthetic fixtures shaped like the real files, quirks included
(tests/external_fixtures.py); the real datasets never enter the repository.
"""

from __future__ import annotations

import json
import subprocess
from datetime import UTC, datetime
from fnmatch import fnmatch
from pathlib import Path
from typing import Any

import pytest

from memory_es.benchmarks.external import (
    load_halumem,
    load_locomo,
    load_longmemeval,
    main,
    run,
    runner,
)
from memory_es.benchmarks.external.metrics import answer_rendered, judge
from memory_es.benchmarks.external.model import LoadReport, MalformedDataset, Session
from tests.external_fixtures import (
    halumem_users,
    locomo_items,
    longmemeval_items,
    write_json,
    write_jsonl,
)

ROOT = Path(__file__).resolve().parent.parent
DATASET_NAME_PATTERNS = ("locomo10*.json", "longmemeval_*.json", "halumem*")
MAX_TRACKED_BYTES = 2 * 1024 * 1024


@pytest.fixture
def locomo_file(tmp_path: Path) -> Path:
    return write_json(tmp_path / "synthetic-locomo.json", locomo_items())


@pytest.fixture
def longmemeval_file(tmp_path: Path) -> Path:
    return write_json(tmp_path / "synthetic-lme.json", longmemeval_items())


@pytest.fixture
def halumem_file(tmp_path: Path) -> Path:
    return write_jsonl(tmp_path / "synthetic-hm.jsonl", halumem_users())


# -- gate.memory.bench_external_adapters -----------------------------------------------------------


def test_bench_external_adapters_repository_holds_no_dataset_file() -> None:
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.decode()
    tracked = [name for name in listed.split("\0") if name]
    assert tracked, "git ls-files listed nothing: not a checkout?"
    named_like_data = [
        name
        for name in tracked
        if any(fnmatch(Path(name).name.lower(), pattern) for pattern in DATASET_NAME_PATTERNS)
    ]
    assert named_like_data == []
    too_big = [
        name
        for name in tracked
        if (ROOT / name).is_file() and (ROOT / name).stat().st_size > MAX_TRACKED_BYTES
    ]
    assert too_big == []


def test_bench_external_adapters_each_loader_maps_its_synthetic_fixture(
    locomo_file: Path, longmemeval_file: Path, halumem_file: Path
) -> None:
    for scenarios in (
        list(load_locomo.load(locomo_file, LoadReport())),
        list(load_longmemeval.load(longmemeval_file, LoadReport())),
        list(load_halumem.load(halumem_file, LoadReport())),
    ):
        assert scenarios
        for scenario in scenarios:
            assert scenario.sessions and scenario.principals
            refs = {t.ref for s in scenario.sessions for t in s.turns}
            session_refs = {s.ref for s in scenario.sessions}
            for probe in scenario.probes:
                assert probe.evidence, probe.probe_id
                for e in probe.evidence:
                    assert e.session_ref in session_refs
                    assert e.turn_ref is None or e.turn_ref in refs
    (user,) = load_halumem.load(halumem_file, LoadReport())
    assert [b.label for b in user.labeled_beliefs] == ["s0:m1", "s1:m1", "s1:m2"]


# -- LoCoMo -------------------------------------------------------------------------------


def test_locomo_reads_sessions_in_numeric_order(locomo_file: Path) -> None:
    (scenario,) = load_locomo.load(locomo_file, LoadReport())
    assert [s.ref for s in scenario.sessions] == [f"D{n}" for n in range(1, 11)]
    assert scenario.sessions[0].at is not None and scenario.sessions[9].at is not None
    assert scenario.sessions[0].at < scenario.sessions[9].at


def test_locomo_quirks_are_tolerated_and_counted(locomo_file: Path) -> None:
    report = LoadReport()
    (scenario,) = load_locomo.load(locomo_file, report)
    probes = {p.question: p for p in scenario.probes}
    assert probes["What year did Avery move?"].answer == "2023"  # an integer answer
    assert [e.turn_ref for e in probes["What year did Avery move?"].evidence] == ["D10:1"]
    assert [e.turn_ref for e in probes["Where does Avery work now?"].evidence] == ["D10:1"]
    read = probes["What did Avery read?"].evidence
    assert [(e.session_ref, e.turn_ref) for e in read] == [("D7", "D7:1"), ("D7", None)]
    assert probes["Where does Blake live?"].answer is None  # adversarial, kept
    assert report.skipped == {"no_usable_evidence": 2, "answer_missing": 1}
    assert report.quirks["answer_not_a_string"] == 1
    assert report.quirks["adversarial_without_answer"] == 1
    assert report.quirks["evidence_ids_joined_in_one_string"] == 1
    assert report.quirks["evidence_id_zero_padded"] == 1
    assert report.quirks["evidence_id_stray_colon"] == 1
    assert report.quirks["evidence_id_malformed_dropped"] == 1
    assert report.quirks["evidence_turn_unknown_session_fallback"] == 1
    assert report.quirks["evidence_session_unknown_dropped"] == 1


def test_locomo_both_scores_each_question_against_its_evidence_speaker(
    locomo_file: Path,
) -> None:
    (scenario,) = load_locomo.load(locomo_file, LoadReport(), principal_speaker="both")
    probes = {p.question: p for p in scenario.probes}
    assert scenario.principals == ("Avery", "Blake")
    assert probes["Where does Avery live?"].principals == ("Avery",)
    assert probes["Where does Blake work?"].principals == ("Blake",)
    cross = probes["Which dog and which tea?"]
    assert (cross.category, cross.in_overall, cross.principals) == (
        "cross-speaker",
        False,
        ("Avery", "Blake"),
    )
    assert not probes["Where does Blake live?"].in_overall  # adversarial


def test_locomo_one_principal_scores_only_questions_on_its_turns(locomo_file: Path) -> None:
    report = LoadReport()
    (scenario,) = load_locomo.load(locomo_file, report, principal_speaker="a")
    assert scenario.principals == ("Avery",)
    assert all(p.principals == ("Avery",) for p in scenario.probes)
    assert "Where does Blake work?" not in {p.question for p in scenario.probes}
    assert report.skipped["evidence_not_in_principal_turns"] == 2  # Blake's and cross


def test_locomo_run_finds_the_evidence_turn_through_belief_provenance(
    locomo_file: Path, tmp_path: Path
) -> None:
    document = run("locomo", locomo_file, tmp_path / "m.json", progress=False)
    single_hop = document["categories"]["single-hop"]
    # "Where does Avery live?" forms "User lives in Lisbon." from D1:1 in Avery's turns;
    # "Where does Avery work now?" forms from D10:1.
    assert single_hop["n"] == 2
    assert single_hop["recall_any@5"] == 1.0
    assert single_hop["rendered_tokens_per_probe@5"] > 0
    multi_hop = document["categories"]["multi-hop"]  # Blake works at Fernwood Bakery
    assert (multi_hop["n"], multi_hop["recall_any@10"]) == (1, 1.0)
    assert document["n"] == 5  # categories 1-4 with single-speaker evidence
    assert document["categories"]["cross-speaker"]["in_overall"] is False
    assert document["counts"]["beliefs_formed"] >= 3
    reference = document["reference"]["bm25_own_turns"]["categories"]["single-hop"]
    assert reference["recall_any@5"] == 1.0
    # "Lisbon" is in "User lives in Lisbon." and in the raw turn the reference returns.
    assert single_hop["answered"] == 2 and single_hop["answer_rendered@5"] > 0
    assert reference["answer_rendered@5"] > 0
    for figures in (
        document["overall"],
        reference,
        document["reference"]["bm25_all_turns"]["overall"],
    ):
        assert {"answer_rendered@5", "answer_rendered@10", "recall_any@10"} <= figures.keys()


# -- LongMemEval --------------------------------------------------------------------------


def test_longmemeval_maps_types_and_abstention(longmemeval_file: Path) -> None:
    scenarios = {s.scenario_id: s for s in load_longmemeval.load(longmemeval_file, LoadReport())}
    (user,) = scenarios["q-user-1"].probes
    assert (user.category, user.in_overall) == ("single-session-user", True)
    assert [e.turn_ref for e in user.evidence] == ["answer_s1#0"]
    (assistant,) = scenarios["q-asst-1"].probes
    assert (assistant.category, assistant.in_overall) == ("single-session-assistant", False)
    (abstain,) = scenarios["q-user-2_abs"].probes
    assert (abstain.category, abstain.in_overall, abstain.answer) == ("abstention", False, "7")
    assert scenarios["q-ku-1"].sessions[1].at is not None


def test_longmemeval_answer_session_with_no_marked_turn_is_not_evidence(
    longmemeval_file: Path,
) -> None:
    """The official evaluation renames such a session ``noans``: no session fallback."""
    report = LoadReport()
    scenarios = {s.scenario_id: s for s in load_longmemeval.load(longmemeval_file, report)}
    (probe,) = scenarios["q-ms-1"].probes
    assert [(e.session_ref, e.turn_ref) for e in probe.evidence] == [("answer_s0", "answer_s0#0")]
    assert all(e.turn_ref is not None for s in scenarios.values() for e in s.probes[0].evidence)
    assert report.quirks["answer_session_without_marked_turn_not_evidence"] == 1


def test_longmemeval_replays_sessions_in_date_order(longmemeval_file: Path) -> None:
    report = LoadReport()
    scenarios = {s.scenario_id: s for s in load_longmemeval.load(longmemeval_file, report)}
    porto, lisbon = scenarios["q-order-1"].sessions  # listed Lisbon (14:00) first
    assert (porto.ref, lisbon.ref) == ("s1", "answer_s0")
    assert porto.at is not None and lisbon.at is not None and porto.at < lisbon.at
    assert scenarios["q-order-1"].probes[0].after_session == 1
    assert report.quirks["sessions_replayed_in_date_order"] == 1
    # In order already: untouched.
    assert [s.ref for s in scenarios["q-ku-1"].sessions] == ["answer_s0", "answer_s1"]


def test_longmemeval_undated_session_keeps_its_place_after_the_one_before() -> None:
    def session(ref: str, day: int | None) -> Session:
        at = None if day is None else datetime(2023, 5, day, tzinfo=UTC)
        return Session(ref=ref, at=at, turns=())

    listed = [session("a", 20), session("b", None), session("c", 18), session("d", 21)]
    ordered = load_longmemeval.in_time_order(listed)
    assert [s.ref for s in ordered] == ["c", "a", "b", "d"]


def test_longmemeval_probe_is_asked_at_its_question_date(longmemeval_file: Path) -> None:
    report = LoadReport()
    scenarios = {s.scenario_id: s for s in load_longmemeval.load(longmemeval_file, report)}
    (probe,) = scenarios["q-order-1"].probes
    assert probe.asked_at == datetime(2023, 5, 27, 18, 30, tzinfo=UTC)
    # Dated before its last session: asked once that session is recorded, and counted.
    (early,) = scenarios["q-early-1"].probes
    assert early.asked_at == scenarios["q-early-1"].sessions[-1].at
    assert report.quirks["question_date_before_last_session"] == 1


def test_longmemeval_run_asks_at_question_date_over_sessions_in_date_order(
    longmemeval_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: dict[str, tuple[datetime, list[tuple[str, str]]]] = {}
    score = runner._score_memory

    def spy(memory: Any, probe: Any, *args: Any) -> None:
        items = memory.recall("user", probe.question).items
        lines = [(i.record.statement, i.validity) for i in items]
        asked[probe.probe_id] = (memory.retriever.clock.now(), lines)
        score(memory, probe, *args)

    monkeypatch.setattr(runner, "_score_memory", spy)
    document = run("longmemeval", longmemeval_file, tmp_path / "m.json", progress=False)
    at, lines = asked["q-order-1"]
    assert at == datetime(2023, 5, 27, 18, 30, tzinfo=UTC)
    # Replayed in list order, the 09:00 Porto statement would arrive after the 14:00 move
    # and sit beside it as an unresolved conflict; by date, Lisbon is simply current.
    assert lines == [("User lives in Lisbon.", "current")]
    assert document["categories"]["knowledge-update"]["recall_any@5"] == 1.0


def test_sample_is_drawn_from_the_overall_population_and_its_counts_reported(
    longmemeval_file: Path, tmp_path: Path
) -> None:
    population = [
        p
        for s in load_longmemeval.load(longmemeval_file, LoadReport())
        for p in s.probes
        if p.in_overall
    ]
    document = run(
        "longmemeval", longmemeval_file, tmp_path / "m.json", sample=3, seed=1, progress=False
    )
    drawn = document["sample_drawn"]
    assert (drawn["population"], drawn["drawn"]) == (len(population), 3)
    assert sum(drawn["categories"].values()) == 3 == document["n"]
    assert document["counts"]["probes_scored"] == 3  # no separate category was drawn
    assert all(document["categories"][c]["n"] == n for c, n in drawn["categories"].items())
    everything = run(
        "longmemeval", longmemeval_file, tmp_path / "all.json", sample=99, progress=False
    )
    assert everything["sample_drawn"]["drawn"] == len(population) == everything["n"]
    assert (
        run("longmemeval", longmemeval_file, tmp_path / "none.json", progress=False)["sample_drawn"]
        is None
    )


def test_longmemeval_single_session_assistant_is_reported_separately_at_zero(
    longmemeval_file: Path, tmp_path: Path
) -> None:
    document = run("longmemeval", longmemeval_file, tmp_path / "m.json", progress=False)
    assistant = document["categories"]["single-session-assistant"]
    assert assistant["in_overall"] is False and assistant["recall_any@20"] == 0.0
    assert assistant["returned_per_probe@20"] == 0.0 and assistant["noise@20"] is None
    assert document["n"] == 5  # every question not reported separately
    assert document["categories"]["single-session-user"]["recall_any@5"] == 1.0
    assert document["categories"]["knowledge-update"]["recall_any@5"] == 1.0


# -- HaluMem ------------------------------------------------------------------------------


def test_halumem_updates_are_labelled_supersessions(halumem_file: Path) -> None:
    report = LoadReport()
    (user,) = load_halumem.load(halumem_file, report)
    porto = next(b for b in user.labeled_beliefs if b.label == "s1:m1")
    assert porto.is_update and porto.supersedes == ("s0:m1",)
    assert user.unresolved_supersessions == 1  # "owned a canoe" names no earlier point
    probes = {p.question: p for p in user.probes}
    assert probes["Where do I live?"].after_session == 0
    assert [(e.session_ref, e.turn_ref) for e in probes["Where do I live now?"].evidence] == [
        ("s1", None)
    ]
    assert report.skipped["no_usable_evidence"] == 1  # the Memory Boundary question
    first, second = user.sessions
    assert first.at is not None and first.turns[0].at is not None
    assert (first.turns[0].at - first.at).total_seconds() == 6  # the turn's own timestamp
    assert second.turns[0].at is None  # "x" is no time: the driver spaces turns itself


def test_halumem_probe_is_asked_after_its_own_session(halumem_file: Path, tmp_path: Path) -> None:
    document = run("halumem", halumem_file, tmp_path / "m.json", progress=False)
    assert document["licence"] == "CC BY-NC-ND 4.0"
    assert document["counts"]["labeled_supersessions"] == 1
    assert document["categories"]["Basic Fact Recall"]["recall_any@5"] == 1.0
    assert document["categories"]["Dynamic Update"]["recall_any@5"] == 1.0


# -- the metrics file and the command ------------------------------------------------------


def test_metrics_file_names_dataset_licence_sample_seed_and_digest_never_the_path(
    locomo_file: Path, tmp_path: Path
) -> None:
    output = tmp_path / "out" / "metrics.json"
    run("locomo", locomo_file, output, sample=3, seed=7, progress=False)
    text = output.read_text()
    document = json.loads(text)
    assert document["dataset"] == "locomo" and document["licence"] == "CC BY-NC 4.0"
    assert (document["sample"], document["seed"]) == (3, 7)
    import hashlib

    assert document["file_sha256"] == hashlib.sha256(locomo_file.read_bytes()).hexdigest()
    for key in ("recall_any@5", "recall_any@10", "recall_any@20", "recall_all@10"):
        assert 0.0 <= document["overall"][key] <= 1.0
        for category in document["categories"].values():
            assert 0.0 <= category[key] <= 1.0
    assert str(tmp_path) not in text and locomo_file.name not in text
    assert "Lisbon" not in text and "lives in" not in text  # no statement, no turn text


def test_sampling_is_deterministic_and_sized(locomo_file: Path, tmp_path: Path) -> None:
    first = run("locomo", locomo_file, tmp_path / "a.json", sample=4, seed=3, progress=False)
    second = run("locomo", locomo_file, tmp_path / "b.json", sample=4, seed=3, progress=False)
    first.pop("wall_seconds"), second.pop("wall_seconds")
    assert first == second
    assert first["counts"]["probes_scored"] == 4
    assert first["counts"]["eligible_probes"] == 7


def test_existing_output_is_refused(locomo_file: Path, tmp_path: Path) -> None:
    output = tmp_path / "m.json"
    output.write_text("keep me")
    assert main(["--external", "locomo", "--path", str(locomo_file), "--output", str(output)]) == 2
    assert output.read_text() == "keep me"


def test_command_exit_codes(
    locomo_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ok = tmp_path / "ok.json"
    args = ["--external", "locomo", "--path", str(locomo_file), "--output", str(ok)]
    assert main([*args, "--principal-speaker", "b", "--sample", "2", "--seed", "1"]) == 0
    assert json.loads(ok.read_text())["n"] >= 1
    assert main(["--external", "mystery", "--path", str(locomo_file), "--output", "x"]) == 2
    missing = ["--external", "locomo", "--path", str(tmp_path / "none.json")]
    assert main([*missing, "--output", str(tmp_path / "x.json")]) == 2
    assert main(["--external", "locomo", "--path", str(locomo_file)]) == 2
    garbled = tmp_path / "garbled.json"
    garbled.write_text('[{"sample_id": "x", "conversation": {')
    assert main(["--external", "locomo", "--path", str(garbled), "--output", str(ok) + "2"]) == 2
    assert "malformed" in capsys.readouterr().err
    assert not (tmp_path / "x.json").exists()


def test_a_file_of_another_dataset_is_malformed(
    longmemeval_file: Path, locomo_file: Path, tmp_path: Path
) -> None:
    with pytest.raises(MalformedDataset):
        list(load_locomo.load(longmemeval_file, LoadReport()))
    with pytest.raises(MalformedDataset):
        list(load_halumem.load(locomo_file, LoadReport()))
    with pytest.raises(MalformedDataset):
        list(
            load_longmemeval.load(write_jsonl(tmp_path / "l.jsonl", halumem_users()), LoadReport())
        )


# -- evidence arithmetic --------------------------------------------------------------------


def test_any_all_and_noise_arithmetic() -> None:
    units = [frozenset({"t1"}), frozenset({"t7", "t8"})]  # a turn, and a session fallback
    some = judge(units, [frozenset({"t1"}), frozenset({"t3"})])
    assert (some.any_hit, some.all_hit, some.returned, some.on_evidence) == (True, False, 2, 1)
    every = judge(units, [frozenset({"t1", "t8"})])
    assert (every.any_hit, every.all_hit, every.on_evidence) == (True, True, 1)
    none = judge(units, [])
    assert (none.any_hit, none.all_hit, none.returned) == (False, False, 0)


def test_answer_rendered_is_the_normalized_gold_answer_on_token_boundaries() -> None:
    assert answer_rendered("Faro", "[m:0a1b2c3d] User lives in Faro.") is True
    assert answer_rendered("The 10th", "User gets paid on the 10th.") is True  # article dropped
    assert answer_rendered("10", "User moved there in 2010.") is False  # not inside a word
    assert answer_rendered("7 May 2023", "User ran a race on 7 May, 2023.") is True
    assert answer_rendered("7 May 2023", "User ran a race in May.") is False
    assert answer_rendered(None, "anything") is None  # no gold answer: not counted
    unanswered = judge([frozenset({"t1"})], [frozenset({"t1"})], answer_found=None)
    assert unanswered.answer_rendered is None


def test_verbatim_diagnostic_is_named_and_never_the_default(
    locomo_file: Path, tmp_path: Path
) -> None:
    default = run("locomo", locomo_file, tmp_path / "a.json", progress=False)
    verbatim = run(
        "locomo", locomo_file, tmp_path / "b.json", progress=False, diagnostic_extractor="verbatim"
    )
    assert default["policy"]["diagnostic"] is False
    assert default["policy"]["extractor"] != "diagnostic_verbatim_turns@1"
    assert verbatim["policy"] == {**verbatim["policy"], "diagnostic": True}
    assert verbatim["policy"]["extractor"] == "diagnostic_verbatim_turns@1"
    # Every principal's own turn became one belief: Avery spoke 11 turns, Blake 10.
    assert verbatim["counts"]["beliefs_formed"] == 21
    assert verbatim["categories"]["single-hop"]["recall_any@5"] == 1.0
    # A cross-speaker probe reads both principals but still renders one top-k.
    cross = verbatim["categories"]["cross-speaker"]
    assert cross["recall_any@20"] == 1.0 and cross["returned_per_probe@5"] <= 5
    with pytest.raises(ValueError):
        run("locomo", locomo_file, tmp_path / "c.json", diagnostic_extractor="oracle")


def test_loaders_stream_one_item_at_a_time(tmp_path: Path) -> None:
    # The first item is whole, the rest of the file is cut off: a loader that read the
    # file whole would fail before yielding anything; a streaming one yields the first.
    items = longmemeval_items()
    text = json.dumps(items)
    cut = text.index(json.dumps(items[1])) + 20
    truncated = tmp_path / "cut.json"
    truncated.write_text(text[:cut])
    scenarios = load_longmemeval.load(truncated, LoadReport())
    assert next(scenarios).scenario_id == "q-user-1"
    with pytest.raises(MalformedDataset):
        next(scenarios)


def lifecycle_conversation() -> list[dict[str, object]]:
    """Three trips told on 2 January: Lisbon re-stated two days later (its time said the
    same way both days), Madrid named again every month (a citing reader cites it), Porto
    never again; then ten months pass."""
    conversation: dict[str, object] = {
        "speaker_a": "Avery",
        "speaker_b": "Blake",
        "session_1_date_time": "9:00 am on 2 January, 2023",
        "session_1": [
            {"speaker": "Avery", "dia_id": "D1:1", "text": "I went to Lisbon in December."},
            {"speaker": "Avery", "dia_id": "D1:2", "text": "I went to Porto in March."},
            {"speaker": "Avery", "dia_id": "D1:3", "text": "I went to Madrid on Sunday."},
            {"speaker": "Blake", "dia_id": "D1:4", "text": "Sounds great."},
        ],
        "session_2_date_time": "9:00 am on 4 January, 2023",
        "session_2": [
            {"speaker": "Avery", "dia_id": "D2:1", "text": "I went to Lisbon in December."},
            {"speaker": "Blake", "dia_id": "D2:2", "text": "Again?"},
        ],
    }
    months = ("April", "May", "June", "July", "August", "September", "October", "November")
    for n, month in enumerate(months, start=3):
        conversation[f"session_{n}_date_time"] = f"9:00 am on 1 {month}, 2023"
        conversation[f"session_{n}"] = [
            {"speaker": "Avery", "dia_id": f"D{n}:1", "text": "Do you remember Madrid?"},
            {"speaker": "Blake", "dia_id": f"D{n}:2", "text": "Of course."},
        ]
    qa = [
        {"question": "Where did Avery go in December?", "evidence": ["D1:1"], "category": 4},
        {"question": "When did Avery go to Porto?", "evidence": ["D1:2"], "category": 4},
        {"question": "When did Avery go to Madrid?", "evidence": ["D1:3"], "category": 4},
    ]
    for item in qa:
        item["answer"] = "-"
    return [{"sample_id": "trips", "conversation": conversation, "qa": qa}]


def test_maintenance_replay_forgets_only_what_was_neither_restated_nor_cited(
    tmp_path: Path,
) -> None:
    """LoCoMo replayed at its own dates with maintenance after each session (the inferred
    diagnostic: every reading decays): the statement made once and never used again
    retires; the re-stated one and the cited one keep their recall."""
    path = write_json(tmp_path / "trips.json", lifecycle_conversation())

    def replay(name: str, **options: bool) -> dict[str, Any]:
        return run(
            "locomo",
            path,
            tmp_path / f"{name}.json",
            progress=False,
            diagnostic_extractor="inferred",
            **options,
        )

    before = replay("before", cite=True)
    after = replay("after", cite=True, maintenance=True)
    assert before["overall"]["recall_any@5"] == 1.0
    assert after["overall"]["recall_any@5"] == round(2 / 3, 4)  # Porto is forgotten
    lifecycle = after["counts"]["lifecycle"]
    assert lifecycle["retired"] == 1 and lifecycle["citations"] > 0
    assert after["policy"]["maintenance_after_each_session"] is True
    assert after["policy"]["citing_reader"] is True
    for subset in ("evidence_restated", "evidence_cited"):
        assert after["subsets"][subset]["n"] == before["subsets"][subset]["n"] > 0
        assert after["subsets"][subset]["recall_any@5"] == 1.0

    # Without the citing reader Madrid is forgotten too; the re-stated Lisbon holds.
    uncited = replay("uncited", maintenance=True)
    assert uncited["subsets"]["evidence_cited"]["n"] == 0
    assert uncited["overall"]["recall_any@5"] == round(1 / 3, 4)
    assert uncited["subsets"]["evidence_restated"]["recall_any@5"] == 1.0


def test_the_lifecycle_flags_go_with_external_on_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from memory_es.cli import main

    def cli(argv: list[str]) -> int:
        try:
            return main(argv)
        except SystemExit as exit_:
            return int(exit_.code or 0)

    url = f"sqlite:///{tmp_path / 'unused.db'}"
    for flag in ("--cite", "--maintenance"):
        assert cli(["--store", url, "eval", "memory-benchmark", flag]) == 2
        assert capsys.readouterr().err.strip().endswith(f"{flag} goes with --external")
    path = write_json(tmp_path / "trips.json", lifecycle_conversation())
    output = tmp_path / "cited.json"
    args = ["eval", "memory-benchmark", "--external", "locomo", "--path", str(path)]
    flags = ["--diagnostic-extractor", "inferred", "--cite", "--maintenance", "--json"]
    assert cli(["--store", url, *args, "--output", str(output), *flags]) == 0
    document = json.loads(output.read_text())
    assert document["policy"]["citing_reader"] is True
    assert document["subsets"]["evidence_cited"]["recall_any@5"] == 1.0
