"""The scripted reviewer of the L2 evaluation: approve every consolidation (and
promotion) whose members share their names, numbers and dates; decline the rest.
It reviews the memory benchmark's one principal, or the ``principals`` given (each
LoCoMo speaker is one)."""

from __future__ import annotations

from collections.abc import Callable

import memory_es
from memory_es.benchmarks.memory_benchmark.driver import EVAL_PRINCIPAL
from memory_es.review.alignment import specifics


def scripted_reviewer(decisions: dict[str, int]) -> Callable[[memory_es.Memory], None]:
    def review(memory: memory_es.Memory) -> None:
        review_principals(memory, (EVAL_PRINCIPAL,), decisions)

    return review


def review_principals(
    memory: memory_es.Memory, principals: tuple[str, ...], decisions: dict[str, int]
) -> None:
    """The scripted reviewer's rule over every pending proposal of each principal;
    ``decisions`` counts what became of them (approved, declined, refused)."""
    for principal in principals:
        for proposal in memory.review.list(principal):
            if proposal.state != "pending":
                continue
            members = [memory.index.get(b) for b in proposal.members]
            carried = {specifics(m.statement) if m is not None else None for m in members}
            if proposal.kind in ("consolidation", "promotion") and len(carried) == 1:
                state = memory.review.approve(proposal.id, principal=principal).state
            else:
                memory.review.decline(
                    proposal.id,
                    reason="members differ in what they carry",
                    principal=principal,
                )
                state = "declined"
            decisions[state] = decisions.get(state, 0) + 1
