"""The read port of the principal's invariants: its beliefs at one version of its
aggregate, which the resolver's candidates and the lifecycle's checks by id come from.

A command reads through it what the aggregate it saves on knew (never a stale read:
whatever it decides is saved only on that version, the log's version check refuses the
rest) and, within the command or batch, the beliefs its own pending events formed or
changed. Implemented by the read model caught up to the aggregate's version, with an
overlay of the pending events (memory_es/services/read_model_beliefs.py): the aggregate
holds no belief (issue 30).
"""

from __future__ import annotations

from typing import Protocol

from memory_es.domain.resolver import Evidence, Existing
from memory_es.domain.values import Authority, Status


class BeliefReads(Protocol):
    @property
    def version(self) -> int:
        """The aggregate version the read stands at (the command's own pending events
        on top of it are read as well)."""
        ...

    def candidates(self, incoming: Evidence) -> list[Existing]:
        """The beliefs the resolver's rules can match for ``incoming``, in formation order:
        every belief with its statement and every live belief of its type sharing a
        subject (and, for a retraction, every live positive belief naming what it
        retracts)."""
        ...

    def live(self) -> list[Existing]:
        """Every live belief, in formation order (what a re-derivation answers for)."""
        ...

    def readings_carrying(self, belief_id: str, successor_normalized: str) -> list[str]:
        """The live positive inferences of ``belief_id``'s source turns naming a value it
        stated and its successor does not (they go with it when it is superseded)."""
        ...

    def status_of(self, belief_id: str) -> Status | None: ...

    def type_and_key(self, belief_id: str) -> tuple[str, str]: ...

    def authority_of(self, belief_id: str) -> Authority | None: ...

    def evidence_of(self, belief_id: str) -> int:
        """How many source events back the belief."""
        ...

    def is_pinned(self, belief_id: str) -> bool: ...

    def is_forgotten(self, belief_id: str) -> bool:
        """Retired by the decay sweep (and not revived since): new evidence revives it."""
        ...

    def prior_status(self, belief_id: str) -> Status | None:
        """The status a deactivated belief had; None when it is not deactivated."""
        ...
