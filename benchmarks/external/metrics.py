"""Evidence-provenance recall@k, noise and rendered tokens, per category and overall.

A probe's evidence is a set of *units*: a turn, or a whole session when the dataset does
not say which turn (the fallback). A unit is met when one of the top-k items was formed
from it (memory arm: a returned belief's ``source_event_ids`` hold one of the unit's
turn ids; reference arm: the returned turn is one of the unit's turns).

- recall_any@k: probes with at least one unit met / probes;
- recall_all@k: probes with every unit met / probes;
- noise@k: returned items that meet no unit / returned items (null when none returned);
- rendered_tokens_per_probe@k: whitespace tokens of what was rendered, per probe — so
  two arms are compared at equal context size;
- answer_rendered@k: probes whose gold answer, normalized, occurs token-bounded in the
  rendered text of the top-k / probes with a gold answer (``answered``): what a reader
  of the render could answer from, without a model or a judge.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from memory_es.benchmarks.external.scoring import answer_tokens

KS = (5, 10, 20)


@dataclass(frozen=True)
class Outcome:
    """One probe at one k in one arm."""

    any_hit: bool
    all_hit: bool
    returned: int
    on_evidence: int  # returned items that meet some unit
    tokens: int
    # None: the probe has no gold answer (LoCoMo's adversarial items), so it is not counted.
    answer_rendered: bool | None = None


def answer_rendered(answer: str | None, rendered: str) -> bool | None:
    """Whether the gold answer, normalized (SQuAD: lowercase, no punctuation, no
    articles), occurs as a whole run of tokens in the normalized rendered text: "10"
    is not found in "2010", "Faro" is found in "User lives in Faro.". None without a
    gold answer."""
    needle = answer_tokens(answer) if answer is not None else []
    if not needle:
        return None
    return f" {' '.join(needle)} " in f" {' '.join(answer_tokens(rendered))} "


def judge(
    units: list[frozenset[str]],
    returned_sources: list[frozenset[str]],
    *,
    tokens: int = 0,
    answer_found: bool | None = None,
) -> Outcome:
    """Score returned items (each with the source ids it stands on) against the units;
    ``answer_found`` is :func:`answer_rendered` over what they render."""
    union = frozenset().union(*returned_sources) if returned_sources else frozenset()
    met = [bool(unit & union) for unit in units]
    evidence = frozenset().union(*units) if units else frozenset()
    on_evidence = sum(1 for sources in returned_sources if sources & evidence)
    return Outcome(
        any_hit=any(met),
        all_hit=bool(met) and all(met),
        returned=len(returned_sources),
        on_evidence=on_evidence,
        tokens=tokens,
        answer_rendered=answer_found,
    )


@dataclass
class Tally:
    n: int = 0
    turn_units: int = 0
    session_units: int = 0
    any_hits: dict[int, int] = field(default_factory=lambda: dict.fromkeys(KS, 0))
    all_hits: dict[int, int] = field(default_factory=lambda: dict.fromkeys(KS, 0))
    returned: dict[int, int] = field(default_factory=lambda: dict.fromkeys(KS, 0))
    on_evidence: dict[int, int] = field(default_factory=lambda: dict.fromkeys(KS, 0))
    tokens: dict[int, int] = field(default_factory=lambda: dict.fromkeys(KS, 0))
    answered: int = 0  # probes with a gold answer: the answer_rendered denominator
    answers_rendered: dict[int, int] = field(default_factory=lambda: dict.fromkeys(KS, 0))

    def add(self, outcomes: dict[int, Outcome], turn_units: int, session_units: int) -> None:
        self.n += 1
        self.turn_units += turn_units
        self.session_units += session_units
        self.answered += any(o.answer_rendered is not None for o in outcomes.values())
        for k, o in outcomes.items():
            self.answers_rendered[k] += bool(o.answer_rendered)
            self.any_hits[k] += o.any_hit
            self.all_hits[k] += o.all_hit
            self.returned[k] += o.returned
            self.on_evidence[k] += o.on_evidence
            self.tokens[k] += o.tokens

    def merge(self, other: Tally) -> None:
        self.n += other.n
        self.turn_units += other.turn_units
        self.session_units += other.session_units
        self.answered += other.answered
        for k in KS:
            self.answers_rendered[k] += other.answers_rendered[k]
            self.any_hits[k] += other.any_hits[k]
            self.all_hits[k] += other.all_hits[k]
            self.returned[k] += other.returned[k]
            self.on_evidence[k] += other.on_evidence[k]
            self.tokens[k] += other.tokens[k]

    def figures(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "n": self.n,
            "evidence_units_turn": self.turn_units,
            "evidence_units_session_fallback": self.session_units,
            "answered": self.answered,
        }
        for k in KS:
            out[f"recall_any@{k}"] = _ratio(self.any_hits[k], self.n)
            out[f"recall_all@{k}"] = _ratio(self.all_hits[k], self.n)
            # Noise of nothing is undefined, not zero: null when no item was returned.
            out[f"noise@{k}"] = (
                _ratio(self.returned[k] - self.on_evidence[k], self.returned[k])
                if self.returned[k]
                else None
            )
            out[f"returned_per_probe@{k}"] = _ratio(self.returned[k], self.n, digits=2)
            out[f"rendered_tokens_per_probe@{k}"] = _ratio(self.tokens[k], self.n, digits=1)
            out[f"answer_rendered@{k}"] = _ratio(self.answers_rendered[k], self.answered)
        return out


def _ratio(part: int, whole: int, *, digits: int = 4) -> float:
    return round(part / whole, digits) if whole else 0.0


@dataclass
class ArmReport:
    """Tallies of one arm, per category, with the set of categories outside overall."""

    categories: dict[str, Tally] = field(default_factory=dict)
    separate: set[str] = field(default_factory=set)

    def add(
        self,
        category: str,
        in_overall: bool,
        outcomes: dict[int, Outcome],
        turn_units: int,
        session_units: int,
    ) -> None:
        self.categories.setdefault(category, Tally()).add(outcomes, turn_units, session_units)
        if not in_overall:
            self.separate.add(category)

    def overall(self) -> Tally:
        total = Tally()
        for name, tally in self.categories.items():
            if name not in self.separate:
                total.merge(tally)
        return total

    def figures(self) -> dict[str, Any]:
        return {
            "overall": self.overall().figures(),
            "categories": {
                name: {**self.categories[name].figures(), "in_overall": name not in self.separate}
                for name in sorted(self.categories)
            },
        }


def union(sets: Iterable[frozenset[str]]) -> frozenset[str]:
    out: frozenset[str] = frozenset()
    for s in sets:
        out |= s
    return out
