"""The offline alignment pass (``maintenance run`` with ``lifecycle.alignment.enabled``):
every principal's beliefs past its ledger's watermark get the bounded check. Bulk ingest
defers to it (memory_es/ingest.py writes in batches, without the per-close hook)."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from eventsourcing.utils import get_topic

from memory_es.domain.principal import PrincipalMemory
from memory_es.projections.records import principal_key
from memory_es.review.commands import Align, AlignmentReport
from memory_es.review.ledger import (
    APPROVED,
    DECLINED,
    KINDS,
    PENDING,
    REFUSED,
    STATES,
    ReviewLedger,
    ledger_id,
)

if TYPE_CHECKING:
    from memory_es.app import Memory

_PAGE = 1000
_CREATED = get_topic(PrincipalMemory.Created)


def principals(memory: Memory) -> list[str]:
    """Every principal that holds memory (its aggregate's Created event), in log order."""
    recorder, mapper = memory.app.recorder, memory.app.mapper
    out: list[str] = []
    after = 0
    while True:
        page = recorder.select_notifications(
            start=after, limit=_PAGE, topics=[_CREATED], inclusive_of_start=False
        )
        for notification in page:
            created: Any = mapper.to_domain_event(notification)
            key = principal_key(created.tenant, created.principal)
            if key not in out:
                out.append(key)
        if len(page) < _PAGE:
            return out
        after = page[-1].id


def sweep_alignment(memory: Memory, *, dry_run: bool) -> list[AlignmentReport] | None:
    """None when alignment is off (the report then says nothing of it); a dry run
    aligns nothing (relations and proposals are writes)."""
    if not memory.profile.lifecycle.alignment.enabled:
        return None
    if dry_run:
        return []
    return [memory.services.handle(Align(key)) for key in principals(memory)]


_DECISIONS = {
    get_topic(ReviewLedger.ProposalApproved): APPROVED,
    get_topic(ReviewLedger.ProposalDeclined): DECLINED,
    get_topic(ReviewLedger.ProposalRefused): REFUSED,
}
_OPENED = get_topic(ReviewLedger.ProposalOpened)


def proposal_counts(memory: Memory, keys: list[str]) -> dict[str, int]:
    """``proposals_<kind>_<state>`` for the principals ``keys``, from one scan of the
    log's proposal events (no ledger is loaded): integers only."""
    from memory_es.domain.values import split_principal_identity

    ledgers = {ledger_id(*split_principal_identity(key)) for key in keys}
    kinds: dict[str, str] = {}
    states: dict[str, str] = {}
    recorder, mapper = memory.app.recorder, memory.app.mapper
    after = 0
    while True:
        page = recorder.select_notifications(
            start=after, limit=_PAGE, topics=[_OPENED, *_DECISIONS], inclusive_of_start=False
        )
        for notification in page:
            if notification.originator_id not in ledgers:
                continue
            proposal: Any = mapper.to_domain_event(notification)
            if notification.topic == _OPENED:
                kinds[proposal.proposal_id] = proposal.kind
                states[proposal.proposal_id] = PENDING
            else:
                states[proposal.proposal_id] = _DECISIONS[notification.topic]
        if len(page) < _PAGE:
            break
        after = page[-1].id
    counts: Counter[str] = Counter({f"proposals_{k}_{s}": 0 for k in KINDS for s in STATES})
    for proposal_id, kind in kinds.items():
        counts[f"proposals_{kind}_{states[proposal_id]}"] += 1
    return dict(sorted(counts.items()))
