"""Usage feedback (seed 000, "Usage feedback"): a cited belief has demonstrated utility,
not renewed truth; a belief that keeps being returned and never matters should stop
winning the ranking.

A run's final message cites beliefs by the short ids the renderer emits (``[m:xxxxxxxx]``).
Against the beliefs the session was shown — its snapshot trace and the in-turn traces
``context`` recorded — a cited belief gains ``retrieval.usage.cited_utility_delta``
(ceiling 1) and a fresh ``last_used_at``; a returned-but-uncited one loses
``uncited_utility_delta`` (floor -1). Confidence and ``last_evidence_at`` never move. A
short id that fits several returned beliefs identifies none: it credits nothing, charges
nothing, and is counted as ambiguous. One ``UsageRecorded`` event per run, keyed on the
run id, so a repeated completion changes nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from memory_es.domain.values import short_id
from memory_es.projections.traces import TraceRecord

# The renderer's citation form: "[m:" eight hex digits "]".
CITATION = re.compile(r"\[m:([0-9a-f]{8})\]")
SNAPSHOT_TRACE_KIND = "snapshot"
CONTEXT_TRACE_KIND = "in_turn"


def cited_short_ids(text: str) -> frozenset[str]:
    return frozenset(CITATION.findall(text or ""))


@dataclass(frozen=True)
class UsagePlan:
    """What one run's final message does to the beliefs its traces returned."""

    cited: tuple[str, ...]  # belief ids, sorted
    uncited: tuple[str, ...]
    ambiguous: tuple[str, ...]  # short ids that fit several returned beliefs
    marks: dict[str, tuple[str, ...]] = field(default_factory=dict)  # trace id -> cited ids


def plan_usage(traces: Sequence[TraceRecord], final_message: str) -> UsagePlan:
    """Pure: the traces a run was shown and its final message decide every change."""
    returned = sorted({b for t in traces for b in t.returned})
    by_short: dict[str, list[str]] = {}
    for belief_id in returned:
        by_short.setdefault(short_id(belief_id), []).append(belief_id)
    cites = cited_short_ids(final_message)
    ambiguous = sorted(s for s in cites if len(by_short.get(s, ())) > 1)
    cited = sorted(by_short[s][0] for s in cites if len(by_short.get(s, ())) == 1)
    uncharged = {b for s in ambiguous for b in by_short[s]}
    uncited = [b for b in returned if b not in set(cited) and b not in uncharged]
    marks = {
        t.trace_id: tuple(b for b in t.returned if b in set(cited))
        for t in traces
        if set(t.returned) & set(cited)
    }
    return UsagePlan(tuple(cited), tuple(uncited), tuple(ambiguous), marks)


@dataclass(frozen=True)
class UsageReceipt:
    run_id: str
    session_id: str
    recorded: bool  # False: this run's usage was recorded before; nothing changed
    cited: tuple[str, ...]
    uncited: tuple[str, ...]
    ambiguous: tuple[str, ...]
    traces: tuple[str, ...]  # the traces read

    def as_dict(self) -> dict[str, object]:
        return {
            "run_id": self.run_id,
            "session_id": self.session_id,
            "recorded": self.recorded,
            "cited": list(self.cited),
            "uncited": list(self.uncited),
            "ambiguous": list(self.ambiguous),
            "traces": list(self.traces),
        }


def shown_trace(
    *,
    trace_id: str,
    principal: str,
    kind: str,
    session_id: str,
    created_at: str,
    expires_at: str,
    policy: str,
    item_limit: int,
    returned: Sequence[str],
    dropped: Sequence[str] = (),
) -> TraceRecord:
    """A trace of what a session was shown outside a recall call (its snapshot, a context
    pack): the user-safe tier only, with the dropped-for-budget ids on the operator tier."""
    return TraceRecord(
        trace_id=trace_id,
        principal=principal,
        kind=kind,
        session_id=session_id,
        created_at=created_at,
        operator_expires_at=expires_at,
        operator_expired=False,
        policy=policy,
        as_of=None,
        item_limit=item_limit,
        returned=tuple(returned),
        cited=(),
        blocked=(),
        dropped_count=len(dropped),
        conflicts=0,
        lexical_ms=None,
        vector_ms=None,
        rank_ms=None,
        total_ms=None,
        lexical_candidates=None,
        vector_candidates=None,
        dropped=tuple(dropped),
    )
