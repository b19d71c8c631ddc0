"""A diagnostic extractor: every trusted user turn becomes one belief, verbatim.

Not the memory arm and never its figure. It takes formation out of the measurement:
with each of the principal's turns stored whole as a belief (its own unique subject, so
the resolver never supersedes one turn by another), what remains is memory_es's recall
stack — the index's any-term candidates, the candidate cap, the ranking function and the
renderer — over the same corpus the raw-turn BM25 reference reads. The gap between this
and the BM25 reference is retrieval's; the gap between the memory arm and this is
formation's. Selected with ``--diagnostic-extractor verbatim``; the metrics file names
the extractor it ran.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from memory_es.domain.values import Authority, BeliefType
from memory_es.formation.extractor import ClauseExtractor, Extractor, Proposal, SourceTurn


class VerbatimTurnExtractor:
    name = "diagnostic_verbatim_turns@1"

    def extract(self, turns: Sequence[SourceTurn]) -> list[Proposal]:
        return [
            Proposal(
                statement=turn.text.strip(),
                belief_type=BeliefType.FACT,
                subjects=(f"turn {turn.turn_id[:8]}",),
                polarity=True,
                source=turn,
            )
            for turn in turns
            if turn.trusted and turn.role == "user" and turn.text.strip()
        ]


class InferredClauseExtractor:
    """The clause extractor's readings, every one at INFERRED (so PROVISIONAL at the
    inferred confidence): the lifecycle's worst case, where nothing the extractor reads
    is a direct statement and everything is subject to decay. A diagnostic of the decay
    sweep and L1 (``--maintenance``), never the memory arm's figure."""

    name = "diagnostic_inferred_clauses@1"

    def __init__(self) -> None:
        self._clauses = ClauseExtractor()

    def extract(self, turns: Sequence[SourceTurn]) -> list[Proposal]:
        return [replace(p, authority=Authority.INFERRED) for p in self._clauses.extract(turns)]


DIAGNOSTIC_EXTRACTORS: dict[str, Callable[[], Extractor]] = {
    "verbatim": VerbatimTurnExtractor,
    "inferred": InferredClauseExtractor,
}
