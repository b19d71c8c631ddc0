"""Rule family: corrections said without their subject ("Actually it's the 12th, not
the 10th"): the reading. memory_es/formation/corrections.py resolves what they correct.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

ORDINAL = re.compile(r"(?i)^(\d+)(?:st|nd|rd|th)$")
_NUMBER_WORDS = (
    "one two three four five six seven eight nine ten eleven twelve fifteen twenty thirty "
    "forty fifty sixty hundred first second third fourth fifth once twice"
)
_MONTHS = "january february march april may june july august september october november december"
_WEEKDAYS = "monday tuesday wednesday thursday friday saturday sunday"
_TIMEWORD = re.compile(
    rf"(?i)^(?:\d{{1,4}}(?:st|nd|rd|th|am|pm|h|:\d\d)?|"
    rf"{'|'.join((_NUMBER_WORDS + ' ' + _MONTHS + ' ' + _WEEKDAYS).split())}|a\.?m\.?|"
    r"p\.?m\.?|noon|midnight)$"
)
_NAMEWORD = re.compile(r"^[A-Z\u00c0-\u00de][\w'\u00e0-\u00ff-]*$")


def _shape(words: Sequence[str]) -> str | None:
    if words and all(_TIMEWORD.match(w) for w in words):
        return "when"
    if words and all(_NAMEWORD.match(w) for w in words):
        return "name"
    return None


_CORRECTION = re.compile(
    r"(?P<before>.*?)(?P<now>(?:\S+\s+){0,2}\S+?),?\s+not\s+(?:the\s+|on\s+|in\s+|at\s+)?"
    r"(?P<was>(?:\S+\s+){0,2}\S+?)[.!]*$"
)


def read_correction(sentence: str) -> tuple[str, str] | None:
    """(was, now) when the sentence ends "X, not Y" with X and Y of one shape."""
    if " not " not in sentence:
        return None  # most sentences: no regex needed
    m = _CORRECTION.match(sentence.strip())
    if m is None:
        return None
    was = [w.strip(",.") for w in m["was"].split() if w.lower() != "the"]
    head = f"{m['before']}{m['now']}".rstrip(", ").split()
    now = [w.strip(",.") for w in head[-len(was) :]] if was else []
    if not was or len(now) != len(was) or any(w.lower() == "the" for w in now):
        return None
    shape = _shape(was)
    if (
        shape is None
        or _shape(now) != shape
        or [w.lower() for w in now] == [w.lower() for w in was]
    ):
        return None
    return " ".join(was), " ".join(now)
