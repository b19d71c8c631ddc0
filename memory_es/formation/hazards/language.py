"""Is it English? A sentence's share of English function words.

The extractor reads English; the screen's probes (reversed text, rot13) keep a reading
only when it is more English than the text as typed. Function words (articles,
pronouns, auxiliaries, prepositions, conjunctions) are what every English sentence has
and almost no other language spells the same way.
"""

from __future__ import annotations

import re


def word_set(text: str) -> frozenset[str]:
    """The whitespace-separated words of a lexicon written as one text block."""
    return frozenset(text.split())


ENGLISH_FUNCTION_WORDS = word_set(
    """
    a an the i me my mine we us our you your he him his she her it its they them their
    this that these those is are was were be been being am have has had do does did
    will would can could shall should may might must of to in on at by for with from
    about into over under after before and or but not no so if then than as there here
    what who which when where why how all any some every each just also very too
    """
)
_WORD = re.compile(r"[^\W\d_]+")


def english_words(text: str) -> int:
    """How many of ``text``'s words are English function words."""
    return sum(1 for w in _WORD.findall(text.casefold()) if w in ENGLISH_FUNCTION_WORDS)


def reads_as_english(text: str) -> bool:
    """Whether a sentence of three or more words holds an English function word."""
    words = _WORD.findall(text.casefold())
    return len(words) < 3 or any(w in ENGLISH_FUNCTION_WORDS for w in words)
