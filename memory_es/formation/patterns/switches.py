"""Rule family: switches — a state changed by saying what happened, for any subject.

A switch is a first-person statement that one value of a single-valued state replaced
another: "I moved to the search team", "I switched to a Pixel 8", "I transferred to
Boston University", "I traded my Kindle for a Kobo Libra", "Closed my Harbor account,
everything's at Alder Bank now". Three general readings, none a phrase list for one
sentence:

* **a class key**: a state whose class is its own word (the team: "I'm on the payments
  team") keys on that class, so the later one supersedes the earlier by the resolver's
  ordinary rule ("User is on the search team." over "User is on the payments team.");
* **a class reach** (the old value not named): "I switched to a Pixel 8" forms "User
  uses a Pixel 8." marked as a switch within its object's class (``object_classes``:
  `phone`); formation finds the newest live belief of the same type about an object of
  that class ("User uses an iPhone 12.") and adds its key, so the switch supersedes it
  (memory_es/formation/corrections.py);
* **a replacement** (the old value named, the new one said beside it): the newest live
  belief that names the old value, with that value's whole name replaced by the new one
  ("User banks with Harbor Credit Union." -> "User banks with Alder Bank."), the way a
  correction is resolved.
"""

from __future__ import annotations

import re
from dataclasses import replace

from memory_es.domain.values import Authority, BeliefType
from memory_es.formation.patterns.lexicon import ADV, ATTR, alternation, word_set
from memory_es.formation.patterns.phrases import head, tidy, usable
from memory_es.formation.patterns.rule import Found, Rule, found, rule

# -- object classes ----------------------------------------------------------------------

# A class is a kind of thing a user has one of at a time. Its words: the class noun and
# the product or institution words that name one of its kind.
_CLASSES: dict[str, frozenset[str]] = {
    "phone": word_set("phone smartphone iphone pixel galaxy android oneplus motorola nokia"),
    "laptop": word_set("laptop macbook thinkpad chromebook notebook xps"),
    "e-reader": word_set("e-reader ereader kindle kobo nook"),
    "tablet": word_set("tablet ipad"),
    "watch": word_set("smartwatch watch fitbit"),
    "editor": word_set("editor vim neovim emacs vscode helix sublime intellij pycharm zed"),
    "browser": word_set("browser chrome firefox safari brave"),
    "bank": word_set("bank"),
    "school": word_set("school elementary academy university college kindergarten"),
    "team": word_set("team"),
    "gym": word_set("gym"),
    "car": word_set("car tesla subaru prius civic corolla"),
}
# The classes a user "uses": what "I switched to ..." reads (a bank, a school or a team
# has its own reading).
_TOOLS = ("phone", "laptop", "e-reader", "tablet", "watch", "editor", "browser", "car")
_CLASS_OF = {word: name for name, words in _CLASSES.items() for word in words}
_MULTIWORD = {"credit union": "bank", "vs code": "editor", "high school": "school"}
_WORD = re.compile(r"[\w-]+")


def _class_lookahead(*names: str) -> str:
    """A lookahead that a clause names a word of one of these classes (every class
    without names), so a rule that reads only such clauses leaves the rest unmatched."""
    words = [w for n, ws in _CLASSES.items() if not names or n in names for w in ws]
    words += [p for p, n in _MULTIWORD.items() if not names or n in names]
    alt = alternation(words)
    return rf"(?=.*\b(?:{alt})\b)"


def object_classes(text: str) -> frozenset[str]:
    """The classes a statement's words name ("User uses an iPhone 12." -> phone)."""
    lowered = text.casefold()
    found_ = {_CLASS_OF[w] for w in _WORD.findall(lowered) if w in _CLASS_OF}
    found_.update(name for phrase, name in _MULTIWORD.items() if phrase in lowered)
    return frozenset(found_)


def new_of_class(obj: str) -> str | None:
    """The tool class of "a new MacBook Pro" (laptop): what a new one replaces; None
    for what is not new or names no one class of tool."""
    if not re.match(r"(?i)^(?:a|an|my|the)\s+(?:brand[ -]new|new)\s", obj):
        return None
    classes = object_classes(obj)
    if len(classes) != 1 or not classes <= set(_TOOLS):
        return None
    (kind,) = classes
    return kind


# A time said after the object of a switch is no part of it ("a Pixel 8 a few weeks ago").
SWITCH_CUT = re.compile(
    r"(?i)\s+(?:(?:a|one|two|three|four|five|a few|a couple of|\d+)\s+"
    r"(?:days?|weeks?|months?|years?)\s+ago|last\s+\w+|this\s+\w+|recently|lately|"
    r"yesterday|today|in\s+(?:january|february|march|april|may|june|july|august|"
    r"september|october|november|december|spring|summer|fall|autumn|winter|\d{4})|"
    r"after\b|because\b|since\b|for\s+(?:work|now)|and\b|but\b|so\b|now\b).*$"
)


# -- the team: a class that is its own word ------------------------------------------------

_TEAM = r"(?:the|a|an) (?P<t>(?:[\w&-]+ ){1,3}?)team"
_TEAM_REST = re.compile(
    r"(?i)^(?:|at work|at [A-Z][\w&-]*(?: [A-Z][\w&-]*)*|now|these days|"
    r"since .*|for .*|here|there)$"
)


def _team(name: str, team: str, rest: str) -> list[Found]:
    team, rest = team.strip(), rest.strip(" ,.")
    if not usable(team) or not _TEAM_REST.match(rest) or team.lower() in ("same", "other", "new"):
        return []
    return [found(name, f"User is on the {team} team", ATTR, ("team", f"{team} team"), key="team")]


@rule("attr.team", rf"^I {ADV}(?:am|work|have been|am working) on {_TEAM}\b(?P<rest>.*)$")
def _on_team(m: re.Match[str]) -> list[Found]:
    return _team("attr.team", m["t"], m["rest"] or "")


@rule(
    "switch.team",
    rf"^I {ADV}(?:have )?(?:moved|switched|transferred|changed|joined|got moved|was moved)"
    rf"(?: over)?(?: to| into)? {_TEAM}\b(?P<rest>.*)$",
    needs=("team",),
)
def _to_team(m: re.Match[str]) -> list[Found]:
    return _team("switch.team", m["t"], SWITCH_CUT.sub("", " " + (m["rest"] or "")))


# -- the school: a class with its own key --------------------------------------------------


@rule(
    "switch.school",
    rf"^I {ADV}(?:have )?(?:transferred|switched|moved|changed schools)(?: over)? to "
    + _class_lookahead("school")
    + r"(?P<o>(?:the )?(?-i:[A-Z])[\w'.-]*(?: (?:of )?(?-i:[A-Z])[\w'.-]*){0,4})(?P<rest>.*)$",
)
def _to_school(m: re.Match[str]) -> list[Found]:
    school = m["o"].strip()
    if "school" not in object_classes(school):
        return []
    return [found("switch.school", f"User studies at {school}", ATTR, ("school", "education"))]


# -- a class reach: "I switched to a Pixel 8" -------------------------------------------------


@rule(
    "switch.to",
    rf"^I {ADV}(?:have )?(?:switched|changed|upgraded|downgraded|moved|went)(?: over)? to "
    + _class_lookahead(*_TOOLS)
    + r"(?P<o>(?:a|an|the)\s+.+|(?-i:[A-Z]).+)$",
)
def _switched_to(m: re.Match[str]) -> list[Found]:
    o = tidy(SWITCH_CUT.sub("", m["o"]))
    classes = object_classes(o)
    if not usable(o) or len(classes) != 1 or not classes <= set(_TOOLS):
        return []  # no class to switch within: the possession rules read it
    subject = head(o)
    if not subject:
        return []
    (kind,) = classes
    shown = o
    if re.match(r"(?i)^(?:the|my|our)\s", o):  # "the iPhone 15" -> "an iPhone 15"
        rest = o.split(None, 1)[1]
        shown = ("an " if re.match(r"(?i)^[aeiou]", rest) else "a ") + rest
    reading = found("switch.to", f"User uses {shown}", ATTR, (subject, kind))
    return [replace(reading, switches=kind)]


# -- partner, a child's school, the bank: single-valued states with their own key -------------


@rule(
    "switch.partner",
    rf"^I {ADV}(?:am|have been|started|began)(?: now)? (?:dating|going out with|"
    r"in a relationship with|together with) (?P<who>(?-i:[A-Z][\w'-]+))(?P<rest>.*)$",
)
def _dating(m: re.Match[str]) -> list[Found]:
    rest = m["rest"].strip(" ,.")
    if m["who"] in ("Dr", "Mr", "Mrs", "Ms") or not re.match(
        r"(?i)^(?:|now|these days|since .*|for .*|again)$", rest
    ):
        return []
    return [
        found(
            "switch.partner",
            f"User is dating {m['who']}",
            BeliefType.RELATIONSHIP,
            ("partner", m["who"]),
            key="partner",
        )
    ]


_CHILD = r"(?P<rel>son|daughter|kid|child|boy|girl|stepson|stepdaughter)"


@rule(
    "switch.child_school",
    rf"^My {_CHILD} {ADV}(?:goes|is going|has started|started|switched|has switched|moved|"
    rf"transferred|changed schools)(?: over)? (?:to|at) "
    r"(?P<o>(?:the )?(?-i:[A-Z])[\w'.-]*(?: (?:of )?(?-i:[A-Z])[\w'.-]*){0,4})(?P<rest>.*)$",
    authority=Authority.INFERRED,
)
def _child_school(m: re.Match[str]) -> list[Found]:
    school = m["o"].strip()
    rest = SWITCH_CUT.sub("", " " + m["rest"]).strip(" ,.")
    if "school" not in object_classes(school) or rest:
        return []
    rel = m["rel"].lower()
    return [
        found(
            "switch.child_school",
            f"User's {rel} goes to {school}",
            BeliefType.FACT,
            (rel, "school"),
            key=f"school/{rel}",
        )
    ]


@rule(
    "switch.bank",
    rf"^I {ADV}(?:bank|have banked|have been banking|am banking) with "
    r"(?P<o>(?:the )?(?-i:[A-Z])[\w'.&-]*(?: (?-i:[A-Z])[\w'.&-]*){0,4})(?P<rest>.*)$",
)
def _bank(m: re.Match[str]) -> list[Found]:
    bank = m["o"].strip()
    rest = m["rest"].strip(" ,.")
    if not re.match(r"(?i)^(?:|now|these days|since .*|for .*|have for years)$", rest):
        return []
    return [
        found("switch.bank", f"User banks with {bank}", BeliefType.FACT, (bank, "bank"), key="bank")
    ]


@rule(
    "switch.diet",
    rf"^I {ADV}(?:have )?(?:started eating|started to eat|eat|am eating|went back to eating)"
    r" (?P<food>meat|chicken|fish|pork|beef|dairy|animal products) (?:again|now)\b.*$",
)
def _eats_again(m: re.Match[str]) -> list[Found]:
    food = m["food"].lower()
    return [found("switch.diet", f"User eats {food} again", ATTR, ("diet", food), key="diet")]


RULES: tuple[Rule, ...] = (
    _on_team,
    _eats_again,
    _to_team,
    _to_school,
    _switched_to,
    _dating,
    _child_school,
    _bank,
)


# -- a replacement: the old value named, the new one beside it ---------------------------------

_CAP = r"(?-i:[A-Z][\w'-]*|[a-z]+[A-Z][\w'-]*)"  # "Kindle", "iPhone"
_PROPER = rf"{_CAP}(?:\s+(?:{_CAP}|\d[\w-]*)){{0,3}}"
_REPLACEMENTS = (
    # "I traded (in) my Kindle for a Kobo Libra", "swapped my iPhone for a Pixel"
    re.compile(
        rf"(?i)\bI {ADV}(?:have )?(?:traded|swapped|exchanged)(?: in)? (?:my|our|the) "
        rf"(?P<was>{_PROPER})(?: \w+)? for (?:a |an |the )?(?P<now>{_PROPER})"
    ),
    # "I replaced my Kindle with a Kobo"
    re.compile(
        rf"(?i)\bI {ADV}(?:have )?replaced (?:my|our|the) (?P<was>{_PROPER})(?: \w+)? with "
        rf"(?:a |an |the )?(?P<now>{_PROPER})"
    ),
    # "I switched from Harbor to Alder", "moved my savings from Harbor to Alder"
    re.compile(
        rf"(?i)\b(?:switched|moved|changed|went|transferred)(?: over)?(?: \w+){{0,2}} from "
        rf"(?:my |our |the )?(?P<was>{_PROPER}) to (?:a |an |the )?(?P<now>{_PROPER})"
    ),
    # "Closed my Harbor account last week, everything's at Alder Bank now"
    re.compile(
        rf"(?i)\b(?:closed|left|quit|cancell?ed|ditched|dropped|sold)\s+(?:my|our|the)\s+"
        rf"(?P<was>{_PROPER})\b.*?[,;]\s*(?:and\s+)?(?:now\s+)?"
        rf"(?:everything(?:'s| is)|it(?:'s| is) all|all my \w+ (?:is|are)|I am|I'm|we are|"
        rf"we're|I bank|I am banking|I have moved everything)(?: now)? (?:at|with|to) "
        rf"(?:the )?(?P<now>{_PROPER})"
    ),
)


def read_replacement(sentence: str) -> tuple[str, str] | None:
    """(old value, new value) when a sentence says one named thing replaced another."""
    for pattern in _REPLACEMENTS:
        m = pattern.search(sentence)
        if m is not None:
            was, now = m["was"].strip(), m["now"].strip().rstrip(".")
            if was.casefold() != now.casefold():
                return was, now
    return None
