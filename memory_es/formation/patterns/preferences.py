"""Rule family: preferences ("I prefer concise answers", "I love Thai food", "I can't
stand X", "My favorite book is Dune").
"""

from __future__ import annotations

import re

from memory_es.formation.patterns.lexicon import ADV, PREF, YOU, alternation
from memory_es.formation.patterns.morphology import third_person
from memory_es.formation.patterns.phrases import (
    content_words,
    episode_subject,
    preference_subjects,
    third,
    tidy,
    usable,
)
from memory_es.formation.patterns.rule import Found, Rule, found, rule


@rule("preference.prefer", rf"^I {ADV}(?:would |do )?(?:prefer|prefers|perfer) (?P<o>.+)$")
def _prefer(m: re.Match[str]) -> list[Found]:
    return _prefers(m)


def _prefers(m: re.Match[str]) -> list[Found]:
    o = tidy(m["o"])
    if not usable(o) or re.match(r"(?i)^(?:if|that you|you|it if|for you|not to have you)\b", o):
        return []
    subjects = preference_subjects(o, topic_first=True)
    return [found("preference.prefer", f"User prefers {third(o)}", PREF, subjects)]


@rule("preference.prefer", r"^My preference is (?:for )?(?P<o>.+)$")
def _my_preference(m: re.Match[str]) -> list[Found]:
    return _prefers(m)


_LIKE_VERBS = {
    "like": "likes",
    "love": "loves",
    "enjoy": "enjoys",
    "adore": "adores",
}


@rule(
    "preference.like",
    r"^I (?P<adv>really |truly |also |just |absolutely )?"
    r"(?P<verb>like|love|enjoy|adore) (?P<o>.+)$",
)
def _like(m: re.Match[str]) -> list[Found]:
    o = tidy(m["o"])
    verb = _LIKE_VERBS[m["verb"].lower()]
    to = re.match(r"(?i)^to (?P<v>[a-z]+) (?P<rest>.+)$", o)
    if to and not YOU.search(o) and content_words(o) >= 2:
        # "I like to come to this spot by the water": what they like doing
        subject = episode_subject(to["rest"]) or to["v"].lower()
        return [found("preference.like", f"User {verb} {third(o)}", PREF, subject)]
    if not usable(o) or re.match(r"(?i)^(?:the way|how|when|what|that|working with you)\b", o):
        return []
    subjects = preference_subjects(_RECEIVING.sub("", o), topic_first=False)
    return [found("preference.like", f"User {verb} {third(o)}", PREF, subjects)]


# "I like getting the summary first": what is liked is the summary first, not the getting.
_RECEIVING = re.compile(r"(?i)^(?:getting|having|receiving|seeing|hearing) (?=\w)")

_DISLIKE = {
    "hate": "hates",
    "dislike": "dislikes",
    "detest": "detests",
    "loathe": "loathes",
    "can not stand": "can't stand",
    "can not bear": "can't bear",
    "do not like": "does not like",
    "do not enjoy": "does not enjoy",
    "do not love": "does not love",
    "am not a fan of": "is not a fan of",
    "am not a big fan of": "is not a big fan of",
    "am not into": "is not into",
}
_DV = alternation(_DISLIKE)


@rule("preference.dislike", rf"^I (?:also |honestly |just |absolutely )?(?P<verb>{_DV}) (?P<o>.+)$")
def _dislike(m: re.Match[str]) -> list[Found]:
    o = tidy(m["o"])
    if not usable(o):
        return []
    verb = _DISLIKE[m["verb"].lower()]
    subjects = preference_subjects(o, topic_first=False)
    return [found("preference.dislike", f"User {verb} {third(o)}", PREF, subjects, polarity=False)]


# "I don't take meetings before 10 a.m.", "I never answer calls after 8": a rule the
# user keeps about what they take on, a standing refusal (a preference, against).
_KEPT_VERBS = (
    "take",
    "accept",
    "book",
    "schedule",
    "answer",
    "check",
    "join",
    "attend",
    "reply to",
    "respond to",
    "work",
)
_KV = alternation(_KEPT_VERBS)


@rule("preference.refusal", rf"^I (?P<neg>do not|never) (?P<verb>{_KV}) (?P<o>.+)$")
def _refusal(m: re.Match[str]) -> list[Found]:
    o = tidy(m["o"])
    if not usable(o) or YOU.search(o) or len(o.split()) > 10:
        return []
    verb = m["verb"].lower()
    said = f"does not {verb}" if m["neg"].lower() == "do not" else f"never {third_person(verb)}"
    subjects = preference_subjects(o, topic_first=False)
    return [found("preference.refusal", f"User {said} {third(o)}", PREF, subjects, polarity=False)]


@rule(
    "preference.fan",
    rf"^I {ADV}am (?P<verb>a (?:big |huge )?fan of|into|obsessed with|passionate about)"
    r" (?P<o>.+)$",
)
def _fan(m: re.Match[str]) -> list[Found]:
    o = tidy(m["o"])
    if not usable(o):
        return []
    subjects = preference_subjects(o, topic_first=False)
    return [found("preference.fan", f"User is {m['verb'].lower()} {third(o)}", PREF, subjects)]


@rule(
    "preference.favorite",
    r"^My (?:all-time |absolute )?(?:favorite|favourite|fav|fave) (?P<what>[\w -]+?)"
    r" (?:is|are|'s) (?P<o>.+)$",
)
def _favorite(m: re.Match[str]) -> list[Found]:
    o = tidy(m["o"])
    what = m["what"].strip().lower()
    if not usable(o):
        return []
    return [
        found(
            "preference.favorite", f"User's favorite {what} is {third(o)}", PREF, f"favorite {what}"
        )
    ]


RULES: tuple[Rule, ...] = (
    _prefer,
    _my_preference,
    _like,
    _dislike,
    _refusal,
    _fan,
    _favorite,
)
