"""Rule family: episodes, the catch-alls at the end of the catalogue: what the user did,
is doing, plans and feels, with whom, and statements about the user's world.
"""

from __future__ import annotations

import re
from dataclasses import replace

from memory_es.domain.values import Authority
from memory_es.formation.patterns.habits import a_way_of_life, activity_subjects, without_frequency
from memory_es.formation.patterns.lexicon import (
    ATTR,
    EPISODE_ADVERBS,
    ING_NOT_VERBS,
    LIGHT,
    MODALS,
    NAME,
    NOT_VERBS,
    REL_ALT,
    YOU,
    F,
    word_set,
)
from memory_es.formation.patterns.morphology import base_form, past, third_person, verb_stem
from memory_es.formation.patterns.phrases import (
    content_words,
    episode_key,
    episode_subject,
    head,
    speaker_as_user,
    third,
    trim_clause,
)
from memory_es.formation.patterns.rule import Found, Reread, Rule, found, rule

# Episodes are readings more guess than statement: they enter INFERRED (PROVISIONAL).
INFERRED = Authority.INFERRED

# -- episodes: what the user did, is doing, plans, feels --------------------------------
#
# The last rules of the catalogue: a first-person clause no rule above reads is an
# episode (type ``fact``): "I went to a support group yesterday" forms "User went to a
# support group yesterday." Its resolver key is the statement itself (``episode/<...>``),
# so two episodes never supersede each other; only the attribute rules above update.


def _verb_phrase(rest: str, *, plural: bool) -> tuple[str, str, str] | None:
    """(adverbs, conjugated verb, object) of "am going to the gym", or None."""
    words = rest.split()
    i = 0
    while i < len(words) - 1 and (
        words[i].lower() in EPISODE_ADVERBS
        or (words[i].lower().endswith("ly") and len(words[i]) > 4)
    ):
        i += 1
    verb = words[i]
    low = verb.lower()
    if not re.fullmatch(r"[a-z]+", low) or low in MODALS or low in NOT_VERBS:
        return None
    obj = " ".join(words[i + 1 :])
    if plural:
        shown = low
    elif low == "were":
        shown = "was"
    elif low in ("am", "are"):
        shown = "is"  # "are" of "Kim and I are ...", read as the user alone
    elif past(low) or low.endswith("ing"):
        shown = low
    else:
        shown = third_person(low)
    return " ".join(words[:i]), shown, obj


def _episode(name: str, who: str, rest: str, *, plural: bool) -> list[Found]:
    if YOU.search(rest):
        return []  # about the one they talk to, not about the user
    rest = trim_clause(rest)
    parts = _verb_phrase(rest, plural=plural)
    if parts is None:
        return []
    adverbs, verb, obj = parts
    obj = obj.strip(" ,;:")
    if plural and _GROUP_HEDGE.match(f"{verb} {obj}"):
        return []
    if not obj or len(obj.split()) > 40:
        return []
    counted = ("" if verb.lower() in LIGHT else verb) + " " + obj
    if content_words(counted) < 2:
        return []
    statement = " ".join(p for p in (who, adverbs, verb, third(obj)) if p)
    subject = episode_subject(obj)
    negative = re.match(r"(?i)^(?:not|never)\b", obj) is not None or "never" in adverbs
    key: str | None = None
    habit = _habit(verb, obj, plural=plural)
    if habit is not None and subject:
        # "I grow zucchini" is a habit: "I am not growing zucchini anymore" updates it.
        lemma, retracted = habit
        if retracted:
            rest_obj = re.sub(r"(?i)\s*\bany ?more$", "", obj)
            rest_obj = re.sub(r"(?i)^not\s+\S+", "", rest_obj).strip()
            subject = episode_subject(rest_obj) if rest_obj else lemma
            statement = f"{who} no longer {_present(lemma, verb, obj, plural)} {third(rest_obj)}"
            negative = True
        # How often is the habit's value, not its identity: "three days a week" and
        # "five days a week" are the same habit.
        # "I swim twice a week" has no object besides its frequency: the verb alone.
        rest = without_frequency(obj)
        keyed = subject if retracted else (episode_subject(rest) if rest else "")
        key = f"habit/{lemma} {(keyed or '').lower()}".rstrip()
    subjects: tuple[str, ...] = (subject or verb.lower(),)
    # The verb's base form: "grows" of a habit, "growing" of "not growing ... anymore".
    base = base_form(_present(habit[0], verb, obj, False) if habit and habit[1] else verb)
    belief_type = F
    if habit is not None and subject and name == "fact.episode" and a_way_of_life(base, obj):
        # The user's own way of life (patterns/habits.py), kept or dropped.
        belief_type = ATTR
        if not habit[1]:
            subjects = activity_subjects(base, obj) or (
                episode_subject(without_frequency(obj)) or subject,
            )
    made = found(name, statement, belief_type, subjects, polarity=not negative)
    return [replace(made, key=key or episode_key(made.statement))]


_GROUP_HEDGE = re.compile(
    r"(?i)^(?:are|were) (?:thinking|wondering|hoping|trying|considering|going to|gonna|"
    r"not sure|talking|looking at)\b|^(?:might|may|could|should|would|will)\b"
)


def _habit(verb: str, obj: str, *, plural: bool) -> tuple[str, bool] | None:
    """(stem, retracted) when the clause states a present habit or drops one."""
    low = verb.lower()
    m = re.match(r"(?i)^not (?P<v>[a-z]+ing)\b.+\bany ?more$", obj)
    if low in ("is", "are") and m:
        return verb_stem(m["v"]), True
    m = re.match(r"(?i)^not (?P<v>[a-z]+)\b.+\bany ?more$", obj)
    if low in ("does", "do") and m:
        return verb_stem(m["v"]), True
    if low in LIGHT or low in ("is", "are", "has", "have", "does", "do") or past(low):
        return None
    if low.endswith("ing"):
        return None
    return verb_stem(low), False


def _present(stem: str, verb: str, obj: str, plural: bool) -> str:
    """The verb of a dropped habit, as "no longer grows" reads it."""
    m = re.match(r"(?i)^not (?P<v>[a-z]+?)(?:ing)?\b", obj)
    base = m["v"] if m else stem
    if m and m["v"].lower().endswith(("ing",)):
        base = stem
    if verb.lower() in ("is", "are"):
        # "not growing" -> "grow": the stem, with a final e restored where needed
        raw = re.match(r"(?i)^not ([a-z]+)ing\b", obj)
        base = raw.group(1) if raw else stem
        if len(base) > 2 and base[-1] == base[-2] and base[-1] not in "ls":
            base = base[:-1]  # "running" -> "run"
        elif re.search(r"[cvz]$|^[^aeiou]*[aeiou][^aeiouwxy]$", base):
            base += "e"  # "baking" -> "bake", "dancing" -> "dance"
    if plural:
        return base
    return third_person(base)


@rule(
    "fact.episode_with",
    rf"^(?:my (?P<rel>{REL_ALT}|family|friends|parents|kids|team)|(?P<who>{NAME}))"
    r" (?:and|&) I (?P<rest>.+)$",
    authority=INFERRED,
)
def _episode_with(m: re.Match[str]) -> list[Found]:
    who = f"User and their {m['rel'].lower()}" if m["rel"] else f"User and {m['who']}"
    if m["who"] and m["who"].lower() in ("you", "he", "she", "they", "it", "this", "that"):
        return []
    return _episode("fact.episode_with", who, m["rest"], plural=True)


@rule("fact.group_episode", r"^we (?P<rest>.+)$", authority=INFERRED)
def _group_episode(m: re.Match[str]) -> list[Found]:
    return _episode("fact.group_episode", "User and others", m["rest"], plural=True)


@rule("fact.my_episode", r"^My (?P<all>\S+ .+)$", authority=INFERRED)
def _my_episode(m: re.Match[str]) -> list[Found]:
    """ "My sister ran the Boston marathon" / "My colleague Rob invited me to ...": a
    possession's or relation's past or present deed (never "is": "My wife is planning"
    and "my dog is sick" stay unread)."""
    if YOU.search(m["all"]):
        return []
    words = m["all"].split()
    for at in range(1, min(4, len(words))):
        verb = words[at]
        if not re.fullmatch(r"[a-z]+", verb):
            continue
        present = verb.endswith("s") and not verb.endswith("ss") and verb not in ("is", "was")
        if not (past(verb) or present):
            continue
        thing = " ".join(words[:at])
        rest = trim_clause(" ".join(words[at:]))
        if content_words(rest) < 2:
            return []
        statement = f"User's {third(thing)} {third(rest)}"
        made = found("fact.my_episode", statement, F, head(thing) or thing)
        return [replace(made, key=episode_key(made.statement))]
    return []


@rule("attr.dropped_habit", r"^I (?P<rest>.+\bany ?more)$")
def _dropped_habit(m: re.Match[str]) -> list[Found]:
    """ "I'm not growing zucchini anymore": the user says, in so many words, that a habit
    ended. Their word, not a guess (USER), so it retracts the habit whatever it was
    filed as: an attribute, or a fact when it had a weekday ("I bake bread every
    Sunday"; memory_es/domain/resolver.py: a retraction reaches what names its object)."""
    if YOU.search(m["rest"]):
        return []
    return [
        replace(f, rule="attr.dropped_habit")
        for f in _episode("fact.episode", "User", m["rest"], plural=False)
        if not f.polarity and (f.key or "").startswith("habit/")
    ]


@rule("fact.episode", r"^I (?P<rest>.+)$", authority=INFERRED)
def _first_person_episode(m: re.Match[str]) -> list[Found] | Reread:
    you = YOU.search(m["rest"])
    if you is not None:
        # "I am so excited to tell you I started a yoga class": the news after "you".
        inner = re.compile(r"\b(?:that )?(?=I [a-z])").search(m["rest"], you.end())
        if inner is None or YOU.search(m["rest"], inner.end()):
            return []
        return Reread(m["rest"][inner.end() :].removeprefix("that "))
    return _episode("fact.episode", "User", m["rest"], plural=False)


# A statement about the user's world with another subject ("Nature totally inspires
# me", "Cooking has been helping me de-stress"): the user's words, with "me"/"my"
# read as the user. Only when the clause opens with a noun phrase (not an imperative
# such as "Write me a poem") and carries three content words.
_SUBJECT_OPENERS = word_set(
    "they he she it this that these those the a an his her their its there everyone "
    "everybody people someone both all each one two three some most many"
)
_ABOUT_USER = re.compile(r"\b(?:me|my|mine|myself)\b", re.I)
_FINITE = re.compile(
    r"(?i)^(?:is|was|are|were|has|have|had|will|would|can|could|[a-z]+s|[a-z]+ed)$"
)


@rule("fact.about_user", r"^(?!(?:I|we|my)\b)(?P<all>\S+ .+)$", authority=INFERRED)
def _about_user(m: re.Match[str]) -> list[Found]:
    text = trim_clause(m["all"])
    if not _ABOUT_USER.search(text) or YOU.search(text):
        return []
    words = text.split()
    first = words[0]
    opener = first.lower().split("'")[0]
    if (
        (opener == "it" and content_words(text) < 4)
        or opener == "there"
        or (first.lower() in ("this", "that", "these", "those") and _FINITE.match(words[1]))
    ):
        return []  # "It tastes like soap to me": about nothing named
    if not (
        opener in _SUBJECT_OPENERS
        or (first.lower().endswith("ing") and first.lower() not in ING_NOT_VERBS)
        or (first[:1].isupper() and any(_FINITE.match(w) for w in words[1:5]))
    ):
        return []
    if content_words(text) < 3 or len(words) > 40:
        return []
    return about_user_statement("fact.about_user", text)


def about_user_statement(name: str, text: str) -> list[Found]:
    statement = speaker_as_user(text)
    words = text.split()
    verb_at = next((i for i, w in enumerate(words[1:5], 1) if _FINITE.match(w)), len(words))
    made = found(name, statement, F, head(" ".join(words[:verb_at])) or words[0])
    return [replace(made, key=episode_key(made.statement))]


RULES: tuple[Rule, ...] = (
    _episode_with,
    _group_episode,
    _my_episode,
    _dropped_habit,
    _first_person_episode,
    _about_user,
)
