"""One statement-matching rule for every harness that scores formed beliefs.

Normalization case-folds, collapses whitespace and strips trailing sentence punctuation;
a belief matches a label when its type is the label's type, one of its subjects is one of
the label's subjects and its statement is one of the label's statements, all normalized.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Protocol

from memory_es.domain.values import normalize_statement

# The domain's own rule, so the benchmark and the resolver agree on "the same statement".
normalize = normalize_statement


class BeliefLike(Protocol):
    @property
    def belief_type(self) -> str: ...

    @property
    def subjects(self) -> Sequence[str]: ...

    @property
    def statement(self) -> str: ...


class LabelLike(Protocol):
    @property
    def belief_type(self) -> str: ...

    @property
    def subjects(self) -> Sequence[str]: ...

    @property
    def statements(self) -> Sequence[str]: ...


def matches(belief: BeliefLike, label: LabelLike) -> bool:
    if belief.belief_type != label.belief_type:
        return False
    if normalize(belief.statement) not in {normalize(s) for s in label.statements}:
        return False
    wanted = {normalize(s) for s in label.subjects}
    return any(normalize(s) in wanted for s in belief.subjects)


def contains_fragment(text: str, fragments: Iterable[str]) -> list[str]:
    """The fragments (as given) whose normalized form occurs token-bounded in the text."""
    haystack = normalize(text)
    found = []
    for fragment in fragments:
        needle = normalize(fragment)
        if needle and re.search(rf"(?<!\w){re.escape(needle)}(?!\w)", haystack):
            found.append(fragment)
    return found
