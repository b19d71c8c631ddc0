"""Rule family: birth and upbringing ("I was born in Lagos", "I grew up in Osaka"),
read before the hedge guard ("I was ..." is otherwise past tense).
"""

from __future__ import annotations

import re

from memory_es.formation.patterns.lexicon import ADV, ATTR, PLACE_CUT
from memory_es.formation.patterns.phrases import proper, third, tidy, usable
from memory_es.formation.patterns.rule import Found, Rule, found, rule


# Birth and origin read before the hedge guard ("I was ..." is otherwise past tense).
@rule("attr.born_in", r"^I was born (?P<prep>in|on) (?P<o>.+)$")
def _born(m: re.Match[str]) -> list[Found]:
    o = tidy(m["o"])
    if not usable(o):
        return []
    subject = "birthplace" if m["prep"].lower() == "in" else "birthday"
    if m["prep"].lower() == "in" and re.match(r"^(?:\d{4}|the \d|19|20)", o):
        subject = "birth year"
    return [found("attr.born_in", f"User was born {m['prep'].lower()} {o}", ATTR, subject)]


@rule("attr.grew_up", rf"^I {ADV}grew up in (?P<o>.+)$")
def _grew_up(m: re.Match[str]) -> list[Found]:
    o = tidy(m["o"], cut=PLACE_CUT)
    if not usable(o):
        return []
    return [found("attr.grew_up", f"User grew up in {proper(third(o))}", ATTR, "hometown")]


RULES: tuple[Rule, ...] = (
    _born,
    _grew_up,
)
