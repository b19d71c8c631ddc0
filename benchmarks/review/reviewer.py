"""The scripted reviewer of the L2 evaluation: approve every consolidation (and
promotion) whose members share their names, numbers and dates; decline the rest."""

from __future__ import annotations

from collections.abc import Callable

import memory_es
from memory_es.benchmarks.memory_benchmark.driver import EVAL_PRINCIPAL
from memory_es.review.alignment import specifics


def scripted_reviewer(decisions: dict[str, int]) -> Callable[[memory_es.Memory], None]:
    def review(memory: memory_es.Memory) -> None:
        for proposal in memory.review.list(EVAL_PRINCIPAL):
            if proposal.state != "pending":
                continue
            members = [memory.index.get(b) for b in proposal.members]
            carried = {specifics(m.statement) if m is not None else None for m in members}
            if proposal.kind in ("consolidation", "promotion") and len(carried) == 1:
                state = memory.review.approve(proposal.id, principal=EVAL_PRINCIPAL).state
            else:
                memory.review.decline(
                    proposal.id,
                    reason="members differ in what they carry",
                    principal=EVAL_PRINCIPAL,
                )
                state = "declined"
            decisions[state] = decisions.get(state, 0) + 1

    return review
