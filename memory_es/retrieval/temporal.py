"""Temporal questions and dated statements: "When did I ...?" favours what says when.

A question asking *when* ("When did I move?", "What year did she start?", "How long ago
...?", "How many years ...?") is answered by the statement that carries a time: "User
moved to Lyon last month" rather than "User likes Lyon". A question naming a period ("in
July 2023", "on May 8, 2022") is answered by what was said in it. The ranking gives
either its ``dated`` component (docs/retrieval.md); a question that does neither gives
it to no statement.

A named period is a month and a year, with or without a day, in either order ("May 8,
2022", "8 May 2022", "July 2023"), or a season and a year ("summer 2023"); it runs from
the day (or the month's or season's first day) to a week past its end: what is told of
a day is often told a few days later ("last Friday"). A month or season without a year
names no period (which year is a guess).

Both tests read the shared tokenizer's lexemes, so they agree with what is indexed; the
time words are general English (relative days, calendar units, weekdays, months,
seasons) and a four-digit year, never a dataset's words. "may" and "march" are left
out: as verbs they would mark every modal sentence dated.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

WEEKDAYS: tuple[str, ...] = (
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
)
MONTH_NAMES: tuple[str, ...] = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
_UNIT_WORDS = frozenset(
    {"date", "day", "days", "year", "years", "month", "months", "week", "weeks", "hours"}
)
TIME_WORDS: frozenset[str] = frozenset(
    {
        "yesterday",
        "today",
        "tonight",
        "tomorrow",
        "ago",
        "recently",
        "lately",
        "night",
        "weekend",
        "weekends",
        "week",
        "weeks",
        "month",
        "months",
        "year",
        "years",
        "spring",
        "summer",
        "autumn",
        "winter",
        *WEEKDAYS,
        # "may" and "march" are verbs too: as time words they would date every modal sentence.
        *(m for m in MONTH_NAMES if m not in ("may", "march")),
    }
)


def temporal_question(words: Sequence[str]) -> bool:
    """Whether a question's lexemes ask when: "when", "how long", "what/which" before a
    calendar unit ("what year", "which month", "what date"), or "how many" before one
    ("how many years")."""
    for i, word in enumerate(words):
        if word == "when":
            return True
        after = words[i + 1] if i + 1 < len(words) else ""
        if word == "how" and after == "long":
            return True
        if word in ("what", "which") and after in _UNIT_WORDS:
            return True
        third = words[i + 2] if i + 2 < len(words) else ""
        if word == "how" and after == "many" and third in _UNIT_WORDS:  # "how many years"
            return True
    return False


_RELATIVE = frozenset({"this", "last", "past", "next"})
_SPAN_UNITS = frozenset({"day", "days", "week", "weeks", "month", "months", "year", "years"})
_SPAN_COUNTS = frozenset(
    {"few", "couple", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"}
)


def relative_period_frame(words: Sequence[str]) -> frozenset[str]:
    """The lexemes of a relative period a question names ("in the past month", "in the
    last four months", "this year", "over the past few weeks"): they say when to look,
    not what about. Statements carry their time anchored ("the week before 24 May 2023",
    "in April 2023"), so "week" or "year" in a query meets every line anchored so, and
    "User is 32 years old" besides. A unit not after "this", "last", "past" or "next"
    stays ("How many days did I spend ...?" asks for days)."""
    frame: set[str] = set()
    for i, word in enumerate(words):
        if word not in _RELATIVE:
            continue
        span = [word]
        for after in words[i + 1 : i + 3]:
            if after in _SPAN_COUNTS or after.isdigit():
                span.append(after)
                continue
            if after in _SPAN_UNITS:
                span.append(after)
                frame.update(span)
            break
    return frozenset(frame)


def dated(words: frozenset[str]) -> bool:
    """Whether a statement's lexemes carry a time: a time word or a year (1900-2099)."""
    if not words.isdisjoint(TIME_WORDS):
        return True
    return any(len(w) == 4 and w.isdigit() and w[:2] in ("19", "20") for w in words)


MONTHS: dict[str, int] = {name: number for number, name in enumerate(MONTH_NAMES, start=1)}
# A season with a year: its first month and length (meteorological, northern). Winter
# spans two years, so "winter 2023" is no period.
SEASONS: dict[str, tuple[int, int]] = {
    "spring": (3, 3),
    "summer": (6, 3),
    "autumn": (9, 3),
    "fall": (9, 3),
}
_TOLD_LATER = timedelta(days=7)


def _year(word: str) -> int | None:
    if len(word) == 4 and word.isdigit() and word[:2] in ("19", "20"):
        return int(word)
    return None


def _day(word: str) -> int | None:
    digits = word[:-2] if word[-2:] in ("st", "nd", "rd", "th") else word
    if digits.isdigit() and len(digits) <= 2 and 1 <= int(digits) <= 31:
        return int(digits)
    return None


def named_period(words: Sequence[str]) -> tuple[datetime, datetime] | None:
    """The [start, end) a question's lexemes name (the first month or season with a
    year), or None."""
    for i, word in enumerate(words):
        season = SEASONS.get(word)
        if season is not None and i + 1 < len(words) and (y := _year(words[i + 1])):
            first, months = season
            start = datetime(y, first, 1, tzinfo=UTC)
            return start, _month_after(y, first + months - 1) + _TOLD_LATER
        month = MONTHS.get(word)
        if month is None:
            continue
        near = words[i + 1 : i + 3]
        year = next((y for w in near if (y := _year(w)) is not None), None)
        if year is None:
            continue
        before = _day(words[i - 1]) if i > 0 else None
        after = _day(words[i + 1]) if i + 1 < len(words) else None
        day = after if after is not None else before
        if day is not None:
            try:
                start = datetime(year, month, day, tzinfo=UTC)
            except ValueError:  # "February 30": the month, then
                day = None
            else:
                return start, start + timedelta(days=1) + _TOLD_LATER
        start = datetime(year, month, 1, tzinfo=UTC)
        return start, _month_after(year, month) + _TOLD_LATER
    return None


def _month_after(year: int, month: int) -> datetime:
    """The first day of the month after ``month`` of ``year``."""
    return datetime(year + month // 12, month % 12 + 1, 1, tzinfo=UTC)
