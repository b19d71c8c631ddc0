"""Relative times, anchored on the turn that said them.

"I went to a support group yesterday", read a month later, says nothing of when: the
belief keeps the words the user said but "yesterday" only had a meaning on the day of
the turn. Formation knows that day (the source turn's time, never the clock), so a
relative time in a statement is rewritten to the calendar day or period it named:
"yesterday" -> "on 7 May 2023", "last Friday" -> "the Friday before 15 July 2023",
"last week" -> "the week before 9 June 2023", "last month" -> "in June 2023". A period
that only counts back from the turn keeps its count and gains its anchor ("two weekends
ago" -> "two weekends before 17 July 2023"). What names no period ("recently", "the
other day", "on Friday") is left as said: guessing a date is worse than none.

Pure: the turn's time comes in as an argument.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING

from memory_es.formation.patterns.lexicon import word_set
from memory_es.formation.patterns.phrases import EPISODE_KEY_PREFIX, episode_key
from memory_es.retrieval.temporal import MONTH_NAMES

if TYPE_CHECKING:
    from memory_es.formation.patterns.rule import Found

_MONTHS = tuple(name.capitalize() for name in MONTH_NAMES)
_COUNTS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
}
_COUNT = r"(?P<n>\d{1,2}|a|an|one|two|three|four|five|six|seven|eight|nine|ten)"
_MONTH = "(?P<month>" + "|".join(_MONTHS) + ")"
_MONTH_NUMBER = {name.lower(): number for number, name in enumerate(_MONTHS, start=1)}
# A season's last month (meteorological, northern); winter spans two years: not anchored.
_SEASON_LAST_MONTH = {"spring": 5, "summer": 8, "fall": 11, "autumn": 11}
_SEASON = r"(?P<season>spring|summer|fall|autumn)"
_WEEKDAY = r"(?P<day>monday|tuesday|wednesday|thursday|friday|saturday|sunday)"


def day_text(day: date) -> str:
    """A calendar day as people write it: "7 May 2023"."""
    return f"{day.day} {_MONTHS[day.month - 1]} {day.year}"


def _month_text(year: int, month: int) -> str:
    while month < 1:
        year, month = year - 1, month + 12
    while month > 12:
        year, month = year + 1, month - 12
    return f"{_MONTHS[month - 1]} {year}"


def _count(word: str) -> int:
    return int(word) if word.isdigit() else _COUNTS[word.lower()]


def _rules(today: date) -> list[tuple[re.Pattern[str], Callable[[re.Match[str]], str]]]:
    on = day_text(today)

    def shifted(days: int) -> str:
        return f"on {day_text(today + timedelta(days=days))}"

    def ago(m: re.Match[str]) -> str:
        n, unit = _count(m["n"]), m["unit"].lower()
        if unit.startswith("day"):
            return shifted(-n)
        if unit.startswith("year"):
            return f"{m[0]} ({today.year - n})"
        return f"{m['n']} {m['unit']} before {on}"

    def weekday(m: re.Match[str], direction: str) -> str:
        return f"the {m['day'].capitalize()} {direction} {on}"

    def month_named(m: re.Match[str], back: bool) -> str:
        # "August last year" / "last August": the month's most recent past occurrence
        month = _MONTH_NUMBER[m["month"].lower()]
        year = today.year - 1 if back or month >= today.month else today.year
        return f"{'' if back else 'in '}{_MONTHS[month - 1]} {year}"

    def season(m: re.Match[str], direction: str) -> str:
        name = m["season"].lower()
        ends = _SEASON_LAST_MONTH[name]
        if direction == "last":
            year = today.year if today.month > ends else today.year - 1
        elif direction == "next":
            year = today.year if today.month < ends - 2 else today.year + 1
        else:
            year = today.year
        return f"in {name} {year}"

    return [
        (re.compile(rf"\b{_MONTH} last year\b", re.I), lambda m: month_named(m, True)),
        (re.compile(rf"\blast {_MONTH}\b", re.I), lambda m: month_named(m, False)),
        (
            re.compile(rf"\b(?P<dir>last|this|next) {_SEASON}\b", re.I),
            lambda m: season(m, m["dir"].lower()),
        ),
        (re.compile(r"\byesterday\b", re.I), lambda m: shifted(-1)),
        (re.compile(r"\b(?:last night)\b", re.I), lambda m: f"the night of {shifted(-1)[3:]}"),
        (re.compile(r"\btomorrow\b", re.I), lambda m: shifted(1)),
        (
            re.compile(r"\b(?:today|tonight|this morning|this afternoon|this evening)\b", re.I),
            lambda m: f"on {on}",
        ),
        (
            re.compile(rf"\b{_COUNT} (?P<unit>days?|weeks?|weekends?|months?|years?) ago\b", re.I),
            ago,
        ),
        (re.compile(rf"\blast {_WEEKDAY}\b", re.I), lambda m: weekday(m, "before")),
        (re.compile(rf"\bnext {_WEEKDAY}\b", re.I), lambda m: weekday(m, "after")),
        (
            re.compile(r"\blast (?P<unit>week|weekend)\b", re.I),
            lambda m: f"the {m['unit'].lower()} before {on}",
        ),
        (
            re.compile(r"\bnext (?P<unit>week|weekend)\b", re.I),
            lambda m: f"the {m['unit'].lower()} after {on}",
        ),
        (
            re.compile(r"\bthis (?P<unit>week|weekend)\b", re.I),
            lambda m: f"the {m['unit'].lower()} of {on}",
        ),
        (
            re.compile(r"\blast month\b", re.I),
            lambda m: f"in {_month_text(today.year, today.month - 1)}",
        ),
        (
            re.compile(r"\bnext month\b", re.I),
            lambda m: f"in {_month_text(today.year, today.month + 1)}",
        ),
        (
            re.compile(r"\bthis month\b", re.I),
            lambda m: f"in {_month_text(today.year, today.month)}",
        ),
        (re.compile(r"\blast year\b", re.I), lambda m: f"in {today.year - 1}"),
        (re.compile(r"\bnext year\b", re.I), lambda m: f"in {today.year + 1}"),
        (re.compile(r"\bthis year\b", re.I), lambda m: f"in {today.year}"),
    ]


# A relative time word at all: the cheap test before the rules run.
_ANY = re.compile(
    r"(?i)\b(?:yesterday|tomorrow|today|tonight|ago|last|next|this (?:morning|afternoon|"
    r"evening|week|weekend|month|year|spring|summer|fall|autumn))\b"
)
# "on" or "in" said before a phrase the rewrite opens with its own preposition.
_DOUBLED = re.compile(r"(?i)\b(on|in) (on|in) ")


def anchor_times(statement: str, at: datetime) -> str:
    """``statement`` with each relative time rewritten to the day or period it named
    on ``at``'s calendar day (the source turn's time)."""
    if not _ANY.search(statement):
        return statement
    today = at.date()
    text = statement
    for pattern, make in _rules(today):
        text = pattern.sub(make, text)
    return _DOUBLED.sub(r"\2 ", text)


# A reading more guess than statement renders at most this many words, cut where a
# clause ends ("User went to a support group on 7 May 2023, it was so powerful, ...");
# the words cut are still indexed with it, as its turn's context (extractor.turn_context).
INFERRED_MAX_WORDS = 18
# Degree words that grade what a reading says without adding to it ("it was really
# awesome", "User is super excited", "totally worth it"): a reading renders without
# them. "so" only after a verb of being or seeming and before a word it grades ("was so
# fun", never "so that", "so far", "so much"); nothing after "not" ("not really").
_DEGREE = re.compile(
    r"(?i)\b(?P<prev>[\w']+) (?P<word>really|super|totally|definitely|absolutely|truly|"
    r"actually|literally|so) (?=(?P<next>[a-z][\w']*))"
)
_BEING = word_set(
    "is was are were be been am feel feels felt seem seems seemed look looks looked "
    "sound sounds sounded it's that's"
)
_NOT_GRADED = word_set("that far much many long on as to")


def _ungraded(m: re.Match[str]) -> str:
    prev, word, after = m["prev"].lower(), m["word"].lower(), m["next"].lower()
    if prev == "not" or (word == "so" and (prev not in _BEING or after in _NOT_GRADED)):
        return m[0]
    return f"{m['prev']} "


def plain(statement: str) -> str:
    """``statement`` without the degree words that only grade it (``_DEGREE``)."""
    previous = None
    while previous != statement:  # "really super excited": one word a pass
        previous, statement = statement, _DEGREE.sub(_ungraded, statement)
    return statement


_CLAUSE_END = re.compile(r"[,;:]\s|\s[-\u2013\u2014]\s")


def concise(statement: str) -> str:
    """``statement`` cut at its last clause end within ``INFERRED_MAX_WORDS`` words; as
    it is when it is short enough or has no clause end there."""
    words = statement.split()
    if len(words) <= INFERRED_MAX_WORDS:
        return statement
    limit = len(" ".join(words[:INFERRED_MAX_WORDS]))
    ends = [m.start() for m in _CLAUSE_END.finditer(statement, 0, limit + 1)]
    if not ends or len(statement[: ends[-1]].split()) < 6:
        return statement
    return statement[: ends[-1]].rstrip(" ,;:") + "."


def anchored(found: Found, at: str) -> Found:
    """A reading with its relative times anchored on its turn's time (ISO 8601). An
    episode's resolver key is its statement, so it follows the anchored statement: "went
    to the gym yesterday", said on two days, is two episodes, not one said twice."""
    statement = anchor_times(found.statement, datetime.fromisoformat(at))
    if statement == found.statement:
        return found
    key = found.key
    if key is not None and key.startswith(EPISODE_KEY_PREFIX):
        key = episode_key(statement)
    return replace(found, statement=statement, key=key)
