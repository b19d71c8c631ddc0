"""Text handling for the deterministic extractor: casual typing, sentences, clauses.

Pure string work, no knowledge of beliefs. The extractor reads each trusted user turn as
sentences, each sentence as clauses (split at colons, dashes, semicolons, commas and
coordinated first-person clauses), and each clause with its discourse markers
("By the way,", "Also,", "For context:") stripped, so a fact inside a longer sentence
stands at the start of a clause where a pattern can read it.
"""

from __future__ import annotations

import re

from memory_es.formation.hazards.gloss import in_another_language, plain_words

# Casual typing and common typos, as whole words (case-insensitive). The value replaces
# the word; the extractor reads the repaired text, the log keeps what was said.
_TYPOS: dict[str, str] = {
    "i": "I",
    "im": "I'm",
    "ive": "I've",
    "iam": "I am",
    "dont": "don't",
    "doesnt": "doesn't",
    "didnt": "didn't",
    "cant": "can't",
    "cannot": "can't",
    "wont": "won't",
    "isnt": "isn't",
    "were'": "we're",
    "weve": "we've",
    "perfer": "prefer",
    "prefere": "prefer",
    "preffer": "prefer",
    "prefr": "prefer",
    "pefer": "prefer",
    "prfer": "prefer",
    "perfers": "prefers",
    "liek": "like",
    "lik": "like",
    "luv": "love",
    "lvoe": "love",
    "lve": "live",
    "liv": "live",
    "lvie": "live",
    "wrok": "work",
    "wokr": "work",
    "wrk": "work",
    "werk": "work",
    "teh": "the",
    "adn": "and",
    "nad": "and",
    "realy": "really",
    "rly": "really",
    "definately": "definitely",
    "usualy": "usually",
    "alot": "a lot",
    "becuase": "because",
    "bc": "because",
    "cuz": "because",
    "pls": "please",
    "plz": "please",
    "thx": "thanks",
    "ty": "thanks",
    "u": "you",
    "ur": "your",
    "gf": "girlfriend",
    "bf": "boyfriend",
    "hubby": "husband",
    "wfie": "wife",
    "wief": "wife",
    "manger": "manager",
    "compnay": "company",
    "anwsers": "answers",
    "answres": "answers",
    "awnsers": "answers",
    "consice": "concise",
    "concice": "concise",
    "nvim": "Neovim",
    "decied": "decided",
    "decded": "decided",
    "dicided": "decided",
    "desided": "decided",
    "noe": "now",
    "tho": "though",
    "nvm": "never mind",
}
_WORD = re.compile(r"[A-Za-z']+")
# Sentences with their ends kept, for mending each in its own language.
_SENTENCE_PIECES = re.compile(r"(?<=[.!?\n])")

# Contractions the patterns read in their long form (one pass, case-insensitive).
_CONTRACTIONS: dict[str, str] = {
    "i'm": "I am",
    "i've": "I have",
    "i'd": "I would",
    "i'll": "I will",
    "we're": "we are",
    "we've": "we have",
    "we'll": "we will",
    "we'd": "we would",
    "don't": "do not",
    "doesn't": "does not",
    "didn't": "did not",
    "can't": "can not",
    "won't": "will not",
    "isn't": "is not",
    "aren't": "are not",
}
_CONTRACTION = re.compile(r"\b(?:" + "|".join(_CONTRACTIONS) + r")(?![\w'])", re.I)


def repair(text: str) -> str:
    """Straighten quotes, mend casual typing and typos, expand contractions."""
    text = (
        text.replace("\u2019", "'")
        .replace("\u2018", "'")
        .replace("\u201c", '"')
        .replace("\u201d", '"')
        .replace("\u00a0", " ")
    )

    def fix(m: re.Match[str]) -> str:
        word = m.group(0)
        low = word.lower()
        if low in _TYPOS:
            return _TYPOS[low]
        return word

    # A typo fix mends English: a sentence of another language keeps its words (German
    # "im" is "in the", not "I'm").
    text = "".join(
        piece if in_another_language(plain_words(piece)) else _WORD.sub(fix, piece)
        for piece in _SENTENCE_PIECES.split(text)
    )
    text = _CONTRACTION.sub(lambda m: _CONTRACTIONS[m.group(0).lower()], text)
    return re.sub(r"[ \t]+", " ", text)


# Sentence ends: terminal punctuation followed by space (not inside "e.g." or "Dr."),
# and line breaks. A trailing "?" is kept on the sentence so questions can be skipped.
_ABBREVIATIONS = re.compile(r"\b(?:e\.g|i\.e|etc|vs|dr|mr|mrs|ms|st|jr|sr|approx)\.$", re.I)
_SENTENCE_END = re.compile(r"([.!?]+|\u2026)(\s+|$)|\n+")


def sentences(text: str) -> list[str]:
    out: list[str] = []
    buffer = ""
    pos = 0
    for m in _SENTENCE_END.finditer(text):
        piece = text[pos : m.end()]
        pos = m.end()
        buffer += piece
        if _ABBREVIATIONS.search(buffer.rstrip()):
            continue
        if buffer.strip():
            out.append(buffer.strip())
        buffer = ""
    buffer += text[pos:]
    if buffer.strip():
        out.append(buffer.strip())
    return out


# Clause boundaries: a colon before a space (not "9:30", not "CS:GO"), semicolon, dashes,
# parentheses, commas; and a conjunction that opens a new first-person clause ("..., and
# I work at ...", "but my wife is ...").
_CLAUSE_SPLIT = re.compile(
    r"\s*(?:(?<!\d):(?=\s|$)|;|\u2014|\u2013|\s-{1,2}\s|\(|\)|,(?!\d{3}\b))\s*"
    r"|\s+(?=(?:and|but|so|because|since|plus|also|though|although|while|whereas)"
    r"\s+(?:I|my|we|our)\b)"
    # "... and work from home": a coordinated verb whose subject is the "I" before it.
    r"|\s+(?=and\s+(?:also\s+)?(?:work|live|prefer|like|love|use|have|own|speak|play|drive|"
    r"hate|enjoy)\s)"
    # "... and accepted an offer from Quillmark": a coordinated event verb.
    r"|\s+(?=and\s+(?:then\s+|just\s+|finally\s+)?(?:accepted|joined|moved|relocated|"
    r"started|adopted|went)\s)",
    re.I,
)


def clauses(sentence: str) -> list[str]:
    parts = [p.strip() for p in _CLAUSE_SPLIT.split(sentence)]
    return [p for p in parts if p]


# Discourse markers that open a clause without changing what it asserts. Stripped
# repeatedly, so "Oh and by the way, also I ..." reaches "I ...".
_MARKERS = re.compile(
    r"^(?:"
    r"by the way|btw|fyi|for your information|fwiw|for what it'?s worth|"
    r"just so you know|just to let you know|just fyi|for context|some context|"
    r"quick context(?: before we start)?|for the record|for reference|heads up|"
    # "note that" before "note": the longer marker first, or "that I ..." is left.
    r"(?:please )?note that|please note|quick note|side note|note|reminder|update|"
    r"big news|news|good news|fun fact|"
    r"to be honest|honestly|tbh|frankly|actually|basically|anyway|anyways|"
    r"also|and|but|so|plus|oh|ah|well|ok|okay|alright|right|yeah|yes|yep|"
    r"hey|hi|hello|hiya|thanks|thank you|cool|great|sure|lol|haha|"
    r"as you know|as i said|as mentioned|like i said|as i mentioned|"
    r"remember(?: that)?|please remember(?: that)?|keep in mind(?: that)?|"
    r"just remember(?: that)?|(?:please )?do not forget(?: that)?|"
    r"since|because|as|given that|now that|though|although|"
    r"these days|nowadays|currently|right now|at the moment|now|still|"
    r"in general|generally|overall|personally|for me|for the most part|"
    r"ps|p\.s\.?|one more thing|another thing|last thing"
    r")\b[\s,.!:;-]*",
    re.I,
)


def strip_markers(clause: str) -> str:
    previous = None
    clause = clause.strip()
    while previous != clause:
        previous = clause
        clause = _MARKERS.sub("", clause, count=1).strip()
    return clause


# Questions and requests open with these; a clause (or a sentence) that does forms nothing.
QUESTION_OPENERS = re.compile(
    r"^(?:who|what|where|when|why|how|which|whose|whom|"
    r"can|could|would|will|shall|should|do|does|did|is|are|am|was|were|have|has|"
    r"may|might|any idea|is there|are there)\b",
    re.I,
)
