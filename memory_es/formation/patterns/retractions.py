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
    DET,
    HOME,
    NAME,
    NOT_POSSESSIONS,
    PLACE_CUT,
    PREF,
    alternation,
    word_set,
)
from memory_es.formation.patterns.morphology import third_person
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
_POSSESSING = frozenset({"uses", "has", "owns", "drives", "wears"})
_RV = alternation(_RETRACT_VERBS)


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
    # What was had is retracted as a kind ("my Apple Watch" -> "an Apple Watch"); what
    # was played, drunk or liked as it was said ("the cello").
    shown = indefinite(o) if third_verb in _POSSESSING else o
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


# Any other verb given up reads the same way ("I no longer sing in the choir", "I don't
# take the bus anymore", "I stopped going to the gym", "I gave up bouldering", "I left the
# chess club"): a direct retraction of its object, whatever belief named it (the
# resolver's retraction reach). Not a state of mind ("I no longer want a dog" retracts
# no dog), and not the verbs the rules above read with their own types.
_NOT_RETRACTING = word_set(
    "want need think feel believe know care mind remember worry trust understand hope plan"
    " expect intend wish mean agree recall am is are was were be been have has had"
    " do does did can could will would shall should may might must get got"
)
# What a membership is in: leaving one of these is leaving the group, not a place.
_GROUPS = (
    r"club|choir|band|team|group|league|society|orchestra|ensemble|quartet|trio|circle|"
    r"guild|crew|troupe|association|committee|board|union|congregation|church|gym|class|"
    r"course|program|programme|party|chapter|lodge|squad|collective|chorus|co-op|coop"
)
_ANYMORE = re.compile(r"(?i)(?:^|\s+)(?:any ?more|any longer)\b.*$")
_PREPOSITION = re.compile(r"(?i)^(?:(?:to|in|at|with|for|on|from|into|onto|of|about)\s+)+")


def _object_subject(phrase: str, fallback: str) -> str:
    """The subject of what was given up: the head of its object past any preposition
    ("in the choir" -> "choir"), or the verb itself ("I no longer smoke")."""
    return head(_PREPOSITION.sub("", phrase)) or fallback


def _given_up(name: str, said: str, obj: str, fallback: str) -> list[Found]:
    """ "User <said> <obj>." negated, about the object's head."""
    o = tidy(_ANYMORE.sub("", obj), cut=_WHEN_CUT) if obj else ""
    if o and not usable(_PREPOSITION.sub("", o)):
        return []
    subject = _object_subject(o, fallback)
    if not subject:
        return []
    return [found(name, f"User {said} {third(o)}".strip(), ATTR, subject, polarity=False)]


@rule(
    "retraction.no_longer_any",
    r"^I (?:really |actually |just )?"
    r"(?:no longer|do not (?=\S+(?: .+?)? (?:any ?more|any longer)\b))\s*(?P<verb>[a-z]+)"
    r"(?:\s+(?P<o>.+?))?(?:\s+(?:any ?more|any longer)\b.*)?$",
    needs=("no longer", "more", "longer"),
)
def _no_longer_any(m: re.Match[str]) -> list[Found]:
    verb = m["verb"].lower()
    if verb in _NOT_RETRACTING:
        return []
    return _given_up(
        "retraction.no_longer_any", f"no longer {third_person(verb)}", m["o"] or "", verb
    )


@rule(
    "retraction.stopped_doing",
    rf"^I {ADV}(?:have )?(?P<verb>stopped|quit) (?P<g>[a-z]+ing)\b\s*(?P<o>.*)$",
    needs=("stopped", "quit"),
)
def _stopped_doing(m: re.Match[str]) -> list[Found]:
    said = f"{m['verb'].lower()} {m['g'].lower()}"
    return _given_up("retraction.stopped_doing", said, m["o"], m["g"].lower())


@rule(
    "retraction.gave_up",
    rf"^I {ADV}(?:have )?(?:gave|given) up (?:on )?(?P<o>.+)$",
    needs=("gave up", "given up"),
)
def _gave_up(m: re.Match[str]) -> list[Found]:
    return _given_up("retraction.gave_up", "gave up", m["o"], "")


@rule(
    "retraction.left_group",
    rf"^I {ADV}(?:have )?left (?P<o>(?:the|my|our) (?:[\w'-]+ ){{0,3}}?(?:{_GROUPS}))\b.*$",
    needs=("left",),
)
def _left_group(m: re.Match[str]) -> list[Found]:
    return _given_up("retraction.left_group", "left", m["o"], "")


# "I'm not in the book club anymore", "I'm no longer a member of the chess club", "I'm
# no longer a teacher": a membership or a role, retracted.
@rule(
    "retraction.no_longer_member",
    rf"^I {ADV}am (?:no longer (?P<p1>in|part of|a part of|a member of|on|an?)\s+(?P<o1>.+)"
    r"|not (?P<p2>in|part of|a part of|a member of|on|an?)\s+(?P<o2>.+?)"
    r" (?:any ?more|any longer)\b.*)$",
    needs=("no longer", "more", "longer"),
)
def _no_longer_member(m: re.Match[str]) -> list[Found]:
    prep = (m["p1"] or m["p2"]).strip().lower()
    obj = tidy(m["o1"] or m["o2"], cut=_WHEN_CUT)
    if not usable(obj) or len(obj.split()) > 6:
        return []
    if prep in ("a", "an"):
        # A role or a trait ("a teacher", "a smoker"), never a feeling ("a bit tired").
        if re.match(r"(?i)^(?:bit|little|lot|fan)\b", obj):
            return []
        return [
            found(
                "retraction.no_longer_member",
                f"User is no longer {prep} {obj}",
                ATTR,
                head(obj),
                polarity=False,
            )
        ]
    if not re.match(rf"(?i)^(?:{DET}\s|{NAME})", obj) and not re.match(NAME, obj):
        return []
    return _given_up("retraction.no_longer_member", f"is no longer {prep}", obj, "")


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
    _no_longer_member,
    _no_longer_any,
    _stopped_doing,
    _gave_up,
    _left_group,
    _does_not,
)
