"""``memory-es stats``: the seed's tracked lifecycle metrics, computed from the log and
the trace store. Counts only: no belief statement, no secret, no path.

First what memory holds: the live (active or provisional) beliefs, from the read
model, over the sessions opened and the principals that opened one or hold memory, from
the log. Then, read
from the log (the principal aggregate's events): decay sweeps, beliefs decayed,
retired and revived, citations recorded and ambiguous, conflicts committed (from each
consolidation's counts), confirmations requested and settled, deactivations,
reactivations, pins. From the trace store: traces whose operator tier expired.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any
from uuid import UUID

from eventsourcing.utils import get_topic

from memory_es.domain.principal import PrincipalMemory
from memory_es.domain.session import Session
from memory_es.domain.values import LIVE_STATUSES, normalize_name
from memory_es.projections.records import principal_key
from memory_es.services.unit_of_work import principal_aggregate_ids

if TYPE_CHECKING:
    from memory_es.app import Memory

P = PrincipalMemory
# Events counted one each, by the key they count under.
_ONE_EACH: dict[type[Any], str] = {
    P.DecaySwept: "decay_sweeps",
    P.BeliefDecayed: "beliefs_decayed",
    P.BeliefRetired: "beliefs_retired",
    P.BeliefRevived: "beliefs_revived",
    P.UsageRecorded: "usage_runs",
    P.ConfirmationRequested: "confirmations_requested",
    P.ConflictConfirmed: "confirmations_settled",
    P.BeliefDeactivated: "deactivations",
    P.BeliefReactivated: "reactivations",
    P.BeliefPinned: "pins",
    P.BeliefUnpinned: "unpins",
}
# The events the metrics read; the recorder filters on their topics (nothing else decodes).
_COUNTED: tuple[type[Any], ...] = (
    *_ONE_EACH,
    P.ConsolidationRecorded,
    P.Created,
    Session.Opened,
)
_TOPICS = sorted(get_topic(cls) for cls in _COUNTED)
_PAGE = 1000

KEYS = (
    # What a reader asks first: how much memory, over how many sessions and principals.
    "beliefs",
    "sessions",
    "principals",
    "decay_sweeps",
    "beliefs_decayed",
    "beliefs_retired",
    "beliefs_revived",
    "citations_recorded",
    "citations_ambiguous",
    "usage_runs",
    "conflicts_committed",
    "confirmations_requested",
    "confirmations_settled",
    "deactivations",
    "deactivations_auto_decay",
    "deactivations_session_end",
    "reactivations",
    "pins",
    "unpins",
    "trace_expiries",
    "quarantined_events",
)


def lifecycle_stats(memory: Memory, principal: str | None = None, *, tenant: str) -> dict[str, Any]:
    """Every key of ``KEYS`` as an integer, for one principal or the whole store."""
    only = None if principal is None else principal_aggregate_ids(memory.app, tenant, principal)
    counts: Counter[str] = Counter({key: 0 for key in KEYS})
    principals: set[str] = set()
    named = None if principal is None else (tenant, normalize_name(principal))
    recorder, mapper = memory.app.recorder, memory.app.mapper
    after = 0
    while True:
        page = recorder.select_notifications(
            start=after, limit=_PAGE, topics=_TOPICS, inclusive_of_start=False
        )
        for notification in page:
            event = mapper.to_domain_event(notification)
            if isinstance(event, Session.Opened):
                # A session is its own aggregate: it names its principal in its fields.
                if named is None or (event.tenant, event.principal) == named:
                    counts["sessions"] += 1
                    principals.add(principal_key(event.tenant, event.principal))
                continue
            if only is not None and notification.originator_id not in only:
                continue
            if isinstance(event, P.Created):
                principals.add(principal_key(event.tenant, event.principal))
            _count(event, counts)
        if len(page) < _PAGE:
            break
        after = page[-1].id
    counts["trace_expiries"] = memory.traces.count_expired(
        None if principal is None else principal_key(tenant, principal)
    )
    # Events the read model could not apply and skipped (projections/runner.py): the
    # store's, or those of the principal's own aggregate.
    counts["quarantined_events"] = sum(
        1 for q in memory.index.quarantined() if only is None or UUID(q.originator_id) in only
    )
    counts["principals"] = len(principals)
    # The beliefs memory holds now (active or provisional), from the read model.
    counts["beliefs"] = sum(
        sum(1 for b in memory.index.beliefs(key) if b.status in LIVE_STATUSES) for key in principals
    )
    from memory_es.review.sweep import proposal_counts  # L2 proposals by kind and state

    return {key: int(counts[key]) for key in KEYS} | proposal_counts(memory, sorted(principals))


def _count(event: Any, counts: Counter[str]) -> None:
    kind = type(event)
    key = _ONE_EACH.get(kind)
    if key is not None:
        counts[key] += 1
    if kind is P.UsageRecorded:
        counts["citations_recorded"] += len(event.cited)
        counts["citations_ambiguous"] += len(event.ambiguous)
    elif kind is P.ConsolidationRecorded:
        counts["conflicts_committed"] += int(event.counts.get("conflicted", 0))
    elif kind is P.BeliefDeactivated:
        counts[f"deactivations_{event.reason.split(':')[0]}"] += 1
