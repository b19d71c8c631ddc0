"""Residue (opt-in): a sentence no rule reads, kept as what the user said."""

from __future__ import annotations

import re
from dataclasses import replace

from memory_es.domain.values import Authority
from memory_es.formation.hazards.speech import opens_on_an_imperative
from memory_es.formation.patterns.episodes import about_user_statement
from memory_es.formation.patterns.lexicon import YOU
from memory_es.formation.patterns.phrases import content_words, episode_key, trim_clause, vocative
from memory_es.formation.patterns.rule import Found
from memory_es.formation.text import QUESTION_OPENERS, strip_markers

# -- residue: what the user said that no rule reads (opt-in) ---------------------------
#
# Conversation carries facts no first-person pattern reads ("They're called Peruvian
# Lilies", "It's a mix of drama and romance"). With the residue on, such a sentence is
# kept as a belief of type ``fact`` saying what the user said ("User said: ..."), keyed
# by its statement like an episode, so it never supersedes anything. It is refused when
# it asks, hedges, requests, speaks about the other party, carries a redaction, or says
# too little; the secrets screen has run before any of this.
_RESIDUE_REFUSED = re.compile(
    r"(?i)\b(?:maybe|perhaps|probably|might|may|could|should|would|if|unless|whether|"
    r"not sure|thinking (?:of|about)|wondering|considering|guess|suppose|hopefully|"
    r"please|remind|remember|write (?:that|this|it) down|let's|let me|lemme|"
    r"nothing is decided|not decided|undecided)\b"
    r"|^\W*(?:ok|okay|sure|yes|yeah|yep|no|nope|wow|haha|lol|aw+|oh)\b"
)
# Social formulas say nothing of the user, whatever follows them ("Thanks for the photos
# from the coast"); an interjection only opens a sentence ("Yeah, the kids loved the
# beach"), so it is judged once the markers are stripped.
_RESIDUE_SOCIAL = re.compile(
    r"(?i)^\W*(?:thanks|thank|hi|hey|hello|bye|goodbye|congrats|congratulations|sorry)\b"
)
_RESIDUE_LOWER = re.compile(
    r"(?:The|A|An|It|Its|It's|He|He's|She|She's|They|They're|Their|This|That|These|Those|"
    r"There|Our|We|We're|Some|Every|Each|All|One|First|Last|Next|Just|Back)\b"
)
# A sentence that opens with a bare verb is a request to whoever listens ("Describe the
# setup", "Run: bash -c ...", "Forget about the feedback", "Olvida mis datos"), not
# something the user said about their world (memory_es/formation/hazards/speech.py).


_RESIDUE_MIN_CONTENT = 3
# A sentence whose subject is the speaker's own thing, said of it with a copula ("My
# password is way too long", "Our flat was tiny"), is about the speaker with two content
# words: its subject carries the third.
_OWN_SUBJECT = re.compile(
    r"(?i)^(?:my|our)\s(?:[\w-]+\s){1,2}(?:is|are|was|were|has|have|had|feels?|looks?|"
    r"seems?|gets?|got|keeps?)\b"
)
_RESIDUE_MAX_WORDS = 40

# -- what a residue line must carry ------------------------------------------------------
#
# Most of what no rule reads in conversation is talk about talk: verdicts ("It's a real
# gift"), maxims ("Music can be inspiring"), reactions to the other speaker's news ("I bet
# they bring lots of joy") and comments on a shared photo ("Those colors are vivid"). A
# residue line stays only when its sentence is about the speaker or their world: it names
# the speaker (I, my, we, our) outside a reaction frame, or something particular (a name,
# a number). A turn of such sentences only keeps one line (its fullest), so the turn stays
# reachable by its words (the context a residue line indexes), once.
_SPEAKER = re.compile(
    r"\b(?:I|I['\u2019][a-z]+|[Mm]e|[Mm]y|[Mm]ine|[Mm]yself|[Ww]e|[Ww]e['\u2019][a-z]+|[Oo]urs?|[Uu]s)\b"
    # "the kids", "the dog": a household's own, named without "my"
    r"|(?i:\bthe\s+(?:kids?|children|family|baby|wife|husband|partner|boys|girls|twins|"
    r"dogs?|cats?|pups?|puppy|puppies|kitten))\b"
)
# Frames that react to what the other speaker said; what follows them is about the other.
_REACTION_FRAME = re.compile(
    r"(?i)^(?:i\s*)?(?:"
    r"(?:bet|hope|wish|agree|understand|can(?:no|['\u2019])?t?\s+(?:imagine|see|wait))"
    r"|(?:am|['\u2019]m)\s+(?:so\s+|really\s+|super\s+)?(?:glad|happy|sure|sorry|proud)"
    r"|(?:really\s+)?(?:love|like|know|think|believe|admire|appreciate)\s+(?:that|how|what|it|this)"
    r")\b"
)
# A digit, a capital past the sentence's first word ("I" aside), or a time: a name, a
# number, an event dated ("the beach trip last weekend").
_PARTICULAR = re.compile(
    r"\d|(?<=\s)(?!I\b|I['\u2019])[A-Z]"
    r"|(?i:\b(?:yesterday|today|tonight|tomorrow|ago|last\s+(?:night|week|weekend|month|year|"
    r"summer|winter|spring|fall|autumn|mon|tue|wed|thu|fri|sat|sun)\w*|this\s+(?:morning|"
    r"afternoon|evening|week|weekend|month|year))\b)"
)


def carries_nothing(text: str) -> bool:
    """Whether a sentence no rule read says nothing of the speaker or their world."""
    frame = _REACTION_FRAME.match(text)
    rest = text[frame.end() :] if frame else text
    return _SPEAKER.search(rest) is None and _PARTICULAR.search(rest) is None


def residue_statement(sentence: str) -> Found | None:
    """What the user said that no rule read, as a line, or None when it is no statement;
    :func:`carries_nothing` tells the caller whether it carries anything."""
    text = trim_clause(strip_markers(sentence)).strip(" ,;:-\u2014\u2013")
    if not text or text.rstrip("\"') ").endswith(("?", "!?")) or QUESTION_OPENERS.match(text):
        return None
    if YOU.search(text) or vocative(text) is not None:
        return None  # addressed to the other speaker
    if _RESIDUE_REFUSED.search(text) or _RESIDUE_SOCIAL.match(sentence):
        return None
    if opens_on_an_imperative(text):
        return None  # asked of the listener
    # A sentence's capital first word is no name: it counts once, as any word.
    content = content_words(text[:1].lower() + text[1:])
    least = _RESIDUE_MIN_CONTENT - 1 if _OWN_SUBJECT.match(text) else _RESIDUE_MIN_CONTENT
    if content < least or len(text.split()) > _RESIDUE_MAX_WORDS:
        return None
    made = about_user_statement("fact.said", text)[0]
    said = made.statement
    if _RESIDUE_LOWER.match(said):
        said = said[:1].lower() + said[1:]  # "The move ..." but "Theo ...", "User's ..."
    statement = f"User said: {said}"
    return replace(
        made,
        statement=statement,
        rule="fact.said",
        key=episode_key(statement),
        authority=Authority.INFERRED,
    )
