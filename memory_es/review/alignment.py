"""Near-duplicate alignment (RFC 002): which live beliefs say nearly the same thing, and
what a reviewer might be asked to do about it. Pure rules over read-model rows.

The procedure is bounded and never destructive: normalized equality is the resolver's
duplicate rule (a reinforcement, not alignment's business); beyond it, a belief's
bounded lexical candidates (the recall index's own BM25 candidates, at most
``max_candidates``) that share enough of its content terms become a *relation*; a
connected set of related beliefs is a *cluster*, and a cluster becomes at most one review
proposal. Similarity decides nothing by itself: it never merges, deactivates, lowers
importance or supersedes (only an approved proposal does).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from memory_es.domain.values import BeliefType
from memory_es.projections.records import BeliefRecord
from memory_es.retrieval.tokenizer import STOPWORDS, lexemes, query_terms, stem

POLICY = "alignment@1"

# Words every statement carries by formation's phrasing ("User said: ...", "User's"):
# they say nothing about what two beliefs are about.
_FRAME_TERMS = frozenset({"user", "user's", "said", "their", "they", "them"})
_NUMBER = re.compile(r"\d+(?:[.,:/-]\d+)*")
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")


def content_terms(statement: str) -> frozenset[str]:
    """The one tokenizer's query terms of a statement (what its lexical candidates are
    read with), less formation's framing words."""
    return frozenset(t for t in query_terms(statement) if t not in _FRAME_TERMS)


def content_stems(statement: str) -> frozenset[str]:
    """The stems of a statement's content words: "likes" and "like" are one."""
    return frozenset(
        stem(word)
        for word in lexemes(statement)
        if word not in STOPWORDS and word not in _FRAME_TERMS
    )


def similarity(a: str, b: str) -> float:
    """Jaccard overlap of two statements' content stems, in [0, 1]."""
    left, right = content_stems(a), content_stems(b)
    union = left | right
    return len(left & right) / len(union) if union else 0.0


def specifics(statement: str) -> frozenset[str]:
    """The names, numbers and dates a statement carries, case-folded: every capitalised
    word but the first and formation's "User", and every number (a date's day, year or
    time is one). Consolidation may lose none of them."""
    found: set[str] = set(_NUMBER.findall(statement))
    words = _WORD.findall(statement)
    for position, word in enumerate(words):
        bare = word.removesuffix("'s")
        if position == 0 or bare in {"User", "I"} or not bare[:1].isupper():
            continue
        found.add(bare.casefold())
    return frozenset(found)


@dataclass(frozen=True)
class Relation:
    """Two live beliefs that say nearly the same thing (ids in sorted order)."""

    belief_id: str
    related_id: str
    similarity: float


def relations_for(
    belief: BeliefRecord, candidates: Iterable[BeliefRecord], *, min_similarity: float
) -> list[Relation]:
    """The near-duplicate relations of ``belief`` among its bounded candidates: another
    live belief of the principal, same polarity, not the same statement (the resolver's
    duplicate), at least ``min_similarity`` alike."""
    out: list[Relation] = []
    for other in candidates:
        if other.belief_id == belief.belief_id or other.polarity != belief.polarity:
            continue
        if other.statement.casefold() == belief.statement.casefold():
            continue
        score = round(similarity(belief.statement, other.statement), 6)
        if score >= min_similarity:
            low, high = sorted((belief.belief_id, other.belief_id))
            out.append(Relation(low, high, score))
    return out


def clusters(pairs: Iterable[tuple[str, str]]) -> list[tuple[str, ...]]:
    """Connected sets of related ids (union-find), each sorted, in order of their first id."""
    parent: dict[str, str] = {}

    def root(node: str) -> str:
        parent.setdefault(node, node)
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    for a, b in pairs:
        ra, rb = root(a), root(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    groups: dict[str, list[str]] = {}
    for node in list(parent):
        groups.setdefault(root(node), []).append(node)
    return sorted(tuple(sorted(members)) for members in groups.values() if len(members) > 1)


def carries_all(member: BeliefRecord, members: Sequence[BeliefRecord]) -> bool:
    """Whether ``member``'s statement carries every name, number and date, and every
    content word, of all ``members``: only then may the others leave the active surface
    without their content leaving with them."""
    names: set[str] = set()
    words: set[str] = set()
    for other in members:
        names |= specifics(other.statement)
        words |= content_stems(other.statement)
    return specifics(member.statement) >= names and content_stems(member.statement) >= words


def covering_subset(
    members: Sequence[BeliefRecord],
) -> tuple[BeliefRecord, list[BeliefRecord]] | None:
    """The member a consolidation keeps and the members it may stand for: those whose
    every name, number, date and content word it carries (:func:`carries_all`) — the
    largest such set, the keeper preferred by higher authority, then more evidence, then
    the earlier formed; None when no member carries another (nothing can be consolidated
    without losing what one of them says).

    A keeper stands only for members of its own belief type, or for plain facts (the
    untyped sentence-level kind): a typed belief — an attribute the resolver replaces on
    a new statement (where the user lives), a preference, a relationship — consolidated
    into a fact that merely mentions it would leave the fact live when the attribute is
    superseded, and would drop the typed belief recall and supersession read. Otherwise
    the relation stands and the beliefs stay apart."""
    best: tuple[BeliefRecord, list[BeliefRecord]] | None = None
    for keeper in sorted(
        members, key=lambda m: (-m.authority, -m.evidence_count, m.position, m.belief_id)
    ):
        subset = [
            m
            for m in members
            if m.belief_type in (keeper.belief_type, BeliefType.FACT.value)
            and carries_all(keeper, [m])
        ]
        if len(subset) >= 2 and (best is None or len(subset) > len(best[1])):
            best = (keeper, subset)
    return best


def supersession_order(members: Sequence[BeliefRecord]) -> tuple[BeliefRecord, BeliefRecord] | None:
    """(predecessor, successor) when two members of one type and subject differ in what
    they carry and their evidence times are comparable and distinct; else None (an
    unresolved pair stays two beliefs: time is never guessed)."""
    if len(members) != 2:
        return None
    first, second = sorted(members, key=lambda m: (m.last_evidence_at, m.position))
    if first.belief_type != second.belief_type or set(first.subjects) != set(second.subjects):
        return None
    if not first.last_evidence_at or first.last_evidence_at == second.last_evidence_at:
        return None
    if specifics(first.statement) == specifics(second.statement):
        return None
    return first, second


def union_evidence(members: Iterable[BeliefRecord]) -> tuple[str, ...]:
    out: set[str] = set()
    for member in members:
        out.update(member.source_event_ids)
    return tuple(sorted(out))


def by_id(records: Iterable[BeliefRecord]) -> Mapping[str, BeliefRecord]:
    return {r.belief_id: r for r in records}
