"""The extractor port and the first deterministic extractor.

An extractor turns the trusted user turns of a session into proposals; it knows nothing
about existing beliefs (that is the resolver's job). ``FirstPersonExtractor`` covers
plain first-person facts and is meant to be replaced whole, not patched.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from memory_es.domain.values import BeliefType


@dataclass(frozen=True)
class SourceTurn:
    """A recorded turn, as formation sees it."""

    turn_id: str
    seq: int
    role: str
    text: str
    trusted: bool
    at: str


@dataclass(frozen=True)
class Proposal:
    statement: str
    belief_type: BeliefType
    subjects: tuple[str, ...]
    polarity: bool
    source: SourceTurn


class Extractor(Protocol):
    name: str

    def extract(self, turns: Sequence[SourceTurn]) -> list[Proposal]: ...


_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_IRREGULAR = {"have": "has", "am": "is", "'m": "is", "do": "does", "go": "goes", "be": "is"}


def third_person(verb: str) -> str:
    v = verb.lower()
    if v in _IRREGULAR:
        return _IRREGULAR[v]
    if re.search(r"(?:s|sh|ch|x|z|o)$", v):
        return v + "es"
    if re.search(r"[^aeiou]y$", v):
        return v[:-1] + "ies"
    return v + "s"


def _clean(obj: str) -> str:
    obj = obj.strip().rstrip(".!?,;: ")
    return re.sub(r"\s+(?:now|these days|anymore)$", "", obj, flags=re.IGNORECASE)


# (pattern, belief_type, subject, statement template); {o} is the cleaned object.
_PATTERNS: tuple[tuple[re.Pattern[str], BeliefType, str, str], ...] = (
    (
        re.compile(r"^I live in (?P<o>.+)$", re.I),
        BeliefType.USER_MODEL_ATTR,
        "home location",
        "User lives in {o}.",
    ),
    (
        re.compile(r"^I work (?:at|for) (?P<o>.+)$", re.I),
        BeliefType.USER_MODEL_ATTR,
        "employment",
        "User works at {o}.",
    ),
    (
        re.compile(r"^I prefer (?P<o>.+)$", re.I),
        BeliefType.PREFERENCE,
        "preference",
        "User prefers {o}.",
    ),
    (
        re.compile(
            r"^My (?P<rel>wife|husband|partner|manager|sister|brother|son|daughter|dog|cat)"
            r" is (?P<o>.+)$",
            re.I,
        ),
        BeliefType.RELATIONSHIP,
        "{rel}",
        "User's {rel} is {o}.",
    ),
)


class FirstPersonExtractor:
    name = "first_person@1"

    def extract(self, turns: Sequence[SourceTurn]) -> list[Proposal]:
        proposals: list[Proposal] = []
        for turn in turns:
            if not turn.trusted or turn.role != "user":
                continue
            for sentence in _SENTENCE.split(turn.text):
                sentence = sentence.strip()
                if not sentence or sentence.endswith("?"):
                    continue
                for pattern, belief_type, subject, template in _PATTERNS:
                    m = pattern.match(sentence)
                    if m is None:
                        continue
                    groups = {k: v for k, v in m.groupdict().items() if v is not None}
                    obj = _clean(groups.pop("o"))
                    if not obj:
                        continue
                    rel = groups.get("rel", "").lower()
                    proposals.append(
                        Proposal(
                            statement=template.format(o=obj, rel=rel),
                            belief_type=belief_type,
                            subjects=(subject.format(rel=rel),),
                            polarity=True,
                            source=turn,
                        )
                    )
                    break
        return proposals
