"""The query former: turn text to query terms, shared by in-turn recall and the CLI.

Stopwords go; first-person words ("I", "my", "me", ...) become the user — the form the
extractor writes statements in ("User lives in ...") — as a *boost* term: it adds to the
relevance of statements about the user but never admits a row alone, or every question
phrased in the first person would match every belief. A question about nothing but the
user ("what do you know about me?") keeps the user as its one admitting term. The query
runs at the caller's project scope (a session's own scope for in-turn recall).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import pairwise

from memory_es.retrieval.expansion import expand
from memory_es.retrieval.quantity import amount_frame, quantity_question
from memory_es.retrieval.temporal import (
    named_period,
    relative_period_frame,
    temporal_question,
)
from memory_es.retrieval.tokenizer import STOPWORDS, lexemes, stem

USER_TERM = "user"
FIRST_PERSON: frozenset[str] = frozenset({"i", "me", "my", "mine", "myself"})
# The words that ask for advice name the asking, not its topic, in a question that asks
# for it ("Can you suggest a gift for my aunt?", "Any tips on what to bake for my
# colleagues?"): such a question with other content words drops them, or every line the
# user once framed as a request ("User is looking for some recommendations on ...") meets
# every request. A question about someone's advice ("What did Ana recommend?") keeps
# them: there they are the topic. Stems, as the tokenizer makes them.
REQUEST_WORDS: frozenset[str] = frozenset({"suggest", "recommend", "tip", "advic", "advis", "idea"})
_LISTENER: frozenset[str] = frozenset({"you", "your"})


def asks_for_advice(words: Sequence[str]) -> bool:
    """Whether a question's lexemes ask the listener for advice: it speaks to them
    ("can you", "your") or asks for "any" advice ("Any tips?")."""
    if not _LISTENER.isdisjoint(words):
        return True
    return any(word == "any" and stem(after) in REQUEST_WORDS for word, after in pairwise(words))


@dataclass(frozen=True)
class FormedQuery:
    text: str
    project: str
    terms: tuple[str, ...]  # admitting terms: the stem of each content word, sorted
    boost: tuple[str, ...]  # terms that only add relevance (the user)
    temporal: bool = False  # the question asks when: dated statements rank higher
    period: tuple[datetime, datetime] | None = None  # the [start, end) the question names
    # The stems of the question's own content words, before expansion: what a reading
    # that says the question's words again holds (ranking.sibling_preference).
    asked: tuple[str, ...] = ()
    # The question asks for an amount ("how many", "how long"): of one turn's readings,
    # the one naming a number is kept (ranking.sibling_preference).
    quantity: bool = False

    @property
    def empty(self) -> bool:
        return not self.terms


def form_query(text: str, *, project: str) -> FormedQuery:
    words = lexemes(text)
    first_person = any(w in FIRST_PERSON for w in words)
    kept = [w for w in words if w not in STOPWORDS and w not in FIRST_PERSON]
    # One term per query word, its stem: every indexed word carries its stem too, so the
    # stem meets every inflection ("live" meets "lives") and no word counts twice just
    # because the stemmer changed it.
    asked = {stem(word) for word in kept}
    if asked - REQUEST_WORDS and asks_for_advice(words):
        asked -= REQUEST_WORDS
    # "How many weddings ...": the amount asked for is the frame, the weddings the topic.
    # "... in the past two months": the period says when to look, not what about.
    frame = {stem(word) for word in amount_frame(words) | relative_period_frame(words)}
    if asked - frame:
        asked -= frame
    terms: set[str] = asked | expand(asked)
    boost: tuple[str, ...] = ()
    if first_person and USER_TERM not in terms:
        if terms:
            boost = (USER_TERM,)
        else:
            terms.add(USER_TERM)
    return FormedQuery(
        text=text,
        project=project,
        terms=tuple(sorted(terms)),
        boost=boost,
        temporal=temporal_question(words),
        period=named_period(words),
        asked=tuple(sorted(asked)),
        quantity=quantity_question(words),
    )
