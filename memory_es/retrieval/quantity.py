"""Quantity questions and statements that name a quantity.

A question asking *how many*, *how much*, *how long* ("How long is my commute?", "How
many pages have I read?", "What percentage ...?") is answered by a reading that names a
number ("... which takes 45 minutes each way", "User is on page 220"), not by its
sibling from the same turn that only says the topic again. Selection prefers such a
reading among one turn's readings (ranking.sibling_preference); no score changes, so no
line is added. Both tests read the shared tokenizer's lexemes; the words are general
English, never a dataset's.
"""

from __future__ import annotations

from collections.abc import Sequence

# "how" before these asks for an amount: "how many", "how long", "how old".
_HOW_AMOUNT = frozenset({"many", "much", "long", "old", "far", "often", "big", "fast", "tall"})
# "what"/"which" before these asks for one: "what percentage", "what price".
_WHAT_AMOUNT = frozenset(
    {"percentage", "percent", "number", "amount", "price", "cost", "time", "age", "total"}
)
NUMBER_WORDS: frozenset[str] = frozenset(
    {
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "eleven",
        "twelve",
        "fifteen",
        "twenty",
        "thirty",
        "forty",
        "fifty",
        "hundred",
        "thousand",
        "million",
        "dozen",
        "half",
        "twice",
        "once",
    }
)


def quantity_question(words: Sequence[str]) -> bool:
    """Whether a question's lexemes ask for an amount: "how" before an amount word
    ("how many", "how long"), or "what"/"which" before one ("what percentage")."""
    for i, word in enumerate(words[:-1]):
        after = words[i + 1]
        if word == "how" and after in _HOW_AMOUNT:
            return True
        if word in ("what", "which") and after in _WHAT_AMOUNT:
            return True
    return False


# The words that ask for an amount name the asking, not its topic: "how many weddings",
# "how much total money", "the total number of siblings". A line whose turn happens to
# say "many" or "in total" is no nearer the answer, and such a frame word is rarer in a
# haystack than the topic ("wedding"), so BM25 would rank those lines over the topic's.
_AMOUNT_FRAME = frozenset({"total", "number", "amount"})


def amount_frame(words: Sequence[str]) -> frozenset[str]:
    """The lexemes of a question that ask for an amount rather than name its topic: the
    amount word after "how" when it names no measure of its own ("how many", "how much";
    "long" and "old" stay: they say what is measured), and "total", "number", "amount"
    in a quantity question or before "of" ("the total number of siblings"). Empty for a
    question asking no amount ("Where do I keep the total receipts?")."""
    asks = quantity_question(words)
    frame: set[str] = set()
    for i, word in enumerate(words):
        after = words[i + 1] if i + 1 < len(words) else ""
        if word == "how" and after in ("many", "much"):
            frame.add(after)
        elif word in _AMOUNT_FRAME and (asks or after == "of" or after in _AMOUNT_FRAME):
            frame.add(word)
    return frozenset(frame)


def names_quantity(words: frozenset[str]) -> bool:
    """Whether a statement's lexemes name a number: a word with a digit, or a number
    word ("220", "9:30", "twenty", "half")."""
    if not words.isdisjoint(NUMBER_WORDS):
        return True
    return any(any(c.isdigit() for c in w) for w in words)
