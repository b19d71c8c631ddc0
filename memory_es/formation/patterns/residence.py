"""Rule family: residence and origin ("I live in Seattle", "I moved to Lisbon",
"I'm from Chile").
"""

from __future__ import annotations

import re

from memory_es.formation.patterns.lexicon import ADV, ATTR, HOME, NAME, PLACE_CUT
from memory_es.formation.patterns.phrases import proper, third, tidy, usable
from memory_es.formation.patterns.rule import Found, Rule, found, rule


# Residence.
@rule(
    "attr.residence",
    rf"^I {ADV}(?:am |have been )?(?:live|living|reside|residing|based|located|stay|staying)"
    r" (?:in|at) (?P<o>.+)$",
)
def _residence(m: re.Match[str]) -> list[Found]:
    return _lives_in(m)


def _lives_in(m: re.Match[str]) -> list[Found]:
    o = tidy(m["o"], cut=PLACE_CUT)
    if not usable(o):
        return []
    return [found("attr.residence", f"User lives in {proper(third(o))}", ATTR, HOME)]


@rule("attr.residence", rf"^I {ADV}am based out of (?P<o>.+)$")
def _based_out_of(m: re.Match[str]) -> list[Found]:
    return _lives_in(m)


@rule(
    "attr.moved_to",
    rf"^I {ADV}(?:have )?(?:just )?(?:moved|relocated)(?: from (?P<from>{NAME}))? to (?P<o>{NAME})"
    r"(?P<rest>.*)$",
)
def _moved_to(m: re.Match[str]) -> list[Found]:
    o = tidy(m["o"], cut=PLACE_CUT)
    return [found("attr.moved_to", f"User lives in {o}", ATTR, HOME)] if usable(o) else []


@rule("attr.home_is", r"^My (?:home|house|apartment|flat|place) is in (?P<o>.+)$")
def _home_is(m: re.Match[str]) -> list[Found]:
    return _lives_in(m)


@rule("attr.origin", rf"^I {ADV}am (?:originally )?from (?P<o>.+)$")
def _origin(m: re.Match[str]) -> list[Found]:
    o = tidy(m["o"], cut=PLACE_CUT)
    if not usable(o):
        return []
    return [found("attr.origin", f"User is from {proper(third(o))}", ATTR, "origin")]


# "I live on Marsh Lane now": a street is where the user lives as much as a city is.
@rule(
    "attr.residence",
    rf"^I {ADV}(?:am |have been )?(?:live|living|reside|residing|based|located)"
    rf" on (?P<o>{NAME} (?:Street|St|Lane|Road|Rd|Avenue|Ave|Drive|Boulevard|Way|Place|"
    r"Court|Terrace|Crescent|Close|Row|Square|Hill))\b.*$",
    needs=(" on ",),
)
def _residence_street(m: re.Match[str]) -> list[Found]:
    o = tidy(m["o"], cut=PLACE_CUT)
    return [found("attr.residence", f"User lives on {o}", ATTR, HOME)] if usable(o) else []


RULES: tuple[Rule, ...] = (
    _residence,
    _residence_street,
    _based_out_of,
    _moved_to,
    _home_is,
    _origin,
)
