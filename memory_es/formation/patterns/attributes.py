"""Rule family: general first-person attributes ("My timezone is CET", "Call me Sam",
"I'm 34", "I'm allergic to peanuts", "I'm vegetarian").
"""

from __future__ import annotations

import re

from memory_es.formation.patterns.lexicon import ADV, ATTR, alternation
from memory_es.formation.patterns.phrases import head, third, tidy, usable
from memory_es.formation.patterns.rule import Found, Rule, found, rule

# General first-person attributes.
_ATTRIBUTES: dict[str, str] = {
    "name": "name",
    "full name": "name",
    "first name": "name",
    "nickname": "nickname",
    "pronouns": "pronouns",
    "timezone": "time zone",
    "time zone": "time zone",
    "birthday": "birthday",
    "date of birth": "birthday",
    "age": "age",
    "hometown": "hometown",
    "home town": "hometown",
    "native language": "native language",
    "first language": "native language",
    "mother tongue": "native language",
    "job": "role",
    "job title": "role",
    "title": "role",
    "role": "role",
    "position": "role",
    "occupation": "role",
    "profession": "role",
    "employer": "employment",
    "company": "employment",
    "team": "team",
    "nationality": "nationality",
    "diet": "diet",
    "dietary restriction": "diet",
    "shoe size": "shoe size",
    "height": "height",
    "blood type": "blood type",
    "zodiac sign": "zodiac sign",
    "star sign": "zodiac sign",
    "major": "field of study",
    "degree": "degree",
    "os": "operating system",
    "operating system": "operating system",
    "laptop": "laptop",
    "phone": "phone",
    "editor": "editor",
    "shell": "shell",
    "car": "car",
    "commute": "commute",
    "schedule": "schedule",
    "working hours": "working hours",
    "work hours": "working hours",
    "main language": "programming language",
    "goal": "goal",
    "main goal": "goal",
    "big goal": "goal",
    "office": "work location",
    "workplace": "work location",
}
_ATTR_ALT = alternation(_ATTRIBUTES)


_STATE_WORD = re.compile(
    r"^(?:(?:so|very|really|pretty|super|too|kind of|a bit)\s+)?(?:small|big|large|tiny|huge|"
    r"busy|great|fine|good|bad|old|new|slow|fast|broken|weird|annoying|crazy|long|short|"
    r"hectic|messy|ok|okay|awesome|terrible|amazing|nice|down|up|off|on|over|done|"
    r"\w+ing|\w+ed)$",
    re.I,
)


@rule("attr.my_attribute", rf"^My (?P<attr>{_ATTR_ALT}) (?P<be>is|are|'s) (?P<o>.+)$")
def _my_attribute(m: re.Match[str]) -> list[Found]:
    o = tidy(m["o"])
    attr = m["attr"].lower()
    # A goal is an infinitive ("My goal is to pass the B1 exam"); no other value is.
    infinitive = _ATTRIBUTES[attr] == "goal" and re.match(r"(?i)^to \w", o) is not None
    if not usable(o[3:] if infinitive else o):
        return []
    if _STATE_WORD.match(o):
        return []  # "My team is small": a description, not the attribute's value
    be = "are" if m["be"].lower() == "are" else "is"
    # The catalogue's subject first (it is the key), then the user's own word for it
    # ("timezone", "office") when that differs.
    subjects = (_ATTRIBUTES[attr], attr) if attr != _ATTRIBUTES[attr] else (attr,)
    return [found("attr.my_attribute", f"User's {attr} {be} {third(o)}", ATTR, subjects)]


@rule("attr.name", r"^(?:call me|you can call me|people call me|everyone calls me) (?P<o>\w+)$")
def _call_me(m: re.Match[str]) -> list[Found]:
    o = m["o"][:1].upper() + m["o"][1:]
    return [found("attr.name", f"User's name is {o}", ATTR, "name")]


@rule("attr.age", rf"^I {ADV}am (?P<n>\d{{1,3}})(?: years old| yrs old| y/o| yo)?$")
def _age(m: re.Match[str]) -> list[Found]:
    return [found("attr.age", f"User is {m['n']} years old", ATTR, "age")]


@rule(
    "attr.time_zone",
    rf"^I {ADV}am (?:in|on) (?:the )?(?P<o>[\w/+-]+(?: [A-Z]\w+)?) (?:time|time ?zone|tz)$",
)
def _tz(m: re.Match[str]) -> list[Found]:
    return [found("attr.time_zone", f"User's time zone is {m['o']}", ATTR, "time zone")]


@rule("attr.allergy", rf"^I {ADV}am (?:severely |very |mildly )?allergic to (?P<o>.+)$")
def _allergy(m: re.Match[str]) -> list[Found]:
    o = tidy(m["o"])
    if not usable(o):
        return []
    return [
        found(
            "attr.allergy",
            f"User is allergic to {third(o)}",
            ATTR,
            "allergy",
            key=f"allergy/{head(o).lower()}",
        )
    ]


_TRAITS: dict[str, str] = {
    "vegetarian": "diet",
    "vegan": "diet",
    "pescatarian": "diet",
    "gluten-free": "diet",
    "lactose intolerant": "diet",
    "kosher": "diet",
    "halal": "diet",
    "diabetic": "health",
    "celiac": "health",
    "colorblind": "vision",
    "color blind": "vision",
    "left-handed": "handedness",
    "right-handed": "handedness",
    "left handed": "handedness",
    "right handed": "handedness",
    "an introvert": "personality",
    "an extrovert": "personality",
    "a morning person": "chronotype",
    "a night owl": "chronotype",
    "not a morning person": "chronotype",
    "deaf": "hearing",
    "hard of hearing": "hearing",
    "sober": "drinking",
    "a non-smoker": "smoking",
    "a smoker": "smoking",
    "retired": "employment",
    "unemployed": "employment",
    "self-employed": "employment",
    "a freelancer": "employment",
    "bilingual": "languages",
    "a beginner": "experience level",
    "a native speaker of english": "native language",
}
_TRAIT_ALT = alternation(_TRAITS)


@rule(
    "attr.trait",
    rf"^I {ADV}am (?:(?:a|an) (?=(?:vegetarian|vegan|pescatarian|celiac|diabetic)\b))?"
    rf"(?P<t>{_TRAIT_ALT})(?P<rest>(?: (?:at|in|with) .+)?)$",
)
def _trait(m: re.Match[str]) -> list[Found]:
    trait = m["t"].lower()
    rest = tidy(m["rest"]) if m["rest"] else ""
    return [
        found(
            "attr.trait",
            f"User is {trait}{' ' + rest.strip() if rest else ''}",
            ATTR,
            _TRAITS[trait],
        )
    ]


# "I can't eat gluten", "I cannot have dairy": a dietary restriction, said as one.
@rule(
    "attr.cannot_eat",
    rf"^I {ADV}(?:can not|cannot) (?:(?P<verb>eat|drink|tolerate|digest) (?P<o>.+)|"
    r"(?P<have>have) (?P<food>(?:any )?(?:dairy|gluten|nuts|peanuts|caffeine|alcohol|sugar|"
    r"meat|pork|beef|eggs|shellfish|seafood|soy|wheat|lactose|spicy food|garlic|onions?))\b.*)$",
    needs=("can not", "cannot"),
)
def _cannot_eat(m: re.Match[str]) -> list[Found]:
    o = tidy(m["o"] or m["food"])
    if not usable(o) or len(o.split()) > 4:
        return []
    verb = (m["verb"] or m["have"]).lower()
    return [
        found(
            "attr.cannot_eat",
            f"User can not {verb} {third(o)}",
            ATTR,
            (head(o), "diet"),
            key=f"diet/{head(o).lower()}",
        )
    ]


RULES: tuple[Rule, ...] = (
    _my_attribute,
    _call_me,
    _age,
    _tz,
    _allergy,
    _trait,
)
# Read before the hedge guard, which otherwise takes "I can not ..." for a hedge.
RESTRICTION_RULES: tuple[Rule, ...] = (_cannot_eat,)
