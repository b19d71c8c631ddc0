"""Formation precision and recall over a labeled case file.

Each case is one user (or assistant) turn and the beliefs it should form, as
(belief_type, subject, statement) triples. A turn runs through the same path formation
takes: the hazard check (redaction, injection => untrusted), then the extractor. A
proposal supports an expected belief when its type, one of its subjects and its
statement match after normalization (case-folded, whitespace collapsed, trailing
punctuation stripped) — the triple the benchmark matches on.

precision = supported proposals / proposals; recall = supported expected / expected.
A positive case (one that expects a belief) is *fully supported* when every belief it
expects was proposed: gate.memory.provider_positive_coverage_v2's unit, reported as
``positive_supported`` of
``positive_cases`` for whichever extractor ran (``--extractor provider`` for the
provider-assisted one, whose own counts — calls, invalid responses — come beside it).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import orjson

from memory_es.domain.values import Role, normalize_statement
from memory_es.errors import InvalidInput
from memory_es.formation.extractor import ClauseExtractor, Extractor, Proposal, SourceTurn
from memory_es.formation.hazards import screen

DEFAULT_CASES = "formation_cases.jsonl"


@dataclass(frozen=True)
class Expected:
    belief_type: str
    subject: str
    statement: str


@dataclass(frozen=True)
class Case:
    id: str
    category: str
    text: str
    role: str
    expected: tuple[Expected, ...]


@dataclass
class Tally:
    proposed: int = 0
    supported: int = 0  # proposals matching an expected belief
    expected: int = 0
    found: int = 0  # expected beliefs some proposal matched

    @property
    def precision(self) -> float:
        return self.supported / self.proposed if self.proposed else 1.0

    @property
    def recall(self) -> float:
        return self.found / self.expected if self.expected else 1.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "proposed": self.proposed,
            "supported": self.supported,
            "expected": self.expected,
            "found": self.found,
            "precision": round(self.precision, 4),
            "recall": round(self.recall, 4),
        }


@dataclass
class CaseResult:
    case: Case
    proposals: list[Proposal]
    missed: list[Expected]
    extra: list[Proposal]


@dataclass
class Report:
    cases_path: str
    digest: str
    extractor: str
    total: Tally = field(default_factory=Tally)
    by_category: dict[str, Tally] = field(default_factory=dict)
    results: list[CaseResult] = field(default_factory=list)
    extractor_stats: dict[str, int] | None = None  # the provider extractor's own counts

    @property
    def positive_cases(self) -> int:
        return sum(1 for r in self.results if r.case.expected)

    @property
    def positive_supported(self) -> int:
        """Positive cases every one of whose expected beliefs was proposed."""
        return sum(1 for r in self.results if r.case.expected and not r.missed)

    def as_dict(self, *, misses: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "cases": len(self.results),
            "cases_path": self.cases_path,
            "digest": self.digest,
            "extractor": self.extractor,
            "total": self.total.as_dict(),
            "by_category": {k: v.as_dict() for k, v in sorted(self.by_category.items())},
            "positive_cases": self.positive_cases,
            "positive_supported": self.positive_supported,
        }
        if self.extractor_stats is not None:
            out["extractor_stats"] = dict(self.extractor_stats)
        if misses:
            out["misses"] = [
                {
                    "id": r.case.id,
                    "missed": [e.__dict__ for e in r.missed],
                    "extra": [
                        {
                            "belief_type": p.belief_type.value,
                            "subjects": list(p.subjects),
                            "statement": p.statement,
                        }
                        for p in r.extra
                    ],
                }
                for r in self.results
                if r.missed or r.extra
            ]
        return out


def load_cases(path: str | Path | None = None) -> tuple[list[Case], str, str]:
    """(cases, sha256 of the file, the path read)."""
    if path is None:
        ref = resources.files("memory_es.formation").joinpath("data", DEFAULT_CASES)
        raw = ref.read_bytes()
        shown = f"memory_es/formation/data/{DEFAULT_CASES}"
    else:
        try:
            raw = Path(path).read_bytes()
        except OSError as error:
            raise InvalidInput(f"cannot read cases {path}: {error.strerror}") from None
        shown = str(path)
    cases: list[Case] = []
    for number, line in enumerate(raw.decode().splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = orjson.loads(line)
            cases.append(
                Case(
                    id=str(row["id"]),
                    category=str(row.get("category", "uncategorized")),
                    text=str(row["text"]),
                    role=str(row.get("role", Role.USER.value)),
                    expected=tuple(
                        Expected(str(e["belief_type"]), str(e["subject"]), str(e["statement"]))
                        for e in row.get("expected", [])
                    ),
                )
            )
        except (orjson.JSONDecodeError, KeyError, TypeError) as error:
            raise InvalidInput(f"{shown}:{number}: malformed case ({error})") from None
    return cases, hashlib.sha256(raw).hexdigest(), shown


def _key(belief_type: str, subject: str, statement: str) -> tuple[str, str, str]:
    return (belief_type, normalize_statement(subject), normalize_statement(statement))


def _matches(p: Proposal, e: Expected) -> bool:
    want = _key(e.belief_type, e.subject, e.statement)
    return any(_key(p.belief_type.value, s, p.statement) == want for s in p.subjects)


def run_case(case: Case, extractor: Extractor) -> CaseResult:
    screened = screen(case.text)
    turn = SourceTurn(
        turn_id=case.id,
        seq=1,
        role=case.role,
        text=screened.text,
        trusted=case.role == Role.USER.value and not screened.injection,
        at="2026-01-01T00:00:00Z",
    )
    proposals = extractor.extract([turn])
    missed = [e for e in case.expected if not any(_matches(p, e) for p in proposals)]
    extra = [p for p in proposals if not any(_matches(p, e) for e in case.expected)]
    return CaseResult(case=case, proposals=proposals, missed=missed, extra=extra)


def evaluate(
    cases: Sequence[Case],
    *,
    extractor: Extractor | None = None,
    cases_path: str = "",
    digest: str = "",
) -> Report:
    extractor = extractor or ClauseExtractor()
    report = Report(cases_path=cases_path, digest=digest, extractor=extractor.name)
    for case in cases:
        result = run_case(case, extractor)
        report.results.append(result)
        for tally in (report.total, report.by_category.setdefault(case.category, Tally())):
            tally.proposed += len(result.proposals)
            tally.supported += len(result.proposals) - len(result.extra)
            tally.expected += len(case.expected)
            tally.found += len(case.expected) - len(result.missed)
    stats = getattr(extractor, "stats", None)
    if stats is not None:
        report.extractor_stats = stats.as_dict()
    return report
