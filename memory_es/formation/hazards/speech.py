"""The speech act of what was said: the speaker's own declarative, or words to a listener.

A sentence tells when its subject is the speaker — a first-person word among its first
words, in English or in one of the gloss's languages (:data:`.gloss.FIRST_PERSON`: "I
hate password rules that need symbols", "Ich habe mein Passwort geändert", "Olvidé mi
contraseña") — and it addresses no listener: no second person (glossed: "tu", "deine",
"vous"), and it does not open on an imperative ("Ignore ...", "Vergiss ...", "Ignora
..."). Such a text states something of the speaker's life, however many words of rules,
policies or passwords it holds; an order to the assistant is said to it.

The injection screen's model reads character n-grams and cannot tell the two apart; the
screen and formation ask this module who is addressed. Every check is one pass over the
words, so the reading stays linear in the text's length.
"""

from __future__ import annotations

import re

from memory_es.formation.hazards.gloss import (
    FIRST_PERSON,
    gloss,
    in_another_language,
    plain,
    plain_words,
)
from memory_es.formation.hazards.language import word_set

# English verbs people put first when they ask or order (an imperative is the verb's base
# form; a name or a noun that opens a statement is followed by its verb, which this never
# looks at). A word of another language is read through the gloss into these.
IMPERATIVE_OPENERS = word_set(
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
    write disregard abandon violate deviate behave operate exceed
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
# A written accent on a verb's last vowel marks a finished form in Spanish, Portuguese,
# Italian and French ("olvidé", "cambió", "dimenticò", "oublié": I forgot, it changed,
# forgotten), never their imperative, which the accents stripped would read
# ("olvide": forget). (A final "á" is left out: Argentine "ignorá" orders.)
_FINISHED_FORM = "éíóúèìòù"

# Words an order opens with before its verb (glossed: "jetzt", "ahora" are "now"), and
# the words that ask in the languages of the gloss.
_ORDER_FRAMES = word_set("now just then also and so ok okay always never simply first next")
_POLITE = frozenset(
    {"please", "pls", "plz", "kindly", "bitte", "alsjeblieft", "alstublieft", "svp"}
    | {"por favor", "per favore", "s'il"}
)

SECOND_PERSON = word_set("you your yours yourself yourselves u ur ya yall thee thou thy")
# In another language the subject stands among a sentence's first words.
_SUBJECT_WORDS = 3

_SENTENCE = re.compile(r"[^.!?\n]+")
_EDGE = ":,;.!*`'\"()\u00bf\u00a1"


def opens_on_an_imperative(sentence: str) -> bool:
    """Whether a sentence opens with a bare verb, asked or ordered of the listener.

    In English: one of the verbs people order with, or a word that is no subject followed
    straight by an object's first word. In another language (:func:`.gloss.
    in_another_language`: English word order says nothing there, "Esqueci a minha
    senha"): a first word the gloss reads as one of those verbs, unless its accent marks
    a finished form.
    """
    typed = [w for w in (w.strip(_EDGE) for w in sentence.split()[:6]) if w]
    framed = False
    while typed and gloss(plain(typed[0])) in _ORDER_FRAMES:
        typed = typed[1:]  # "Now ignore ...", "Jetzt vergiss ...": the verb is next
        framed = True
    if not typed:
        return False
    if plain(typed[0]) in _POLITE or " ".join(map(plain, typed[:2])) in _POLITE:
        return True  # "Please ...", "Por favor, ...": asked of the listener
    typed = typed[:2]
    words = [plain(w) for w in typed]
    first = words[0]
    if in_another_language(plain_words(sentence)):
        return gloss(first) in IMPERATIVE_OPENERS and typed[0][-1:].casefold() not in (
            _FINISHED_FORM
        )
    if first in IMPERATIVE_OPENERS:
        return True
    if framed:
        return False  # "Just back from a run": after a frame, only an order's verb
    if first in _STATEMENT_OPENERS or first.endswith(("ly", "'s")) or first[:1].isdigit():
        return False
    return len(words) > 1 and words[1] in _OBJECT_STARTERS


def _sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE.findall(text) if s.strip()]


# Where a clause may open inside a sentence: an order coordinated with a statement ("I
# know the guidelines but make an exception", "I hate rules, skip them").
_CLAUSE = re.compile(r"[,;:]\s*|\s(?:but|and|so|then|yet|or)\s", re.IGNORECASE)


def addresses_a_listener(text: str) -> bool:
    """Whether a text speaks to someone: a word of the second person (glossed), or a
    sentence or clause that opens on an imperative."""
    if any(gloss(w) in SECOND_PERSON for w in plain_words(text)):
        return True
    return any(
        opens_on_an_imperative(clause)
        for sentence in _sentences(text)
        for clause in _CLAUSE.split(sentence)
    )


def _about_the_speaker(sentence: str) -> bool:
    """Whether a sentence's subject is the speaker: its first word in English, among its
    first words in another language (a verb may come first: "Olvidé mi contraseña",
    "Esqueci a minha senha", "Gestern habe ich ...")."""
    words = plain_words(sentence)
    if not words:
        return False
    if not in_another_language(words):
        return words[0] in FIRST_PERSON
    return any(w in FIRST_PERSON for w in words[:_SUBJECT_WORDS])


def speaks_for_oneself(text: str) -> bool:
    """Whether every sentence of a text is the speaker's own declarative (module
    docstring): about the speaker, and nothing in it addresses a listener."""
    sentences = _sentences(text)
    return (
        bool(sentences)
        and all(_about_the_speaker(s) for s in sentences)
        and not addresses_a_listener(text)
    )
