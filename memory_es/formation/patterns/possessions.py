"""Rule family: possessions, tools and activities ("I use Neovim", "I have an Apple
Watch", "I drive a Subaru", "I speak Portuguese").
"""

from __future__ import annotations

import re
from dataclasses import replace

from memory_es.formation.patterns.habits import (
    FREQUENCY,
    activity_subjects,
    scheduled,
    without_frequency,
)
from memory_es.formation.patterns.lexicon import (
    ADV,
    ATTR,
    DET,
    NOT_POSSESSIONS,
    REL,
    REL_WORD,
    RELATIONS,
    RELATIVE_CUT,
    F,
    alternation,
)
from memory_es.formation.patterns.morphology import third_person
from memory_es.formation.patterns.phrases import (
    head,
    indefinite,
    split_list,
    third,
    tidy,
    usable,
    without_modifier,
)
from memory_es.formation.patterns.relationships import relationship
from memory_es.formation.patterns.rule import Found, Rule, found, rule
from memory_es.formation.patterns.switches import new_of_class

# Possessions and tools.
_USE_VERBS = {
    "use": "uses",
    "am using": "uses",
    "have been using": "uses",
    "rely on": "relies on",
    "code in": "codes in",
    "program in": "programs in",
    "write code in": "writes code in",
    "develop in": "develops in",
    "switched to": "uses",
    "have switched to": "uses",
}
_UV = alternation(_USE_VERBS)


@rule("attr.uses", rf"^I {ADV}(?P<verb>{_UV}) (?P<o>.+)$")
def _uses(m: re.Match[str]) -> list[Found]:
    o = tidy(m["o"])
    if not usable(o) or re.match(r"(?i)^(?:to|a lot|the same|your|the chat|you)\b", o):
        return []
    verb = _USE_VERBS[m["verb"].lower()]
    out = []
    for item in split_list(o):
        shown = indefinite(item) if re.match(r"(?i)^my\b", item) else item
        subject = head(item)
        if subject:
            out.append(found("attr.uses", f"User {verb} {third(shown)}", ATTR, subject))
    return out


@rule(
    "attr.has",
    rf"^I {ADV}(?P<verb>have got|have|got myself|got|own|bought|picked up|"
    rf"am the proud owner of) (?P<o>(?:{DET}\b|(?-i:[A-Z])).+)$",
)
def _has(m: re.Match[str]) -> list[Found]:
    verb = "owns" if m["verb"].lower() == "own" else "has"
    o = tidy(m["o"], cut=RELATIVE_CUT)
    if not usable(o):
        return []
    out = []
    for item in split_list(o):
        subject = head(item)
        if not subject or NOT_POSSESSIONS.match(subject):
            continue
        shown = indefinite(item) if re.match(r"(?i)^(?:my|our)\b", item) else item
        named = re.match(
            rf"(?i)^(?:a|an|one) {REL_WORD} (?:named|called) (?P<who>[A-Za-z][\w'-]*)$", item
        )
        if named:
            out.extend(relationship("relationship.named", named["rel"], named["who"]))
            continue
        first = subject.split()[0].lower()
        if first.rstrip("s") in RELATIONS or first in RELATIONS:
            rel = first if first in RELATIONS else first.rstrip("s")
            out.append(found("relationship.has", f"User has {third(shown)}", REL, RELATIONS[rel]))
            continue
        # "I have a piano lesson every Tuesday": an appointment in the calendar, a fact
        # (patterns/habits.py), not something the user owns.
        kind_of = F if scheduled(item) else ATTR
        subjects = (subject, without_modifier(subject))
        reading = found("attr.has", f"User {verb} {third(shown)}", kind_of, subjects)
        # "I just got a new MacBook Pro": a new one of a kind the user has one of at a
        # time replaces the old one (patterns/switches.py: a class reach).
        kind = new_of_class(item)
        out.append(replace(reading, switches=kind) if kind else reading)
    return out


@rule(
    "attr.works_in",
    rf"^I {ADV}(?P<verb>write|draft|do|edit|keep|track|plan|draw|design|record|take) "
    r"(?P<what>everything|all (?:of )?my [a-z]+|most (?:of )?my [a-z]+|my [a-z]+)"
    r" (?P<prep>in|with|on|using) (?P<tool>(?-i:[A-Z][\w.+#-]*(?: [A-Z][\w.+#-]*)?))$",
)
def _works_in(m: re.Match[str]) -> list[Found]:
    """ "I write everything in LaTeX", "I keep all my notes in Obsidian": the tool the
    user does a kind of work in, a habit of theirs (an attribute, which travels with
    them across projects)."""
    verb = third_person(m["verb"])
    what = third(m["what"])
    statement = f"User {verb} {what} {m['prep'].lower()} {m['tool']}"
    return [found("attr.works_in", statement, ATTR, m["tool"])]


@rule("attr.drives", rf"^I {ADV}drive (?P<o>(?:a|an|the|my) .+)$")
def _drives(m: re.Match[str]) -> list[Found]:
    o = tidy(m["o"])
    if not usable(o):
        return []
    return [found("attr.drives", f"User drives {indefinite(o)}", ATTR, "car")]


_ACTIVITY_VERBS = {
    "speak": ("speaks", "head"),
    "play": ("plays", "head"),
    "am learning": ("is learning", "head"),
    "am studying": ("is studying", "head"),
    "study": ("studies", "head"),
    "am new to": ("is new to", "head"),
    "am training for": ("is training for", "training"),
    "practice": ("practices", "head"),
    "run": ("runs", "head"),
    "cook": ("cooks", "head"),
    "write": ("writes", "head"),
    "read": ("reads", "head"),
    "watch": ("watches", "head"),
    "volunteer at": ("volunteers at", "head"),
    "go to": ("goes to", "head"),
    "attend": ("attends", "head"),
    "teach": ("teaches", "head"),
    "train": ("trains", "head"),
    "ride": ("rides", "head"),
    "wear": ("wears", "head"),
    "drink": ("drinks", "head"),
    "eat": ("eats", "head"),
}
_AV = alternation(_ACTIVITY_VERBS)


@rule("attr.activity", rf"^I {ADV}(?P<verb>{_AV}) (?P<o>.+)$")
def _activity(m: re.Match[str]) -> list[Found]:
    o = tidy(m["o"])
    if not usable(o) or re.match(
        r"(?i)^(?:a lot|about|through|up|out|into|on|over|for|with|at|late|early)\b", o
    ):
        return []
    verb, kind = _ACTIVITY_VERBS[m["verb"].lower()]
    items = split_list(o) if verb in ("speaks", "plays") else [o]
    out = []
    for item in items:
        subject = head(without_frequency(item)) or head(item)
        subjects: tuple[str, ...] = (subject,)
        if kind != "head":
            # "I'm training for the spring marathon": the pursuit is the slot, so the
            # next race the user trains for replaces this one.
            subjects = (kind, subject)
        elif FREQUENCY.search(item) and " " not in m["verb"]:
            # "I run four mornings a week": the activity's schedule (patterns/habits.py)
            subjects = activity_subjects(m["verb"], item) or subjects
        if subject:
            out.append(found("attr.activity", f"User {verb} {third(item)}", ATTR, subjects))
    return out


RULES: tuple[Rule, ...] = (
    _uses,
    _has,
    _works_in,
    _drives,
    _activity,
)
