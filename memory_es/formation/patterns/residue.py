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


def residue_statement(sentence: str) -> Found | None:
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
