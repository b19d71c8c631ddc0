"""Established facts and the remember tool: statements that enter formation at AFFIRMED.

An established fact is a conclusion the agent reached in a session, with the turns that
support it. It becomes a candidate only when its provenance holds: a non-empty list of
source event ids, every one a trusted user turn of the session's own principal in that
session (a foreign, untrusted or unknown id refuses the whole fact). The remember tool's
statement is its own evidence: a trusted ``tool`` turn recorded in the session.
Pure: the caller passes the session's turns.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from memory_es.domain.values import Authority, BeliefType, Role
from memory_es.formation.extractor import Proposal, SourceTurn
from memory_es.formation.hazards import candidate_hazard


@dataclass(frozen=True)
class EstablishedFact:
    statement: str
    source_event_ids: tuple[str, ...]
    # AFFIRMED: an established fact, or the remember tool at memory trust. USER only for
    # ``remember --from-user`` (a statement the user made to memory directly), backed by
    # the tool turn that records it; the establish-facts API cannot ask for it.
    authority: Authority = Authority.AFFIRMED


# Roles whose trusted turns may back an established fact. A user turn is the user's
# word; a tool turn is the remember tool recording a statement at memory trust.
EVIDENCE_ROLES = frozenset({Role.USER.value, Role.TOOL.value})

_WORD = re.compile(r"[A-Za-z0-9][\w'&.-]*")


def subject_of(statement: str) -> str:
    """The seed's stable subject: the first capitalized entity span, ignoring a word that
    only opens the sentence; the first three words when the statement names no entity."""
    words = [w.rstrip(".,;:!?'\"") for w in _WORD.findall(statement)]
    words = [w for w in words if w]
    i = 0
    while i < len(words):
        if words[i][:1].isupper() and words[i] != "I":
            j = i
            while j + 1 < len(words) and words[j + 1][:1].isupper() and words[j + 1] != "I":
                j += 1
            if i == 0 and j == 0:
                i = 1  # a capital that only opens the sentence
                continue
            return " ".join(words[i : j + 1])
        i += 1
    return " ".join(words[:3])


def as_sentence(statement: str) -> str:
    text = " ".join(statement.split()).strip()
    if not text:
        return ""
    text = text[:1].upper() + text[1:]
    return text.rstrip(".!?;:, ") + "."


def established_proposals(
    facts: Sequence[EstablishedFact], turns: Sequence[SourceTurn]
) -> tuple[list[Proposal], int]:
    """(admitted proposals at AFFIRMED, refused fact count) for one session's facts."""
    by_id = {t.turn_id: t for t in turns}
    admitted: list[Proposal] = []
    refused = 0
    for fact in facts:
        statement = as_sentence(fact.statement)
        sources = [by_id.get(i) for i in fact.source_event_ids]
        if (
            not statement
            or candidate_hazard(statement) is not None  # a key, or an order: never a fact
            or not fact.source_event_ids
            or any(s is None or not s.trusted or s.role not in EVIDENCE_ROLES for s in sources)
        ):
            refused += 1
            continue
        backing = sorted((s for s in sources if s is not None), key=lambda s: (s.seq, s.turn_id))
        newest = backing[-1]
        admitted.append(
            Proposal(
                statement=statement,
                belief_type=BeliefType.FACT,
                subjects=(subject_of(statement),),
                polarity=True,
                source=newest,
                authority=fact.authority,
                more_sources=tuple(backing[:-1]),
            )
        )
    return admitted, refused
