"""The hand-judging samplers (benchmarks/external/formation_sample.py, residue_sample.py):
a written sample may hold a reviewer's judgements, so it is never overwritten."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memory_es.benchmarks.external.formation_sample import refused_sample_arguments, write_sample
from memory_es.benchmarks.external.residue_sample import main as residue_main


def test_a_sampler_refuses_a_missing_dataset_an_existing_sample_and_no_rows(
    tmp_path: Path,
) -> None:
    dataset = tmp_path / "locomo10.json"
    output = tmp_path / "sample.jsonl"
    assert refused_sample_arguments(dataset, output, 5) == f"no such file: {dataset}"
    dataset.write_text("[]")
    assert refused_sample_arguments(dataset, output, 0) == "--n must be at least 1"
    assert refused_sample_arguments(dataset, output, 5) is None
    write_sample(output, [{"line": "User said: hi."}])
    assert refused_sample_arguments(dataset, output, 5) == (
        f"{output} exists and is never overwritten"
    )


def test_a_written_sample_is_one_json_object_a_line_and_is_never_overwritten(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = tmp_path / "sample.jsonl"
    rows = [{"line": "User said: the café opens at 7."}, {"line": "User said: ok."}]
    write_sample(output, rows)
    assert [json.loads(x) for x in output.read_text(encoding="utf-8").splitlines()] == rows
    with pytest.raises(FileExistsError):
        write_sample(output, rows)
    dataset = tmp_path / "locomo10.json"
    dataset.write_text("[]")
    code = residue_main(["--path", str(dataset), "--output", str(output), "--n", "3"])
    assert code == 2 and "never overwritten" in capsys.readouterr().err
    assert [json.loads(x) for x in output.read_text(encoding="utf-8").splitlines()] == rows
