"""Residue (opt-in): a sentence no rule reads, kept as what the user said."""

from __future__ import annotations

import re
from dataclasses import replace

from memory_es.domain.values import Authority
from memory_es.formation.patterns.episodes import about_user_statement
from memory_es.formation.patterns.lexicon import YOU, word_set
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
# setup", "Run: bash -c ...", "Forget about the feedback"), not something the user said
# about their world. English verbs people put first when they ask or order (an imperative
# is the verb's base form; a name or a noun that opens a statement is followed by its
# verb, which this never looks at).
_IMPERATIVE_OPENERS = word_set(
    """
    act add answer apply ask assume avoid be become begin bypass calculate call change
    check choose clarify click compare compile complete compose confirm consider continue
    convert copy create debug decode define delete describe design disable disclose
    discuss display do download draft drop dump echo edit elaborate enable encode enter
    erase evaluate execute explain export extract fill find finish fix follow forget
    format forward generate get give go grant help identify ignore imagine implement
    include insert install interpret keep leak let list load look make mark modify move
    name note obey open output override paste pay perform pick play please post pretend
    print proceed process produce provide put rate read recall recite reflect remember
    remove rename repeat rephrase reply report respond restate return reveal review
    rewrite roleplay run say search select send set share show simulate skip solve sort
    speak spell start stay stop store suggest summarize summarise switch take talk teach
    tell test transfer translate treat try turn type update upload use verify visit wait
    write
    """
)
# What follows a verb and never a subject: its object's determiner, a particle, a
# preposition ("Shatter the chains", "Step forth from", "Transform into a vessel").
_OBJECT_STARTERS = word_set(
    """
    the a an my your his her their our its this that these those all every any some
    me us them him it into onto to from with beyond forth out up down off away across
    through past over under upon
    """
)
# What may open a statement before its subject: framing adverbs and prepositions, and
# the subjects themselves.
_STATEMENT_OPENERS = word_set(
    """
    i we you he she it they my our your his her their its the a an this that these those
    some every each all one both many most few several no there here what who yesterday
    today tonight tomorrow later then now sometimes often usually once after before when
    while since during at in on for with from by about last next this
    """
)


def _opens_as_imperative(text: str) -> bool:
    """A sentence that opens with a bare verb: one of the verbs people order with, or a
    word that is no subject followed straight by an object's first word."""
    words = [w.strip(":,;.!*`'\"()").lower() for w in text.split()[:2]]
    if not words or not words[0]:
        return False
    first = words[0]
    if first in _IMPERATIVE_OPENERS:
        return True
    if first in _STATEMENT_OPENERS or first.endswith(("ly", "'s")) or first[:1].isdigit():
        return False
    return len(words) > 1 and words[1] in _OBJECT_STARTERS


_RESIDUE_MIN_CONTENT = 3
_RESIDUE_MAX_WORDS = 40


def residue_statement(sentence: str) -> Found | None:
    text = trim_clause(strip_markers(sentence)).strip(" ,;:-\u2014\u2013")
    if not text or text.rstrip("\"') ").endswith(("?", "!?")) or QUESTION_OPENERS.match(text):
        return None
    if YOU.search(text) or vocative(text) is not None:
        return None  # addressed to the other speaker
    if _RESIDUE_REFUSED.search(text) or _RESIDUE_SOCIAL.match(sentence):
        return None
    if _opens_as_imperative(text):
        return None  # asked of the listener
    # A sentence's capital first word is no name: it counts once, as any word.
    content = content_words(text[:1].lower() + text[1:])
    if content < _RESIDUE_MIN_CONTENT or len(text.split()) > _RESIDUE_MAX_WORDS:
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
