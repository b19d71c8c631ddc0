"""The opt-in bounded quality reorder (seed 002) and its ranking trace. Off by default.

Quality helps only within evidence already retrieved: after validity filtering, fusion,
ranking and the budget cut, the fixed pool of chosen items may be reordered so that no
member moves more than two positions and no member enters or leaves. Ties keep the
baseline order. The trace records both orders, each displacement, the rule used and
``membership_changed = False`` — checked, not assumed.

Quality here is what the read model knows without guessing: provenance (authority),
evidence strength (evidence count, as in reinforcement) and demonstrated utility.

Given the source evidence declarations (``evidence``: memory_es/evidence/), provenance
is the weaker of the belief's authority and its source's declared authority, and an
untrusted source's evidence counts for nothing (repeating a claim earns it no
strength); and the reorder stays off for a pool holding any belief without a valid
declaration (the baseline order, the trace saying why).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from memory_es.retrieval.ranking import C_MAX, MAX_AUTHORITY, Scored

if TYPE_CHECKING:
    from memory_es.evidence.declarations import EvidenceDeclaration
    from memory_es.projections.records import BeliefRecord

# A belief's source evidence declaration (memory_es/evidence/api.py: Sources.for_belief).
EvidenceOf = Callable[["BeliefRecord"], "EvidenceDeclaration"]
# A belief's freshness multiplier in [alpha, 1] for this query (1: neutral).
FreshnessOf = Callable[["BeliefRecord"], float]
# What counts as current-state material for the freshness hint: the attributes the
# resolver replaces on a new statement (where the user lives, works, ...).
CURRENT_STATE_TYPES = frozenset({"user_model_attr"})
# Words of a query asking about the present ("where do I live now").
CURRENT_INTENT_WORDS = frozenset({"now", "currently", "current", "still", "nowadays", "anymore"})


def freshness(age_days: float | None, *, alpha: float, half_life_days: float) -> float:
    """RFC 002's query-time hint: ``alpha + (1 - alpha) * 2^(-age / half_life)``; an
    unknown age is neutral (1)."""
    if age_days is None:
        return 1.0
    return alpha + (1.0 - alpha) * math.pow(2.0, -max(0.0, age_days) / half_life_days)


def freshness_eligible(record: BeliefRecord) -> bool:
    """Only current-state beliefs, and never a high-authority or critical one (the hint
    cannot demote a user's own statement or a critical record)."""
    return (
        record.belief_type in CURRENT_STATE_TYPES
        and record.authority < MAX_AUTHORITY
        and record.importance < 3
    )


POLICY = "bounded_stable_reorder@1"
MAX_DISPLACEMENT = 2


@dataclass(frozen=True)
class RankingTrace:
    policy: str
    baseline: tuple[str, ...]
    adjusted: tuple[str, ...]
    displacement: tuple[tuple[str, int], ...]  # (belief id, baseline rank - new rank)
    rule: str
    unresolved_conflicts: int
    membership_changed: bool

    def as_dict(self) -> dict[str, object]:
        return {
            "policy": self.policy,
            "baseline": list(self.baseline),
            "adjusted": list(self.adjusted),
            "displacement": dict(self.displacement),
            "rule": self.rule,
            "unresolved_conflicts": self.unresolved_conflicts,
            "membership_changed": self.membership_changed,
        }


def quality(item: Scored, declared: EvidenceDeclaration | None = None) -> float:
    """In [0, 1]: the mean of provenance, evidence strength and utility (mapped to 0..1)."""
    b = item.record
    provenance = b.authority / MAX_AUTHORITY
    evidence = min(1.0, math.log1p(b.evidence_count) / math.log1p(C_MAX))
    if declared is not None:
        provenance = min(provenance, declared.authority.rank / MAX_AUTHORITY)
        if declared.authority.rank == 0:  # untrusted: repetition is not corroboration
            evidence = 0.0
    utility = (b.utility + 1.0) / 2.0
    return (provenance + evidence + utility) / 3.0


def bounded_reorder(
    items: Sequence[Scored],
    evidence: EvidenceOf | None = None,
    freshness_of: FreshnessOf | None = None,
) -> tuple[list[Scored], RankingTrace]:
    """Move items up in proportion to their quality relative to the pool, at most 2 places.

    The key is ``baseline index - 2.5 * q`` with ``q`` the quality scaled to [0, 1]
    within the pool; ties keep the baseline order. One member overtakes another only if
    ``i - j < 2.5 * (q_i - q_j) <= 2.5``, i.e. from at most two places behind: every
    displacement is bounded by two, both ways (and checked below).
    """
    baseline = list(items)
    declared = [evidence(s.record) for s in baseline] if evidence is not None else None
    if declared is not None and not all(d.valid for d in declared):
        ids = tuple(s.record.belief_id for s in baseline)
        missing = sum(1 for d in declared if not d.valid)
        return baseline, RankingTrace(
            policy=POLICY,
            baseline=ids,
            adjusted=ids,
            displacement=tuple((bid, 0) for bid in ids),
            rule=f"off: {missing} of {len(ids)} members without a valid source declaration",
            unresolved_conflicts=sum(1 for s in baseline if s.validity == "unresolved_conflict"),
            membership_changed=False,
        )
    scores = [
        quality(s, declared[n] if declared is not None else None)
        * (freshness_of(s.record) if freshness_of is not None else 1.0)
        for n, s in enumerate(baseline)
    ]
    low, high = min(scores, default=0.0), max(scores, default=0.0)
    spread = high - low

    def key(i: int) -> tuple[float, int]:
        relative = (scores[i] - low) / spread if spread > 0 else 0.0
        return (i - 2.5 * relative, i)

    keyed = sorted(range(len(baseline)), key=key)
    adjusted = [baseline[i] for i in keyed]
    before = tuple(s.record.belief_id for s in baseline)
    after = tuple(s.record.belief_id for s in adjusted)
    moves = tuple((bid, before.index(bid) - n) for n, bid in enumerate(after))
    changed = set(before) != set(after) or len(before) != len(after)
    if changed or any(abs(d) > MAX_DISPLACEMENT for _, d in moves):
        raise AssertionError("the quality reorder must keep the pool and its bound")
    trace = RankingTrace(
        policy=POLICY,
        baseline=before,
        adjusted=after,
        displacement=moves,
        rule="quality=mean(authority/3, evidence, (utility+1)/2); key=rank-2.5*q_in_pool",
        unresolved_conflicts=sum(1 for s in adjusted if s.validity == "unresolved_conflict"),
        membership_changed=changed,
    )
    return adjusted, trace
