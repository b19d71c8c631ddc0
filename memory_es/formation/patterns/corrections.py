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
_NAMEWORD = re.compile(r"^(?:[A-Z\u00c0-\u00de]|[a-z]+[A-Z])[\w'\u00e0-\u00ff-]*$")


def shape(words: Sequence[str]) -> str | None:
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
    kind = shape(was)
    if kind is None or shape(now) != kind or [w.lower() for w in now] == [w.lower() for w in was]:
        return None
    return " ".join(was), " ".join(now)


# A correction said without the old value: "Actually they pay me on the 10th", "Sorry,
# I meant Thursday", "the piano lesson is on Thursday now, my teacher moved it". One
# value of a when-shape (a day, a date, a weekday, a month, a time) said after a word
# that puts something right, or with "now" beside a word that says it was changed.
_PUT_RIGHT = re.compile(
    r"(?i)^(?:oh,?\s+)?(?:actually|correction|sorry|oops|my mistake|my bad|I mean|I meant|"
    r"wait|scratch that|to correct myself)\b[,:]?\s+"
)
_CHANGED_NOW = re.compile(
    r"(?i)\bnow\b.*\b(?:moved|changed|switched|rescheduled|pushed)\b|"
    r"\b(?:moved|changed|switched|rescheduled|pushed)\b.*\bnow\b"
)
_VALUE = re.compile(
    rf"(?i)(?<![\w])(?:the\s+)?(\d{{1,2}}(?:st|nd|rd|th)|(?:{_WEEKDAYS.replace(' ', '|')})s?|"
    r"\d{1,2}(?::\d\d)?\s?(?:am|pm)|\d{1,2}:\d\d)(?![\w])"
)


def read_restatement(sentence: str) -> str | None:
    """The one when-shaped value a sentence puts right without saying the old one
    ("Actually they pay me on the 10th" -> "10th"); None otherwise. What it corrects —
    the newest belief saying a value of the same kind about the same thing — is found
    when the session consolidates (memory_es/formation/corrections.py)."""
    if " not " in f" {sentence} " or not (
        _PUT_RIGHT.match(sentence) or _CHANGED_NOW.search(sentence)
    ):
        return None
    values = {m.group(1) for m in _VALUE.finditer(sentence)}
    if len(values) != 1:
        return None
    (value,) = values
    return value[:-1] if value.lower().endswith("s") and not value[0].isdigit() else value


def restatement_overlap(sentence: str) -> int:
    """How many content words a restatement must share with what it corrects: one after
    a word that puts something right, two when it only says the thing changed."""
    return 1 if _PUT_RIGHT.match(sentence) else 2


def value_kind(value: str) -> str:
    """ "day" (an ordinal), "weekday" or "time": what a restated value is."""
    if ORDINAL.match(value):
        return "day"
    if value.lower().rstrip("s") in _WEEKDAYS.split():
        return "weekday"
    return "time"


_KIND_PATTERNS = {
    "day": re.compile(r"(?i)(?<![\w])\d{1,2}(?:st|nd|rd|th)(?![\w])"),
    "weekday": re.compile(rf"(?i)(?<![\w])(?:{_WEEKDAYS.replace(' ', '|')})s?(?![\w])"),
    "time": re.compile(r"(?i)(?<![\w])(?:\d{1,2}(?::\d\d)?\s?(?:am|pm)|\d{1,2}:\d\d)(?![\w])"),
}


def restate(statement: str, value: str) -> str | None:
    """``statement`` with its one value of ``value``'s kind replaced by ``value``; None
    when it says no such value, several, or already this one."""
    found = list(_KIND_PATTERNS[value_kind(value)].finditer(statement))
    if len(found) != 1 or found[0].group(0).lower().rstrip("s") == value.lower().rstrip("s"):
        return None
    m = found[0]
    now = value
    if value_kind(value) == "weekday":
        now = value[:1].upper() + value[1:].lower()
        if m.group(0).lower().endswith("s"):
            now += "s"
    return statement[: m.start()] + now + statement[m.end() :]
