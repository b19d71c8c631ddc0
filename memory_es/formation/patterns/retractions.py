"""Rule family: retractions ("I no longer use X", "I sold my Tesla", "I left Globex")
and plain negations ("I don't have a car"). Read first: they carry the verbs the
assertions below also read.
"""

from __future__ import annotations

import re

from memory_es.domain.values import BeliefType
from memory_es.formation.patterns.lexicon import (
    ADV,
    ATTR,
    HOME,
    NAME,
    NOT_POSSESSIONS,
    PLACE_CUT,
    PREF,
)
from memory_es.formation.patterns.phrases import (
    head,
    indefinite,
    preference_subject,
    third,
    tidy,
    usable,
)
from memory_es.formation.patterns.relationships import PARTNER_KEY
from memory_es.formation.patterns.rule import Found, Rule, found, rule

# When or why it happened is not part of what was given up: "my book club last spring".
_WHEN_CUT = re.compile(
    r"\s+(?:last|this|in|on|at|after|because|when|since|yesterday|today|a few|\w+ ago)\b.*$",
    re.I,
)


# Retractions first: they carry the verbs the assertions below also read.
_RETRACT_VERBS: dict[str, tuple[str, BeliefType, str]] = {
    # verb -> (third person, type, subject rule: "head" | "home" | "employment")
    "use": ("uses", ATTR, "head"),
    "using": ("uses", ATTR, "head"),
    "have": ("has", ATTR, "head"),
    "own": ("owns", ATTR, "head"),
    "owning": ("owns", ATTR, "head"),
    "drive": ("drives", ATTR, "head"),
    "driving": ("drives", ATTR, "head"),
    "play": ("plays", ATTR, "head"),
    "playing": ("plays", ATTR, "head"),
    "speak": ("speaks", ATTR, "head"),
    "wear": ("wears", ATTR, "head"),
    "wearing": ("wears", ATTR, "head"),
    "live in": ("lives in", ATTR, "home"),
    "living in": ("lives in", ATTR, "home"),
    "work at": ("works at", ATTR, "employment"),
    "work for": ("works at", ATTR, "employment"),
    "working at": ("works at", ATTR, "employment"),
    "working for": ("works at", ATTR, "employment"),
    "drink": ("drinks", PREF, "head"),
    "drinking": ("drinks", PREF, "head"),
    "eat": ("eats", PREF, "head"),
    "eating": ("eats", PREF, "head"),
    "like": ("likes", PREF, "head"),
    "love": ("loves", PREF, "head"),
    "prefer": ("prefers", PREF, "prefer"),
}
_RV = "|".join(sorted((re.escape(v) for v in _RETRACT_VERBS), key=len, reverse=True))


def _retraction(name: str, verb: str, obj: str) -> list[Found]:
    third_verb, belief_type, subject_rule = _RETRACT_VERBS[verb.lower()]
    o = tidy(obj, cut=PLACE_CUT if subject_rule == "home" else None)
    if not usable(o):
        return []
    if subject_rule == "home":
        return [found(name, f"User no longer {third_verb} {third(o)}", ATTR, HOME, polarity=False)]
    if subject_rule == "employment":
        return [
            found(name, f"User no longer works at {third(o)}", ATTR, "employment", polarity=False)
        ]
    shown = indefinite(o)
    subject = preference_subject(o) if subject_rule == "prefer" else head(o)
    return [
        found(
            name,
            f"User no longer {third_verb} {third(shown)}",
            belief_type,
            subject,
            polarity=False,
        )
    ]


@rule("retraction.no_longer", rf"^I {ADV}no longer (?P<verb>{_RV})\s+(?P<o>.+)$")
def _no_longer(m: re.Match[str]) -> list[Found]:
    return _retraction("retraction.no_longer", m["verb"], m["o"])


@rule(
    "retraction.not_anymore",
    rf"^I {ADV}do not (?P<verb>{_RV})\s+(?P<o>.+?)\s+(?:any ?more|any longer)\b.*$",
)
def _not_anymore(m: re.Match[str]) -> list[Found]:
    return _retraction("retraction.not_anymore", m["verb"], m["o"])


@rule("retraction.stopped", rf"^I {ADV}(?:have )?(?:stopped|quit) (?P<verb>{_RV})\s+(?P<o>.+)$")
def _stopped(m: re.Match[str]) -> list[Found]:
    return _retraction("retraction.stopped", m["verb"], m["o"])


@rule(
    "retraction.got_rid_of",
    r"^I (?:have )?(?:just |finally )?(?:sold|got rid of|gave away|returned|lost|ditched)"
    r" (?P<o>(?:my|our|the) .+)$",
)
def _got_rid_of(m: re.Match[str]) -> list[Found]:
    o = tidy(m["o"], cut=_WHEN_CUT)
    if not usable(o):
        return []
    return [
        found(
            "retraction.got_rid_of",
            f"User no longer has {indefinite(o)}",
            ATTR,
            head(o),
            polarity=False,
        )
    ]


# "I quit the choir", "I dropped out of my book club": a membership, retracted; it
# reaches whatever the user said about the group (the resolver's retraction reach).
@rule(
    "retraction.quit",
    rf"^I {ADV}(?:have )?(?:quit|dropped out of) (?P<o>(?:the|my|our) .+)$",
    needs=("quit", "dropped out"),
)
def _quit(m: re.Match[str]) -> list[Found]:
    o = tidy(m["o"], cut=_WHEN_CUT)
    if not usable(o) or not head(o):
        return []
    return [found("retraction.quit", f"User quit {third(o)}", ATTR, head(o), polarity=False)]


# "I closed my Harbor account", "I cancelled my gym membership": what the account was
# with is retracted, so "User banks with Harbor Credit Union." is no longer current.
@rule(
    "retraction.closed_account",
    rf"^I {ADV}(?:have )?(?P<verb>closed|cancell?ed|canceled|ended) (?:my|our) (?P<o>.+?)"
    r" (?P<kind>account|membership|subscription|plan|lease|contract)s?\b.*$",
    needs=("closed", "cancel", "ended"),
)
def _closed_account(m: re.Match[str]) -> list[Found]:
    o = tidy(m["o"])
    if not usable(o) or not head(o):
        return []
    return [
        found(
            "retraction.closed_account",
            f"User {m['verb'].lower()} their {o} {m['kind'].lower()}",
            ATTR,
            head(o),
            polarity=False,
        )
    ]


@rule(
    "retraction.left_job",
    rf"^I {ADV}(?:have )?(?:left|quit)(?: my job at| my job with| my position at)?"
    rf" (?P<o>{NAME})(?P<rest>.*)$",
)
def _left_job(m: re.Match[str]) -> list[Found]:
    if m["rest"].strip() and not re.match(r"(?i)^\s*(?:last|this|in|a|after|because)", m["rest"]):
        return []
    return [
        found(
            "retraction.left_job",
            f"User no longer works at {m['o']}",
            ATTR,
            "employment",
            polarity=False,
        )
    ]


@rule("retraction.moved_away", rf"^I {ADV}(?:have )?moved (?:away )?(?:from|out of) (?P<o>{NAME})$")
def _moved_away(m: re.Match[str]) -> list[Found]:
    return [
        found(
            "retraction.moved_away", f"User no longer lives in {m['o']}", ATTR, HOME, polarity=False
        )
    ]


_NEGATED = {
    "use": "does not use",
    "have": "does not have",
    "own": "does not own",
    "drive": "does not drive",
    "drink": "does not drink",
    "eat": "does not eat",
    "speak": "does not speak",
    "play": "does not play",
}


@rule(
    "attr.does_not",
    r"^I (?:really |actually )?do not (?P<verb>use|have|own|drive|drink|eat|"
    r"speak|play) (?P<o>.+)$",
)
def _does_not(m: re.Match[str]) -> list[Found]:
    o = tidy(m["o"])
    subject = head(o)
    if not usable(o) or not subject or NOT_POSSESSIONS.match(subject):
        return []
    belief_type = PREF if m["verb"].lower() in ("drink", "eat") else ATTR
    verb = _NEGATED[m["verb"].lower()]
    return [found("attr.does_not", f"User {verb} {third(o)}", belief_type, subject, polarity=False)]


# "I'm no longer vegetarian", "I'm not vegan anymore": the diet (or other trait) key,
# retracted.
_RETRACTED_TRAITS = {
    "vegetarian": "diet",
    "vegan": "diet",
    "pescatarian": "diet",
    "gluten-free": "diet",
    "married": "marital status",
    "engaged": "marital status",
    "single": "marital status",
    "retired": "employment",
    "a smoker": "smoking",
    "sober": "drinking",
}
_TRAIT_WORDS = "|".join(re.escape(t) for t in _RETRACTED_TRAITS)


@rule(
    "retraction.trait",
    rf"^I {ADV}am (?:no longer (?:a |an )?(?P<t1>{_TRAIT_WORDS})|not (?:a |an )?"
    rf"(?P<t2>{_TRAIT_WORDS}) (?:any ?more|any longer))\b.*$",
    needs=("no longer", "more", "longer"),
)
def _trait_retracted(m: re.Match[str]) -> list[Found]:
    trait = (m["t1"] or m["t2"]).lower()
    subject = _RETRACTED_TRAITS[trait]
    belief_type = BeliefType.RELATIONSHIP if subject == "marital status" else ATTR
    return [
        found(
            "retraction.trait",
            f"User is no longer {trait}",
            belief_type,
            subject,
            polarity=False,
        )
    ]


# "I'm not at Acme anymore": the employer, retracted.
@rule(
    "retraction.left_job",
    rf"^I {ADV}am (?:not|no longer) (?:at|with) (?P<org>{NAME})(?: (?:any ?more|any longer))?\b.*$",
    needs=("not", "no longer"),
)
def _not_at_org(m: re.Match[str]) -> list[Found]:
    org = tidy(m["org"])
    if not usable(org):
        return []
    return [
        found(
            "retraction.left_job",
            f"User no longer works at {org}",
            ATTR,
            "employment",
            polarity=False,
        )
    ]


# "I broke up with Ana", "Ana and I split up": the partner key, retracted.
@rule(
    "retraction.breakup",
    rf"^(?:I {ADV}(?:broke|split) up with (?P<a>{NAME})|(?P<b>{NAME}) (?:and|&) I "
    r"(?:have )?(?:broke|split|broken) up)\b.*$",
    needs=(" up",),
)
def _breakup(m: re.Match[str]) -> list[Found]:
    who = m["a"] or m["b"]
    if who.lower() in ("i", "we", "she", "he", "they", "my"):
        return []
    return [
        found(
            "retraction.breakup",
            f"User is no longer with {who}",
            BeliefType.RELATIONSHIP,
            "partner",
            polarity=False,
            key=PARTNER_KEY,
        )
    ]


RULES: tuple[Rule, ...] = (
    _trait_retracted,
    _not_at_org,
    _breakup,
    _no_longer,
    _not_anymore,
    _stopped,
    _got_rid_of,
    _closed_account,
    _left_job,
    _quit,
    _moved_away,
    _does_not,
)
