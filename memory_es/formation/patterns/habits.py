"""What a recurring activity of the user is: an attribute, or a scheduled event.

"I grow zucchini every year", "I commute to the office three days a week" and "I run
four mornings a week" say how the user lives: attributes (``user_model_attr``), which
travel with the user across projects. A recurrence pinned to a weekday ("I have a piano
lesson every Tuesday", "I get paid on the 5th of each month") is a slot in the calendar:
a fact, moved by "it's on Thursday now" like any dated fact.

A habit whose only object is its frequency, or a place ("to the office"), is about the
activity itself; its subjects name the activity and its schedule ("commute", "commuting
schedule"), so "how often do I commute" and "what's my running schedule" reach it.
"""

from __future__ import annotations

import re

from memory_es.formation.patterns.lexicon import word_set
from memory_es.retrieval.temporal import WEEKDAYS

_WEEKDAY = "|".join(WEEKDAYS)
_COUNT = r"(?:one|two|three|four|five|six|seven|\d+|a few|several|a couple of)"
_SPAN = r"(?:day|morning|evening|night|afternoon|weekend|week|month|year|season)"
# How often, said as a frequency rather than a calendar slot.
FREQUENCY = re.compile(
    rf"(?i)\b(?:(?:once|twice|{_COUNT} times?|{_COUNT} {_SPAN}s?) (?:a|an|per|each|every)"
    rf" {_SPAN}|(?:every|each) (?:other )?(?:single )?{_SPAN}|(?:every|each) "
    r"(?:spring|summer|autumn|fall|winter)|daily|weekly|monthly|yearly|annually|nightly)\b"
)
# A recurrence on a named weekday or a day of the month: the calendar's, not the
# user's way of life.
CALENDAR_SLOT = re.compile(
    rf"(?i)\b(?:(?:on|every|each) (?:{_WEEKDAY})s?|(?:{_WEEKDAY})s|on the (?:\d{{1,2}}"
    r"(?:st|nd|rd|th)|first|last|second|third|fifteenth)\b)"
)
_PREPOSITION = re.compile(r"(?i)^(?:to|at|in|on|with|for|from|around|into|through)\b")
_SHORT_CVC = re.compile(r"^[^aeiou]*[aeiou][bdgmnprt]$")


# Verbs of mind and feeling: "I remember that trip", "I miss my grandmother" state what
# the user thinks or feels now, no activity of theirs (an episode, as before).
_STATIVE = word_set(
    "remember recall miss wonder hope think believe know need want feel mean guess "
    "understand agree appreciate wish regret doubt imagine suppose realize realise "
    "forget expect fear worry care"
)


def a_way_of_life(base: str, obj: str) -> bool:
    """Whether a present habit of the user's is an attribute: an activity (no verb of
    mind or feeling) not pinned to the calendar."""
    return base.lower() not in _STATIVE and not scheduled(obj)


def scheduled(text: str) -> bool:
    """A recurrence pinned to a calendar slot: a scheduled event, not an attribute."""
    return CALENDAR_SLOT.search(text) is not None


def without_frequency(obj: str) -> str:
    return re.sub(r"\s{2,}", " ", FREQUENCY.sub("", obj)).strip(" ,")


def gerund(base: str) -> str:
    """ "run" -> "running", "commute" -> "commuting", "grow" -> "growing"."""
    low = base.lower()
    if low.endswith("ie"):
        return low[:-2] + "ying"
    if low.endswith("e") and not low.endswith(("ee", "ye", "oe")):
        return low[:-1] + "ing"
    if _SHORT_CVC.match(low):
        return low + low[-1] + "ing"
    return low + "ing"


def activity_subjects(base: str, obj: str) -> tuple[str, ...] | None:
    """The subjects of a habit about the activity itself (its object is only a frequency
    or a place), or None when the habit has an object of its own ("grow zucchini")."""
    rest = without_frequency(obj)
    if rest and not _PREPOSITION.match(rest):
        return None
    timed = FREQUENCY.search(obj) is not None
    doing = gerund(base)
    return (f"{doing} schedule", base.lower()) if timed else (base.lower(), doing)
