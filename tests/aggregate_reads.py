"""The resolver's reads of an aggregate no store has seen: an empty read model, with
every event pending on the aggregate as the overlay (what a command reads of a principal
it creates), for tests that drive the domain without a store."""

from __future__ import annotations

from memory_es.domain.principal import PrincipalMemory
from memory_es.projections.memory import MemoryRecallIndex
from memory_es.projections.records import principal_key
from memory_es.services.read_model_beliefs import ReadModelBeliefs


def reads_of(principal: PrincipalMemory) -> ReadModelBeliefs:
    """Reads that follow the aggregate's pending events as they are triggered."""
    return ReadModelBeliefs(
        MemoryRecallIndex(),
        principal_key(principal.tenant, principal.principal),
        0,
        lambda _after: principal.pending_events,
    )
