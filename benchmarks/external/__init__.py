"""External datasets: LongMemEval, LoCoMo and HaluMem, read from a local path.

Opt-in and never vendored: the operator supplies the file; the repository holds no copy
and no derivative; what leaves a run is a metrics file naming the dataset, its licence,
the sample and seed and the sha256 of the file read — never its path, never a statement.

    memory-es eval memory-benchmark --external locomo --path FILE --output OUT
        [--sample N --seed S] [--principal-speaker a|b|both]

(``python -m memory_es.benchmarks.external ARGS`` is the same command.)

Exit status: 0 written; 2 a usage error (unknown dataset, missing file, existing output,
a file not shaped like the dataset), with one line on stderr.
"""

from __future__ import annotations

from collections.abc import Sequence

from memory_es.benchmarks.external.runner import DATASETS, LICENCES, run

__all__ = ["DATASETS", "LICENCES", "main", "run", "summary"]


def main(argv: Sequence[str] | None = None) -> int:
    """``eval memory-benchmark --external ...`` with these arguments; the exit status."""
    import sys

    from memory_es.cli import main as cli_main

    args = list(sys.argv[1:] if argv is None else argv)
    try:
        return cli_main(["eval", "memory-benchmark", *args])
    except SystemExit as exit_:
        return int(exit_.code or 0)


def summary(document: dict[str, object]) -> str:
    overall = document["overall"]
    assert isinstance(overall, dict)
    return (
        f"{document['dataset']}: n={document['n']} "
        f"recall_any@5={overall['recall_any@5']} recall_any@10={overall['recall_any@10']} "
        f"recall_any@20={overall['recall_any@20']} recall_all@10={overall['recall_all@10']} "
        f"tokens/probe@10={overall['rendered_tokens_per_probe@10']}"
    )
