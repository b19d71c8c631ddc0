"""Deterministic synthetic content: words, statements, turns and queries.

A seeded generator, so two runs of one commit build the same stores. Word frequencies
are Zipf-like, as in natural text: a few words are common (long posting lists), most
are rare — which is what makes a lexical recall query cheap or expensive.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import orjson

START = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
_SYLLABLES = tuple(
    [
        "ka",
        "ri",
        "to",
        "mu",
        "se",
        "la",
        "no",
        "vi",
        "pe",
        "da",
        "lo",
        "ne",
        "sa",
        "ti",
        "ru",
        "mo",
        "ve",
        "ga",
        "be",
        "fi",
        "zu",
        "ho",
        "ran",
        "tel",
        "mor",
        "dis",
        "ven",
        "cal",
        "pul",
        "sor",
        "gen",
        "bri",
    ]
)


def vocabulary(size: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    words: list[str] = []
    seen: set[str] = set()
    while len(words) < size:
        word = "".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 4)))
        if word not in seen:
            seen.add(word)
            words.append(word)
    return words


class Text:
    """Statements and queries over one vocabulary with Zipf-like word frequencies."""

    def __init__(self, *, vocabulary_size: int = 5000, seed: int = 11) -> None:
        self.words = vocabulary(vocabulary_size)
        self.rng = random.Random(seed)
        self.weights = [1.0 / (rank + 1) ** 1.05 for rank in range(len(self.words))]

    def sample(self, k: int) -> list[str]:
        return self.rng.choices(self.words, weights=self.weights, k=k)

    def statement(self) -> tuple[str, str]:
        """(statement, subject) for one synthetic belief."""
        words = self.sample(self.rng.randint(4, 9))
        subject = f"topic {words[0]} {words[1]}"
        return "User notes " + " ".join(words) + ".", subject

    def query(self) -> str:
        return "what about " + " ".join(self.sample(self.rng.randint(2, 4))) + "?"


def fact_turn(rng: random.Random, words: list[str]) -> str:
    """A user turn the first-person extractor forms from (one or two sentences)."""
    w = rng.choice(words).capitalize()
    pick = rng.randrange(5)
    if pick == 0:
        return f"I live in {w}."
    if pick == 1:
        return f"I work at {w} Labs as an engineer."
    if pick == 2:
        return f"I prefer {rng.choice(words)} tea. My dog is {w}."
    if pick == 3:
        return f"My manager is {w}."
    return f"Thanks, that helps with the {rng.choice(words)} report."


def ingest_lines(
    *,
    sessions: int,
    turns_per_session: int,
    principals: int,
    seed: int = 3,
    start: datetime = START,
    chit_chat: bool = False,
    principal_prefix: str = "p",
) -> list[bytes]:
    """JSON Lines for ``memory-es ingest``: sessions one after another, a minute a turn."""
    rng = random.Random(seed)
    words = vocabulary(800, seed=seed)
    at = start
    lines: list[bytes] = []
    for s in range(sessions):
        principal = f"{principal_prefix}{s % principals}"
        for t in range(turns_per_session):
            at += timedelta(minutes=1)
            role = "assistant" if t % 2 == 1 else "user"
            if chit_chat or role == "assistant":
                text = f"Noted, let us look at the {rng.choice(words)} item next."
            else:
                text = fact_turn(rng, words)
            lines.append(
                orjson.dumps(
                    {
                        "principal": principal,
                        "session": f"{principal_prefix}-s{s}",
                        "at": at.isoformat().replace("+00:00", "Z"),
                        "role": role,
                        "text": text,
                    }
                )
            )
        at += timedelta(hours=1)
    return lines
