"""The offline alignment pass (``maintenance run`` with ``lifecycle.alignment.enabled``):
every principal's beliefs past its ledger's watermark get the bounded check. Bulk ingest
defers to it (memory_es/ingest.py writes in batches, without the per-close hook)."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from eventsourcing.application import AggregateNotFoundError
from eventsourcing.utils import get_topic

from memory_es.domain.principal import PrincipalMemory
from memory_es.projections.records import principal_key
from memory_es.review.commands import Align, AlignmentReport
from memory_es.review.ledger import KINDS, STATES, ReviewLedger, ledger_id

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


def proposal_counts(memory: Memory, keys: list[str]) -> dict[str, int]:
    """``proposals_<kind>_<state>`` for the principals ``keys``: integers only."""
    from memory_es.domain.values import split_principal_identity

    counts: Counter[str] = Counter({f"proposals_{k}_{s}": 0 for k in KINDS for s in STATES})
    for key in keys:
        tenant, name = split_principal_identity(key)
        try:
            ledger: Any = memory.app.repository.get(ledger_id(tenant, name))
        except AggregateNotFoundError:  # no ledger yet: nothing proposed
            continue
        if isinstance(ledger, ReviewLedger):
            for proposal in ledger.proposals.values():
                counts[f"proposals_{proposal['kind']}_{proposal['state']}"] += 1
    return dict(sorted(counts.items()))
