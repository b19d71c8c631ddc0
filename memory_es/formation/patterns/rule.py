"""What a rule is and what it forms.

A rule is a compiled pattern and the function that reads its match. ``rule(name,
pattern)`` builds one; nothing is registered anywhere as a side effect: each rule
family lists its rules in a ``RULES`` tuple, and ``memory_es.formation.patterns.catalogue``
states their order.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from memory_es.domain.values import Authority, BeliefType


def sentence_case(statement: str) -> str:
    statement = re.sub(r"\s+", " ", statement).strip()
    statement = re.sub(r"\s+([,.;:!?])", r"\1", statement)
    return statement.rstrip(".,;:!? ") + "."


@dataclass(frozen=True)
class Found:
    statement: str
    belief_type: BeliefType
    subjects: tuple[str, ...]
    polarity: bool
    rule: str
    key: str | None = None
    # USER for a direct statement; INFERRED for a reading more guess than statement
    # (episodes, sentence-level beliefs), which enters PROVISIONAL (docs/formation.md).
    authority: Authority = Authority.USER
    # A correction said without its subject ("actually it's the 12th, not the 10th"):
    # (what was said, what replaces it); memory_es/formation/corrections.py finds the
    # belief it corrects. The statement is a placeholder the resolution replaces.
    corrects: tuple[str, str] | None = None
    # A switch whose old value it does not name ("I switched to a Pixel 8"): the class
    # it switches within (patterns/switches.py); formation adds the key of the newest
    # live belief about an object of that class, so the switch supersedes it.
    switches: str | None = None


def found(
    name: str,
    statement: str,
    belief_type: BeliefType,
    subjects: tuple[str, ...] | str,
    *,
    polarity: bool = True,
    key: str | None = None,
) -> Found:
    subs = (subjects,) if isinstance(subjects, str) else subjects
    return Found(
        statement=sentence_case(statement),
        belief_type=belief_type,
        subjects=tuple(s for s in subs if s),
        polarity=polarity,
        rule=name,
        key=key,
    )


@dataclass(frozen=True)
class Reread:
    """A rule's answer "read this part of the clause instead" (the news after "to tell
    you" in "I am so excited to tell you I started a yoga class")."""

    text: str


Reader = Callable[[re.Match[str]], "list[Found] | Reread"]
# Rules anchored on a first word ("^I ", "^My "), so a clause only tries its own.
_ANCHORS: dict[str, str] = {"^I ": "i", "^My ": "my"}


@dataclass(frozen=True)
class Rule:
    name: str
    pattern: re.Pattern[str]
    read: Reader
    anchor: str | None  # "i", "my", or None for a rule any clause may match
    authority: Authority = Authority.USER  # what the beliefs it forms enter at
    # A lowercase word one of which the clause must contain before the pattern is tried
    # (a cheap test that keeps a long catalogue fast); None: always tried.
    needs: re.Pattern[str] | None = None


def rule(
    name: str,
    pattern: str,
    *,
    authority: Authority = Authority.USER,
    needs: tuple[str, ...] = (),
) -> Callable[[Reader], Rule]:
    """The decorated function as a rule named ``name`` that reads ``pattern``'s match;
    what it forms enters at ``authority``; ``needs`` (lowercase) are the words without
    one of which the pattern cannot match."""
    compiled = re.compile(pattern, re.I)
    anchor = next((w for prefix, w in _ANCHORS.items() if pattern.startswith(prefix)), None)
    needed = re.compile("|".join(re.escape(w) for w in needs)) if needs else None

    def make(read: Reader) -> Rule:
        return Rule(name, compiled, read, anchor, authority, needed)

    return make
