"""The review benchmark's LoCoMo arms (memory_es/benchmarks/review/locomo.py) on a tiny
invented conversation in LoCoMo's JSON shape: invented people, invented facts, never the
dataset's text."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from memory_es.benchmarks.review import locomo
from memory_es.benchmarks.review.__main__ import main

SESSIONS = {
    1: [
        ("Avery", "Hi Blake! I moved to Lisbon in March 2021 with my dog Pepper."),
        ("Blake", "Nice! I work at Fernwood Bakery on Elm Street."),
        ("Avery", "I teach violin to kids at the Alfama music school."),
        ("Blake", "That sounds lovely. How is Pepper?"),
        ("Avery", "Pepper is great. My sister Noor visits us every summer."),
        ("Blake", "I adopted a cat named Miso last week."),
    ],
    2: [
        ("Blake", "I ran the Porto half marathon on 12 May."),
        ("Avery", "Congratulations! I bought a red Vespa scooter for the commute."),
        ("Blake", "My brother Teodor lives in Oslo."),
        ("Avery", "I started learning Portuguese with a tutor named Ines."),
    ],
}
QA = [
    ("Where did Avery move in 2021?", "Lisbon", ["D1:1"], 4),
    ("Where does Blake work?", "Fernwood Bakery", ["D1:2"], 4),
    ("What does Avery teach?", "violin", ["D1:3"], 4),
    ("Who visits Avery every summer?", "Noor", ["D1:5"], 4),
    ("What is the name of Blake's cat?", "Miso", ["D1:6"], 1),
    ("Which race did Blake run?", "Porto half marathon", ["D2:1"], 2),
    ("What did Avery buy for the commute?", "a red Vespa scooter", ["D2:2"], 4),
    ("Where does Blake's brother live?", "Oslo", ["D2:3"], 4),
    ("Who is Avery's Portuguese tutor?", "Ines", ["D2:4"], 1),
]


def invented_locomo(path: Path, copies: int = 1) -> Path:
    items: list[dict[str, Any]] = []
    for n in range(copies):
        conversation: dict[str, Any] = {"speaker_a": "Avery", "speaker_b": "Blake"}
        for number, turns in SESSIONS.items():
            conversation[f"session_{number}_date_time"] = f"2:0{number} pm on {number} June, 2023"
            conversation[f"session_{number}"] = [
                {"speaker": speaker, "dia_id": f"D{number}:{k}", "text": text}
                for k, (speaker, text) in enumerate(turns, start=1)
            ]
        qa = [{"question": q, "answer": a, "evidence": e, "category": c} for q, a, e, c in QA]
        items.append({"sample_id": f"invented-{n}", "conversation": conversation, "qa": qa})
    path.write_text(json.dumps(items))
    return path


def test_the_locomo_variant_holds_every_dataset_turn_and_question_fixed(tmp_path: Path) -> None:
    [clean], _ = locomo.scenarios(invented_locomo(tmp_path / "locomo.json"))
    noisy = locomo.noisy_scenario(clean, seed=3)
    assert noisy == locomo.noisy_scenario(clean, seed=3)  # seeded: deterministic
    assert noisy != locomo.noisy_scenario(clean, seed=4)
    assert noisy.probes == clean.probes
    for before, after in zip(clean.sessions, noisy.sessions, strict=True):
        # Every dataset turn keeps its ref, speaker, text and order: evidence ids hold.
        kept = tuple(t for t in after.turns if locomo.injected_kind(t.ref) is None)
        assert kept == before.turns
        added = [t for t in after.turns if locomo.injected_kind(t.ref) is not None]
        assert added and all(t.ref.split("+")[0] in {b.ref for b in before.turns} for t in added)
        # Each injected turn is said by its source turn's speaker, after that turn.
        order = [t.ref for t in after.turns]
        for turn in added:
            source = turn.ref.split("+")[0]
            assert order.index(turn.ref) > order.index(source)
            assert turn.speaker == next(b.speaker for b in before.turns if b.ref == source)
    evidence = {e.turn_ref for p in clean.probes for e in p.evidence}
    assert evidence <= {t.ref for s in noisy.sessions for t in s.turns}
    lisbon = next(t.text for s in noisy.sessions for t in s.turns if t.ref == "D1:1+dup")
    assert "Lisbon" in lisbon and "2021" in lisbon and "Pepper" in lisbon


def test_review_benchmark_on_locomo_scripted_approvals_reduce_injected_returns(
    tmp_path: Path,
) -> None:
    report = locomo.run(invented_locomo(tmp_path / "locomo.json", copies=2), limit=1)
    assert report["conversations"] == 1 and report["k"] == 10
    arms = report["arms"]
    clean = arms["clean (no injection)"]
    off = arms["noisy, alignment off"]
    reviewed = arms["noisy, alignment + scripted reviewer"]
    reorder = arms["noisy, the same + quality reorder"]
    # Same questions, same evidence: every arm scores the same n.
    assert {row["n"] for row in arms.values()} == {len(QA)}
    assert clean["turns"]["near_duplicates"] == clean["injected_returned"] == 0
    assert off["turns"]["original_turns"] == clean["turns"]["original_turns"]
    assert off["turns"]["near_duplicates"] > 0 and off["turns"]["low_value"] > 0
    # The injected noise is returned when nothing is reviewed ...
    assert off["injected_returned"] > 0 and off["noise_total"] > clean["noise_total"]
    assert off["decisions"] is None
    # ... and the scripted reviewer's approvals take near-duplicates out of the packs.
    assert reviewed["decisions"]["approved"] > 0
    assert reviewed["injected_returned"] < off["injected_returned"]
    assert reviewed["injected_returned_near_duplicates"] < off["injected_returned_near_duplicates"]
    assert reorder["decisions"] == reviewed["decisions"]
    for row in arms.values():
        assert 0.0 <= row["recall_all@10"] <= row["recall_any@10"] <= 1.0
        assert row["noise@10"] == round(row["noise_total"] / row["returned"], 4)
    assert clean["recall_any@10"] > 0.5
    assert off["degradation"]["recall_any@10"] == round(
        off["recall_any@10"] - clean["recall_any@10"], 4
    )


def test_review_benchmark_cli_runs_locomo_alone_and_refuses_a_bad_limit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = invented_locomo(tmp_path / "locomo.json")
    assert main(["--locomo", str(path), "--limit", "1", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert set(report) == {"locomo"}  # no corpus variant unless --variant is given
    assert set(report["locomo"]["arms"]) == set(locomo.ARMS)
    assert str(path) not in json.dumps(report)  # the file is named by its sha256 only
    assert main(["--locomo", str(path), "--limit", "0"]) == 2
    assert "--limit" in capsys.readouterr().err
    with pytest.raises(SystemExit) as refused:
        main(["--limit", "1"])  # --limit is LoCoMo's only
    assert refused.value.code == 2
