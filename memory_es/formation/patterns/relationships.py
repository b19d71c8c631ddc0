"""Rule family: relationships ("My wife is Morgan", "I have two kids", "I'm married
to Sam").
"""

from __future__ import annotations

import re

from memory_es.formation.patterns.lexicon import ADV, NAME, REL, REL_WORD, RELATIONS
from memory_es.formation.patterns.rule import Found, Rule, found, rule

# Relationships.
# One partner at a time: girlfriend, fiancée, wife (and the rest of the family of roles)
# share one subject key, so "Ana is my fiancée now" supersedes "My girlfriend is Ana".
PARTNER_KEY = "partner"
_PARTNER_ROLES = frozenset(
    r for r, subjects in RELATIONS.items() if {"spouse", "partner"} & set(subjects)
)


def relationship(name: str, rel: str, who: str) -> list[Found]:
    rel = rel.lower()
    who = who.strip()
    who = who[:1].upper() + who[1:]
    key = PARTNER_KEY if rel in _PARTNER_ROLES else None
    return [found(name, f"User's {rel} is {who}", REL, RELATIONS.get(rel, (rel,)), key=key)]


_NOT_A_NAME = re.compile(
    r"^(?:sick|ill|busy|away|home|out|here|there|pregnant|great|awesome|amazing|nice|"
    r"tired|angry|upset|happy|sad|cool|fine|ok|okay|old|young|retired|working|visiting|"
    r"traveling|travelling|coming|going|a|an|the|not|also|still|really|very|so|too|"
    r"always|never|super|kind|mean|funny|smart|late|early|allergic|vegan|vegetarian|"
    r"british|american|french|german|italian|spanish|english|it|named|called)$",
    re.I,
)


@rule(
    "relationship.named",
    rf"^My {REL_WORD}(?:'s name)? (?:is|'s) (?:called |named )?(?P<who>{NAME})$",
)
def _my_rel_is(m: re.Match[str]) -> list[Found]:
    return relationship("relationship.named", m["rel"], m["who"])


@rule(
    "relationship.named",
    rf"^My {REL_WORD}(?:'s name is| is called| is named|'s called|'s named)"
    r" (?P<who>[A-Za-z][\w'-]*)$",
)
def _my_rel_named_lower(m: re.Match[str]) -> list[Found]:
    return relationship("relationship.named", m["rel"], m["who"])


@rule("relationship.named", rf"^My {REL_WORD} is (?P<who>[a-z][a-z'-]+)$")
def _my_rel_is_lower(m: re.Match[str]) -> list[Found]:
    who = m["who"]
    if _NOT_A_NAME.match(who) or re.search(r"(?:ing|ed|ly|ful|ous|ive|ish|y)$", who):
        return []
    return relationship("relationship.named", m["rel"], who)


@rule("relationship.named", rf"^(?P<who>{NAME}) is my {REL_WORD}$")
def _name_is_my_rel(m: re.Match[str]) -> list[Found]:
    if m["who"].lower() in ("she", "he", "they", "it", "this", "that", "who"):
        return []
    return relationship("relationship.named", m["rel"], m["who"])


@rule(
    "relationship.named",
    rf"^I {ADV}have (?:a|an|one) {REL_WORD} (?:named|called) (?P<who>[A-Za-z][\w'-]*)$",
)
def _have_rel_named(m: re.Match[str]) -> list[Found]:
    return relationship("relationship.named", m["rel"], m["who"])


_PRONOUN_OWNERS = frozenset(("he", "she", "they", "it", "this", "that", "who", "i"))


@rule(
    "relationship.of_relation",
    rf"^(?P<owner>(?-i:[A-Z][\w-]*(?: [A-Z][\w-]*)?))'s {REL_WORD} (?:is|'s)"
    rf" (?:called |named )?(?P<who>{NAME})$",
)
def _relation_of_someone(m: re.Match[str]) -> list[Found]:
    """ "Ana's mother is Rosa": a named person's relation, in the user's circle (the
    people the user talks about are the people the user's life holds)."""
    owner, rel, who = m["owner"], m["rel"].lower(), m["who"].strip()
    if owner.lower() in _PRONOUN_OWNERS or _NOT_A_NAME.match(who):
        return []
    return [
        found("relationship.of_relation", f"{owner}'s {rel} is {who}", REL, (f"{owner}'s {rel}",))
    ]


@rule("relationship.married_to", rf"^I {ADV}am (?:married|engaged) to (?P<who>{NAME})$")
def _married_to(m: re.Match[str]) -> list[Found]:
    verb = "married" if "married" in m.group(0).lower() else "engaged"
    return [
        found(
            "relationship.married_to",
            f"User is {verb} to {m['who']}",
            REL,
            "spouse",
            key=PARTNER_KEY,
        )
    ]


@rule("relationship.status", rf"^I {ADV}am (?P<s>married|engaged|single|divorced|widowed)$")
def _marital(m: re.Match[str]) -> list[Found]:
    return [found("relationship.status", f"User is {m['s'].lower()}", REL, "marital status")]


@rule(
    "relationship.has",
    rf"^I {ADV}have (?P<n>a|an|one|two|three|four|five|\d+) (?P<o>(?:little |baby |younger |"
    rf"older |big |twin )?{REL_WORD}(?:s|ren)?)(?P<rest>(?: and .+)?)$",
)
def _have_rel(m: re.Match[str]) -> list[Found]:
    rel = m["rel"].lower()
    out = [found("relationship.has", f"User has {m['n']} {m['o']}", REL, RELATIONS[rel])]
    rest = m["rest"].strip()
    if rest:
        again = re.match(
            rf"(?i)^and (?P<n>a|an|one|two|three|\d+) (?P<o>{REL_WORD}(?:s|ren)?)$", rest
        )
        if again:
            rel2 = again["rel"].lower()
            out.append(
                found(
                    "relationship.has", f"User has {again['n']} {again['o']}", REL, RELATIONS[rel2]
                )
            )
    return out


RULES: tuple[Rule, ...] = (
    _my_rel_is,
    _my_rel_named_lower,
    _my_rel_is_lower,
    _name_is_my_rel,
    _have_rel_named,
    _relation_of_someone,
    _married_to,
    _marital,
    _have_rel,
)
