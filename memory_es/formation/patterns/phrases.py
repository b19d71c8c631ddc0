"""Phrase handling the rules share: tidying an object, third person, heads, names,
content words and an episode's subject and key.
"""

from __future__ import annotations

import re

from memory_es.formation.patterns.lexicon import (
    CHOICE,
    DET,
    FEELINGS,
    HEAD_CUT,
    LEAD_DET,
    LIGHT,
    LY_NOUNS,
    OBJECT_CUT,
    PREFERENCE_TOPICS,
    PRONOUN_OBJECT,
    SUBJECT_SKIP,
    TRAILING,
    VOCATIVE_TAIL,
    word_set,
)


def tidy(obj: str, *, cut: re.Pattern[str] | None = None) -> str:
    """The object phrase, with trailing reasons, fillers and punctuation removed."""
    obj = obj.strip().strip('"')
    obj = OBJECT_CUT.sub("", obj)
    if cut is not None:
        obj = cut.sub("", obj)
    previous = None
    while previous != obj:
        previous = obj
        obj = TRAILING.sub("", obj)
    return obj.strip()


_PRONOUNS = (
    (re.compile(r"\bmyself\b", re.I), "themselves"),
    (re.compile(r"\bmy\b", re.I), "their"),
    (re.compile(r"\bmine\b", re.I), "theirs"),
    (re.compile(r"\bme\b"), "them"),
    (re.compile(r"\bI am\b"), "they are"),
    (re.compile(r"\bI was\b"), "they were"),
    (re.compile(r"\bI wasn't\b"), "they weren't"),
    (re.compile(r"\bI\b"), "they"),
    (re.compile(r"\bour\b", re.I), "their"),
    (re.compile(r"\bus\b"), "them"),
    (re.compile(r"\bwe are\b", re.I), "they are"),
    (re.compile(r"\bwe\b", re.I), "they"),
)
_TEAM_PRONOUNS = (
    (re.compile(r"\bour\b", re.I), "its"),
    (re.compile(r"\bourselves\b", re.I), "itself"),
    (re.compile(r"\bus\b"), "the team"),
    (re.compile(r"\bwe are\b", re.I), "the team is"),
    (re.compile(r"\bwe have\b", re.I), "the team has"),
    (re.compile(r"\bwe\b", re.I), "the team"),
)


def third(obj: str, *, team: bool = False) -> str:
    # A quoted string, an address or a link keeps its words (``speaker_as_user``).
    out: list[str] = []
    pos = 0
    for kept in _VERBATIM.finditer(obj):
        out.extend((_third(obj[pos : kept.start()], team=team), kept[0]))
        pos = kept.end()
    out.append(_third(obj[pos:], team=team))
    return "".join(out)


def _third(obj: str, *, team: bool) -> str:
    for pattern, replacement in _TEAM_PRONOUNS if team else _PRONOUNS:
        obj = pattern.sub(replacement, obj)
    return obj


def indefinite(obj: str) -> str:
    """ "my Apple Watch" -> "an Apple Watch": what the user had, not whose it is."""
    m = re.match(r"(?i)^(?:my|our|the)\s+(?:own\s+)?(.+)$", obj)
    if m is None:
        return obj
    rest = m.group(1)
    if re.match(r"(?i)^(?:\d|two|three|four|five|several|some|many)\b", rest) or re.search(
        r"(?i)s$", rest.split()[-1]
    ):
        return rest if not rest.split()[-1].lower().endswith("ss") else article(rest)
    return article(rest)


def article(rest: str) -> str:
    return ("an " if re.match(r"(?i)^[aeiou]", rest) else "a ") + rest


def head(obj: str) -> str:
    """The subject a phrase is about: determiners off, cut at the first preposition."""
    h = LEAD_DET.sub("", obj.strip())
    h = HEAD_CUT.sub("", h)
    h = re.sub(r"(?i)\s+(?:installed|set up|configured|running)$", "", h)
    words = h.split()
    return " ".join(words[:4]).strip(" ,.;:!?'\"")


_LOWER_WORDS = frozenset(
    ["of", "the", "and", "de", "la", "le", "du", "von", "van", "der", "in", "on", "upon"]
)


def proper(name: str) -> str:
    """Casual typing of a place or company ("berlin") read as its name ("Berlin")."""
    if name != name.lower() or re.match(rf"(?i)^{DET}\b", name) or len(name.split()) > 3:
        return name
    words = name.split()
    return " ".join(
        w if (i and w in _LOWER_WORDS) else w[:1].upper() + w[1:] for i, w in enumerate(words)
    )


def usable(obj: str) -> bool:
    return (
        bool(obj)
        and not PRONOUN_OBJECT.match(obj)
        and not CHOICE.match(obj)
        and len(obj.split()) <= 16
    )


def split_list(obj: str) -> list[str]:
    """'an Apple Watch and a Garmin bike computer' -> two items, when it reads as a list."""
    parts = [p.strip() for p in re.split(r"\s*,\s*(?:and\s+)?|\s+and\s+", obj) if p.strip()]
    if len(parts) < 2 or any(len(p.split()) > 5 for p in parts):
        return [obj]
    if not all(re.match(rf"(?i)^{DET}\b", p) or p[:1].isupper() for p in parts[1:]):
        return [obj]
    return parts


def content_words(text: str) -> int:
    """Content words, a name or a number counting twice ("in Chicago" is enough)."""
    words = re.findall(r"[A-Za-z][A-Za-z'-]*", text)
    return sum(
        2 if w[0].isupper() else 1
        for w in words
        if len(w) > 2
        and w.lower() not in LIGHT
        and (not w.lower().endswith("ly") or w.lower() in LY_NOUNS)
    ) + 2 * len(re.findall(r"\b\d+\b", text))


EPISODE_KEY_PREFIX = "episode/"


def episode_key(statement: str) -> str:
    return f"{EPISODE_KEY_PREFIX}{statement.rstrip('.')}"


def episode_subject(obj: str) -> str:
    """What an episode is about: its object's head, past particles and verb chains
    ("been volunteering at the animal shelter" -> "animal shelter")."""
    words = obj.split()
    i = 0
    while i < len(words) - 1:
        w = words[i].lower().strip(",.")
        after_det = i > 0 and words[i - 1].lower() in ("a", "an", "the", "my", "their", "our")
        gerund = w.endswith("ing") and len(w) > 4 and not after_det
        if w in SUBJECT_SKIP or w in FEELINGS or gerund:
            i += 1
        elif i and words[i - 1].lower() == "to" and words[i].islower():
            i += 1  # "to run a marathon": the verb after "to"
        else:
            break
    return _EPISODE_HEAD_CUT.sub("", head(" ".join(words[i:])))


_EPISODE_HEAD_CUT = re.compile(
    r"\s+(?:I|they|last|next|this|yesterday|today|tomorrow|tonight|every|ago|together)\b.*$"
)


def preference_subject(obj: str) -> str:
    return preference_topic(obj) or head(obj)


def preference_topic(obj: str) -> str | None:
    for topic, pattern in PREFERENCE_TOPICS:
        if pattern.search(obj):
            return topic
    return None


# What a preference is for, said at its end: "checklists over long prose in plans".
_PREFERENCE_DOMAIN = re.compile(r"(?i)\s(?:in|for) (?P<domain>[a-z]+s)$")
# Words a head may end in that name no thing ("the summary first").
_NOT_NOUNS = word_set("first last after before more less now only too ones")


def without_modifier(phrase: str) -> str:
    """A head without its first modifier ("vegetable garden" -> "garden", "blunt code
    reviews" -> "code reviews"): a second subject; "" when the head is one word, or what
    is left is no common noun ("Apple Watch", "sailboat I keep")."""
    words = phrase.split()
    if len(words) < 2 or words[-1].lower() in _NOT_NOUNS:
        return ""
    if not all(w.replace("-", "").isalpha() and w.islower() for w in words[1:]):
        return ""
    return " ".join(words[1:])


def preference_subjects(obj: str, *, topic_first: bool) -> tuple[str, ...]:
    """A preference's subjects: what it is for, when its end says so ("... in plans");
    then, for the prefer rule, the topic the catalogue files it under (its slot: "I
    prefer short paragraphs now" replaces "I prefer bullet points"); else the phrase's
    head, that head without its first modifier ("blunt code reviews" -> "code reviews",
    "morning reminders" -> "reminders": the thing the quality is of) and the topic last
    ("I like tea" and "I like coffee" are two likes, not an update)."""
    domain = _PREFERENCE_DOMAIN.search(obj)
    topic = preference_topic(obj)
    phrase = head(obj)
    bare = without_modifier(phrase)
    named = domain["domain"] if domain and domain["domain"].lower() not in _NOT_NOUNS else None
    if topic_first and topic:
        ordered: tuple[str | None, ...] = (named, topic)
    else:
        ordered = (named, phrase, bare, topic)
    out: list[str] = []
    for subject in ordered:
        if subject and subject.lower() not in (s.lower() for s in out):
            out.append(subject)
    return tuple(out)


_RETRACTION_TAIL = re.compile(r"(?i)\s+(?:any ?more|any longer)[\s.!,;:]*$")


def trim_clause(clause: str) -> str:
    tail = _RETRACTION_TAIL.search(clause)  # "... anymore" is what makes a retraction
    kept = " anymore" if tail else ""
    clause = clause[: tail.start()] if tail else clause
    previous = None
    while previous != clause:
        previous = clause
        clause = TRAILING.sub("", clause)
    return clause.strip() + kept


def vocative(sentence: str) -> tuple[int, int] | None:
    """The span of the name a sentence is addressed to (", Caroline" in "That's great,
    Caroline!"), or None: a capitalized name after a comma at the end, the word before
    it lowercase (so "I live in Portland, Oregon" is no vocative)."""
    m = VOCATIVE_TAIL.search(sentence)
    if m is None:
        return None
    before = sentence[: m.start()].split()
    if not before or not before[-1][:1].islower():
        return None
    end = m.start() + len(m.group(0).rstrip(" .!\u2026"))
    return m.start(), end


# -- the speaker as "User": a sentence in the user's own words, said of them -----------
#
# "me", "my", "mine" name the speaker as "User"; "myself" is "themselves" ("expressing
# themselves", never "expressing User"); the other first-person words read in the third
# person (``third``). Nothing else is rewritten: a quoted string is someone's words as
# said, an address or a link is a token ("me@example.org", "www.my-site.org"), and "me"
# after a modifier is a noun ("a new me", "the real me").
_VERBATIM = re.compile(r'"[^"]*"|`[^`]*`|\S*@\S+|\S*://\S+|\bwww\.\S+')
_SPEAKER = re.compile(r"(?<![\w@/.'-])(?:me|my|mine|myself)(?![\w@/'-]|\.\w)", re.I)
ME_MODIFIERS = word_set(
    "the a an this that new old real true younger older better best future past former "
    "inner whole happier healthier other same usual"
)
# The noun "me" as ``third`` must not read it, put back after it ran.
_NOUN_ME = "m\u2060e"
_AS_USER = {"my": "User's", "mine": "User's", "me": "User", "myself": "themselves"}


def speaker_as_user(text: str) -> str:
    """``text`` said of the user: "it brings me joy" -> "it brings User joy"."""
    out: list[str] = []
    pos = 0
    for kept in _VERBATIM.finditer(text):
        out.extend((_speaker_words(text[pos : kept.start()], text[:pos]), kept[0]))
        pos = kept.end()
    out.append(_speaker_words(text[pos:], text[:pos]))
    return third("".join(out)).replace(_NOUN_ME, "me")


def _speaker_words(part: str, before_part: str) -> str:
    def rewrite(m: re.Match[str]) -> str:
        before = (before_part + part[: m.start()]).split()
        low = m[0].lower()
        if low == "me" and before and before[-1].lower() in ME_MODIFIERS:
            return _NOUN_ME  # "a new me": a noun, not the speaker as object
        return _AS_USER[low]

    return _SPEAKER.sub(rewrite, part)
