"""External datasets: LongMemEval, LoCoMo and HaluMem, read from a local path.

Opt-in and never vendored: the operator supplies the file; the repository holds no copy
and no derivative; what leaves a run is a metrics file naming the dataset, its licence,
the sample and seed and the sha256 of the file read — never its path, never a statement.

    python -m benchmarks.external --external locomo --path FILE --output OUT
        [--sample N --seed S] [--principal-speaker a|b|both]

Exit status: 0 written; 2 a usage error (unknown dataset, missing file, existing output,
a file not shaped like the dataset), with one line on stderr.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path

from benchmarks.external.model import MalformedDataset
from benchmarks.external.runner import DATASETS, LICENCES, run

__all__ = ["DATASETS", "LICENCES", "main", "run"]

USAGE = (
    "usage: python -m benchmarks.external --external longmemeval|locomo|halumem "
    "--path FILE --output PATH [--sample N --seed S] [--principal-speaker a|b|both] "
    "[--no-progress] [--json] [--diagnostic-extractor verbatim]"
)
_VALUED = {
    "--external",
    "--path",
    "--output",
    "--sample",
    "--seed",
    "--principal-speaker",
    "--diagnostic-extractor",
}
_FLAGS = {"--no-progress", "--json"}


class _Usage(Exception):
    pass


def _parse(argv: Sequence[str]) -> tuple[dict[str, str], set[str]]:
    values: dict[str, str] = {}
    flags: set[str] = set()
    items = list(argv)
    i = 0
    while i < len(items):
        arg = items[i]
        name, eq, inline = arg.partition("=")
        if name in _VALUED:
            if eq:
                value = inline
            elif i + 1 < len(items):
                i += 1
                value = items[i]
            else:
                raise _Usage(f"{name} needs a value")
            if name in values:
                raise _Usage(f"{name} given twice")
            values[name] = value
        elif arg in _FLAGS:
            flags.add(arg)
        elif arg in ("-h", "--help"):
            raise _Usage("help")
        else:
            raise _Usage(f"unknown argument: {arg}")
        i += 1
    return values, flags


def _int(values: dict[str, str], name: str) -> int | None:
    if name not in values:
        return None
    try:
        return int(values[name])
    except ValueError:
        raise _Usage(f"{name} needs an integer") from None


def main(argv: Sequence[str] | None = None) -> int:
    """Run one dataset from command-line style arguments; returns the exit status."""
    try:
        values, flags = _parse(sys.argv[1:] if argv is None else argv)
        for required in ("--external", "--path", "--output"):
            if required not in values:
                raise _Usage(f"{required} is required")
        dataset = values["--external"]
        if dataset not in DATASETS:
            raise _Usage(f"--external must be one of {', '.join(DATASETS)}")
        sample, seed = _int(values, "--sample"), _int(values, "--seed")
        if seed is not None and sample is None:
            raise _Usage("--seed goes with --sample")
        document = run(
            dataset,
            Path(values["--path"]),
            Path(values["--output"]),
            sample=sample,
            seed=seed or 0,
            principal_speaker=values.get("--principal-speaker", "both"),
            progress="--no-progress" not in flags,
            diagnostic_extractor=values.get("--diagnostic-extractor"),
        )
    except _Usage as error:
        if str(error) == "help":
            print(USAGE)
            return 0
        print(f"error: {error}\n{USAGE}", file=sys.stderr)
        return 2
    except (ValueError, OSError) as error:
        # MalformedDataset is a ValueError: a file not shaped like the named dataset.
        kind = "malformed dataset file" if isinstance(error, MalformedDataset) else "error"
        print(f"{kind}: {error}", file=sys.stderr)
        return 2
    if "--json" in flags:
        print(json.dumps(document, indent=2, sort_keys=True))
    else:
        print(_summary(document))
    return 0


def _summary(document: dict[str, object]) -> str:
    overall = document["overall"]
    assert isinstance(overall, dict)
    return (
        f"{document['dataset']}: n={document['n']} "
        f"recall_any@5={overall['recall_any@5']} recall_any@10={overall['recall_any@10']} "
        f"recall_any@20={overall['recall_any@20']} recall_all@10={overall['recall_all@10']} "
        f"tokens/probe@10={overall['rendered_tokens_per_probe@10']}"
    )
