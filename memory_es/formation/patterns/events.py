"""Rule family: states implied by events, and dated events (formation@5).

An event that changes a durable state is read as the state it leaves, by verb class, at
the authority of a first-person state change (USER, as "I moved to Lisbon" already is):

- a household move: "We just moved to Lyon last month" -> "User lives in Lyon." (the
  user moved with the household they speak for; the residence key supersedes the older
  city);
- a diet taken up: "I went pescatarian", "I've gone vegan", "I became vegetarian" ->
  "User is pescatarian." (the diet key supersedes the older diet);
- a pastime taken up: "I've been getting into bouldering lately", "I got into
  pottery", "I'm really into chess", "I took up the cello" -> "User is into bouldering."

A dated event is a fact the user states about their own calendar, also USER:

- "The party is on May 10", "Our wedding is on September 19", "The Lakeshore half
  marathon is in November" -> "The party is on May 10." (subject: the event, and the
  event's date; a later date for the same event supersedes it);
- "I start on June 15", "I fly out on Friday" -> "User starts on June 15." (subject: the
  start date, the flight date).
"""

from __future__ import annotations

import re

from memory_es.domain.values import BeliefType
from memory_es.formation.patterns.lexicon import ADV, ATTR, HOME, NAME, PLACE_CUT
from memory_es.formation.patterns.phrases import head, third, tidy, usable
from memory_es.formation.patterns.relationships import PARTNER_KEY
from memory_es.formation.patterns.rule import Found, Rule, found, rule

FACT = BeliefType.FACT


@rule(
    "event.household_move",
    rf"^We {ADV}(?:have )?(?:just |finally |recently |officially )*(?:moved|relocated)"
    rf"(?: from (?P<from>{NAME}))?(?: (?:over|down|up|back))? to (?P<o>{NAME})(?P<rest>.*)$",
    needs=("moved", "relocated"),
)
def _household_move(m: re.Match[str]) -> list[Found]:
    o = tidy(m["o"], cut=PLACE_CUT)
    return [found("event.household_move", f"User lives in {o}", ATTR, HOME)] if usable(o) else []


# "We live in Denver now", "We're based in Denver": the household the user speaks for.
@rule(
    "event.household_move",
    rf"^We {ADV}(?:are |have been )?(?:live|living|reside|residing|based) in (?P<o>{NAME})"
    r"(?P<rest>.*)$",
    needs=("live", "living", "resid", "based"),
)
def _household_lives(m: re.Match[str]) -> list[Found]:
    o = tidy(m["o"], cut=PLACE_CUT)
    return [found("event.household_move", f"User lives in {o}", ATTR, HOME)] if usable(o) else []


_DIETS = r"(?P<d>vegetarian|vegan|pescatarian|gluten-free|dairy-free|keto|paleo|kosher|halal)"


@rule(
    "event.diet_change",
    rf"^I {ADV}(?:went|have gone|had gone|became|have become|turned|switched to being|"
    rf"am going|decided to go|started being) (?:fully |completely |full )?{_DIETS}\b(?P<rest>.*)$",
    needs=(
        "vegetarian",
        "vegan",
        "pescatarian",
        "gluten",
        "dairy",
        "keto",
        "paleo",
        "kosher",
        "halal",
    ),
)
def _diet_change(m: re.Match[str]) -> list[Found]:
    return [found("event.diet_change", f"User is {m['d'].lower()}", ATTR, "diet")]


# "I retired last year", "I got married in June": the status the event leaves.
@rule(
    "event.status_change",
    rf"^I {ADV}(?:have )?(?:just |finally |officially |recently )*(?:(?P<retired>retired)|got "
    r"(?P<status>married|engaged|divorced))\b(?P<rest>.*)$",
    needs=("retired", "married", "engaged", "divorced"),
)
def _status_change(m: re.Match[str]) -> list[Found]:
    if m["retired"]:
        return [found("event.status_change", "User is retired", ATTR, "employment")]
    status = m["status"].lower()
    to = re.match(rf"^ to (?P<who>{NAME})", m["rest"])
    if to is not None and status in ("married", "engaged"):
        # "I got married to Sam in June": the spouse, on the partner key.
        return [
            found(
                "event.status_change",
                f"User is {status} to {to['who']}",
                BeliefType.RELATIONSHIP,
                "spouse",
                key=PARTNER_KEY,
            )
        ]
    return [
        found("event.status_change", f"User is {status}", BeliefType.RELATIONSHIP, "marital status")
    ]


_PASTIME_CUT = re.compile(
    r"\s+(?:lately|recently|these days|this year|this summer|this winter|again|"
    r"at the moment|right now|for a while|big time|in a big way)\b.*$",
    re.I,
)


@rule(
    "event.pastime",
    rf"^I {ADV}(?:have been getting|am getting|got|have gotten|have got|am|have been) "
    r"(?:really |super |so |very |quite |pretty |totally |big |more )?into (?P<o>.+)$",
    needs=("into",),
)
def _pastime(m: re.Match[str]) -> list[Found]:
    return _into(m["o"])


@rule(
    "event.pastime",
    rf"^I {ADV}(?:took|have taken|have been taking|am taking) up (?P<o>(?!(?:a |the )?"
    r"(?:offer|job|position|role|space|room|time)\b).+)$",
    needs=(" up ",),
)
def _took_up(m: re.Match[str]) -> list[Found]:
    return _into(m["o"])


def _into(obj: str) -> list[Found]:
    o = tidy(obj, cut=_PASTIME_CUT)
    if not usable(o) or re.match(
        r"(?i)^(?:it|that|this|these|those|them|him|her|you|each other|something|anything|"
        r"stuff|things?|(?:making|doing|trying) (?:this|that|it))\b",
        o,
    ):
        return []
    if re.fullmatch(r"(?i)(?:a |an |my |some )?(?:new |different )?(?:hobby|hobbies|pastime)", o):
        return []  # "a new hobby": which one the next sentence says, if any
    if len(o.split()) > 5:
        return []  # a pastime is a name, not a clause
    return [found("event.pastime", f"User is into {third(o)}", ATTR, (head(o), "hobby"))]


_EVENTS = (
    r"party|birthday party|wedding|reception|ceremony|appointment|surgery|operation|"
    r"interview|flight|trip|vacation|holiday|concert|recital|show|exam|test|final|move|"
    r"meeting|deadline|launch|race|marathon|half marathon|triathlon|game|match|"
    r"tournament|graduation|reunion|shower|baby shower|dinner|celebration|trial|hearing|"
    r"checkup|check-up|due date|conference|audition|performance|opening|housewarming|"
    r"anniversary|visit|recital|playdate|procedure|class|lesson|shift|date night"
)
_MONTH = (
    r"(?:January|February|March|April|May|June|July|August|September|October|November|"
    r"December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)"
)
_WEEKDAY = r"(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)"
_ORDINAL = r"\d{1,2}(?:st|nd|rd|th)?"
_DATE = (
    rf"(?:(?:on )?(?:(?:{_WEEKDAY},? )?{_MONTH} {_ORDINAL}"
    rf"|(?:the )?{_ORDINAL}(?: of {_MONTH}| {_MONTH})?"
    rf"|{_WEEKDAY}(?: the {_ORDINAL})?|\d{{1,2}}/\d{{1,2}}(?:/\d{{2,4}})?)"
    rf"|in (?:early |mid |late |mid-)?{_MONTH}(?: \d{{4}})?)"
)


@rule(
    "event.dated",
    rf"^(?P<det>The|Our|My) (?P<name>(?:{NAME} )?(?:[a-z]+ )?(?P<event>{_EVENTS}))"
    rf" (?:is|will be|is now|has been moved to|got moved to|was moved to) (?P<when>{_DATE})"
    r"(?P<rest>(?: (?:at|in) .+)?)$",
    needs=(" is ", " will be ", "moved"),
)
def _dated(m: re.Match[str]) -> list[Found]:
    when = m["when"] if re.match(r"(?i)^(?:on|in) ", m["when"]) else "on " + m["when"]
    name = m["name"]
    owner = "User's" if m["det"].lower() in ("my", "our") else "The"
    event = m["event"].lower()
    statement = f"{owner} {name} is {when}"
    return [found("event.dated", statement, FACT, (event, f"{event} date"), key=f"date/{event}")]


_PERSONAL = r"(?P<verb>start|begin|leave|fly out|fly|move|graduate|retire|return|arrive)"


@rule(
    "event.personal_date",
    rf"^I {ADV}(?:will |am going to |officially )?{_PERSONAL}(?: (?:work|my new job|the new "
    rf"job|at {NAME}|there|school|classes|college|uni|university))? (?P<when>{_DATE})$",
    needs=("start", "begin", "leave", "fly", "move", "graduate", "retire", "return", "arrive"),
)
def _personal_date(m: re.Match[str]) -> list[Found]:
    verb = m["verb"].lower()
    third_verb = {"fly out": "flies out", "fly": "flies"}.get(verb, verb + "s")
    when = m["when"] if re.match(r"(?i)^(?:on|in) ", m["when"]) else "on " + m["when"]
    noun = {"fly out": "flight", "fly": "flight", "leave": "departure"}.get(verb, verb)
    return [
        found(
            "event.personal_date",
            f"User {third_verb} {when}",
            FACT,
            f"{noun} date",
            key=f"date/{noun}",
        )
    ]


RULES: tuple[Rule, ...] = (
    _household_move,
    _household_lives,
    _status_change,
    _diet_change,
    _pastime,
    _took_up,
    _dated,
    _personal_date,
)
