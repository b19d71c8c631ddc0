"""The deterministic arm's metrics: pure functions from corpus and observations to integers.

Every number here is an integer; ratios are derived for display and never stored.
Formation is scored per scenario on the store after the last session; retrieval is
scored per probe on what each recall moment returned.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields
from typing import Any

from memory_es.benchmarks.memory_benchmark.corpus import (
    CATEGORIES,
    BenchmarkProbe,
    BenchmarkScenario,
    LabeledBelief,
)
from memory_es.benchmarks.memory_benchmark.matching import contains_fragment, matches
from memory_es.benchmarks.memory_benchmark.observations import (
    BeliefView,
    MomentView,
    ProbeObservation,
    ScenarioObservation,
)


@dataclass(frozen=True)
class FormationRow:
    scenario: str
    labels: int  # labeled beliefs in the scenario
    expected: int  # labels that are current: superseded by no later label
    supported: int  # expected labels with a matching live belief
    formed: int  # live beliefs (active or provisional)
    stale_live: int  # live beliefs matching a superseded label
    fabricated: int  # formed - supported - stale_live
    policy_failures: int  # beliefs of any status containing a protected fragment
    proposed: int  # extractor proposals over the scenario's consolidations
    dropped_for_ceiling: int  # proposals over the candidate ceiling, summed likewise

    def as_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


FORMATION_COUNTS: tuple[str, ...] = tuple(f.name for f in fields(FormationRow))[1:]


@dataclass(frozen=True)
class DistanceBin:
    distance: int  # sessions back from the last session; the last session is one
    needed: int
    recalled: int

    def as_dict(self) -> dict[str, int]:
        return {"distance": self.distance, "needed": self.needed, "recalled": self.recalled}


@dataclass(frozen=True)
class ProbeRow:
    scenario: str
    probe: str
    category: str
    needed_total: int
    needed_formed: int  # needed labels with a live match at probe time
    needed_recalled: int  # matched by the snapshot or by any in-turn moment
    needed_recalled_snapshot_only: int
    needed_recalled_in_turn_only: int
    needed_recalled_both: int
    returned_snapshot: int  # distinct beliefs returned, per moment and as a union
    returned_in_turn: int
    returned_total: int
    noise_snapshot: int  # returned beliefs matching no needed label
    noise_in_turn: int
    noise_total: int
    dropped_for_budget: int
    blocked_rendered: int
    currency_violations: int  # update/correction: superseded rendered, successor formed
    currency_unformed: int  # ... successor never formed
    abstention_leaks: int
    false_transfers: int
    other_forbidden_rendered: int
    protected_rendered: int  # the scenario's protected fragments in any rendered line
    model_calls: int
    distinct_prefixes: int
    run_completed: int
    needed_by_distance: tuple[DistanceBin, ...]

    def as_dict(self) -> dict[str, Any]:
        row: dict[str, Any] = {f.name: getattr(self, f.name) for f in fields(self)}
        row["needed_by_distance"] = [b.as_dict() for b in self.needed_by_distance]
        return row


PROBE_COUNTS: tuple[str, ...] = tuple(
    f.name
    for f in fields(ProbeRow)
    if f.name not in ("scenario", "probe", "category", "needed_by_distance")
)
ATTRIBUTION = (
    "needed_recalled_snapshot_only",
    "needed_recalled_in_turn_only",
    "needed_recalled_both",
)


# -- formation -----------------------------------------------------------------------------


def _matching_labels(belief: BeliefView, labels: Iterable[LabeledBelief]) -> list[str]:
    return [label.label for label in labels if matches(belief, label)]


def score_formation(scenario: BenchmarkScenario, observed: ScenarioObservation) -> FormationRow:
    superseded = scenario.superseded_labels()
    current = [b for b in scenario.beliefs if b.label not in superseded]
    stale = [b for b in scenario.beliefs if b.label in superseded]
    live = [b for b in observed.beliefs if b.live]
    supported = sum(1 for label in current if any(matches(b, label) for b in live))
    stale_live = sum(1 for b in live if _matching_labels(b, stale))
    fabricated = len(live) - supported - stale_live
    if fabricated < 0:  # the corpus rule that one triple names one label forbids this
        raise AssertionError(f"{scenario.id}: negative fabricated count {fabricated}")
    protected = scenario.protected_statements
    return FormationRow(
        scenario=scenario.id,
        labels=len(scenario.beliefs),
        expected=len(current),
        supported=supported,
        formed=len(live),
        stale_live=stale_live,
        fabricated=fabricated,
        policy_failures=sum(
            1 for b in observed.beliefs if contains_fragment(b.statement, protected)
        ),
        proposed=sum(s.proposed for s in observed.sessions),
        dropped_for_ceiling=sum(s.dropped_for_ceiling for s in observed.sessions),
    )


# -- retrieval -----------------------------------------------------------------------------


def _recalled(
    labels: Sequence[LabeledBelief], ids: Iterable[str], by_id: dict[str, BeliefView]
) -> set[str]:
    beliefs = [by_id[i] for i in ids if i in by_id]
    return {label.label for label in labels if any(matches(b, label) for b in beliefs)}


def _noise(
    labels: Sequence[LabeledBelief], ids: Iterable[str], by_id: dict[str, BeliefView]
) -> int:
    noise = 0
    for belief_id in ids:
        belief = by_id.get(belief_id)
        if belief is None or not any(matches(belief, label) for label in labels):
            noise += 1
    return noise


def _distinct(ids: Iterable[str]) -> list[str]:
    return sorted(set(ids))


def score_probe(
    scenario: BenchmarkScenario, probe: BenchmarkProbe, observed: ProbeObservation
) -> ProbeRow:
    by_id = {b.belief_id: b for b in observed.beliefs}
    live = [b for b in observed.beliefs if b.live]
    needed = [scenario.belief(label) for label in probe.needed]
    snapshot = observed.snapshot or MomentView(returned=(), lines=())
    moments = [snapshot, *observed.in_turn]

    snapshot_ids = _distinct(snapshot.returned)
    in_turn_ids = _distinct(i for m in observed.in_turn for i in m.returned)
    all_ids = _distinct([*snapshot_ids, *in_turn_ids])
    in_snapshot = _recalled(needed, snapshot_ids, by_id)
    in_turn = _recalled(needed, in_turn_ids, by_id)
    recalled = in_snapshot | in_turn
    formed = {label.label for label in needed if any(matches(b, label) for b in live)}

    bins: dict[int, list[int]] = {}
    for label in needed:
        entry = bins.setdefault(scenario.distance(label.label), [0, 0])
        entry[0] += 1
        entry[1] += label.label in recalled

    lines = [line for m in moments for line in m.lines]
    rendered = {f for line in lines for f in contains_fragment(line, probe.forbidden_statements)}
    protected = {
        f for line in lines for f in contains_fragment(line, scenario.protected_statements)
    }
    bucket = _forbidden_bucket(probe.category, successor_formed=len(formed) == len(needed) > 0)

    return ProbeRow(
        scenario=scenario.id,
        probe=probe.id,
        category=probe.category,
        needed_total=len(needed),
        needed_formed=len(formed),
        needed_recalled=len(recalled),
        needed_recalled_snapshot_only=len(in_snapshot - in_turn),
        needed_recalled_in_turn_only=len(in_turn - in_snapshot),
        needed_recalled_both=len(in_snapshot & in_turn),
        returned_snapshot=len(snapshot_ids),
        returned_in_turn=len(in_turn_ids),
        returned_total=len(all_ids),
        noise_snapshot=_noise(needed, snapshot_ids, by_id),
        noise_in_turn=_noise(needed, in_turn_ids, by_id),
        noise_total=_noise(needed, all_ids, by_id),
        dropped_for_budget=len(_distinct(i for m in moments for i in m.dropped_for_budget)),
        blocked_rendered=len(_distinct(i for m in moments for i in m.blocked)),
        protected_rendered=len(protected),
        model_calls=len(observed.prefix_digests),
        distinct_prefixes=len(set(observed.prefix_digests)),
        run_completed=int(observed.completed),
        currency_violations=len(rendered) if bucket == "currency_violations" else 0,
        currency_unformed=len(rendered) if bucket == "currency_unformed" else 0,
        abstention_leaks=len(rendered) if bucket == "abstention_leaks" else 0,
        false_transfers=len(rendered) if bucket == "false_transfers" else 0,
        other_forbidden_rendered=len(rendered) if bucket == "other_forbidden_rendered" else 0,
        needed_by_distance=tuple(
            DistanceBin(distance=d, needed=n, recalled=r) for d, (n, r) in sorted(bins.items())
        ),
    )


def _forbidden_bucket(category: str, *, successor_formed: bool) -> str:
    """Where a rendered forbidden statement is counted, by the probe's category.

    An update or correction whose superseding belief never formed is the store being
    right about what it knows (an extractor gap), not a currency bug.
    """
    if category in ("update", "correction"):
        return "currency_violations" if successor_formed else "currency_unformed"
    if category == "abstention":
        return "abstention_leaks"
    if category == "transfer":
        return "false_transfers"
    return "other_forbidden_rendered"


# -- aggregation ---------------------------------------------------------------------------


def _merge_bins(rows: Iterable[ProbeRow]) -> list[dict[str, int]]:
    bins: dict[int, list[int]] = {}
    for row in rows:
        for b in row.needed_by_distance:
            entry = bins.setdefault(b.distance, [0, 0])
            entry[0] += b.needed
            entry[1] += b.recalled
    return [
        DistanceBin(distance=d, needed=n, recalled=r).as_dict()
        for d, (n, r) in sorted(bins.items())
    ]


def aggregate(
    scenarios: Sequence[BenchmarkScenario],
    formation: Sequence[FormationRow],
    probes: Sequence[ProbeRow],
) -> dict[str, Any]:
    total: dict[str, Any] = {
        "scenarios": len(scenarios),
        "sessions": sum(len(s.sessions) for s in scenarios),
        "probes": len(probes),
    }
    for name in FORMATION_COUNTS:
        total[name] = sum(getattr(row, name) for row in formation)
    for name in PROBE_COUNTS:
        total[name] = sum(getattr(row, name) for row in probes)
    total["max_distinct_prefixes_per_probe"] = max((r.distinct_prefixes for r in probes), default=0)
    total["needed_by_distance"] = _merge_bins(probes)
    return total


def per_category(probes: Sequence[ProbeRow]) -> dict[str, dict[str, Any]]:
    result: dict[str, dict[str, Any]] = {}
    for category in CATEGORIES:
        rows = [r for r in probes if r.category == category]
        sums: dict[str, Any] = {"probes": len(rows)}
        for name in PROBE_COUNTS:
            sums[name] = sum(getattr(row, name) for row in rows)
        result[category] = sums
    return result
