"""Verb morphology for the pattern catalogue: third person, past forms and the stem.

The stem is the project's one stemmer (Snowball, ``memory_es.retrieval.tokenizer``), so
"grow", "grows" and "growing" meet in a habit's key exactly as they meet in recall.
"""

from __future__ import annotations

import re

from memory_es.formation.patterns.lexicon import IRREGULAR_PAST
from memory_es.retrieval.tokenizer import stem

_IRREGULAR = {"have": "has", "am": "is", "'m": "is", "do": "does", "go": "goes", "be": "is"}


def third_person(verb: str) -> str:
    """ "live" -> "lives", "have" -> "has", "study" -> "studies"."""
    v = verb.lower()
    if v in _IRREGULAR:
        return _IRREGULAR[v]
    if re.search(r"(?:s|sh|ch|x|z|o)$", v):
        return v + "es"
    if re.search(r"[^aeiou]y$", v):
        return v[:-1] + "ies"
    return v + "s"


# A prefix keeps an irregular past irregular: "retook", "overslept", "outgrew", "undid".
_PAST_PREFIXES = ("re", "un", "mis", "over", "under", "out", "with", "fore", "up")


def past(word: str) -> bool:
    """A past form: an irregular one (with or without a prefix), or a word in -ed."""
    w = word.lower()
    if w in IRREGULAR_PAST or (len(w) > 4 and w.endswith("ed")):
        return True
    return any(
        w.startswith(prefix) and len(w) - len(prefix) >= 3 and w[len(prefix) :] in IRREGULAR_PAST
        for prefix in _PAST_PREFIXES
    )


def verb_stem(verb: str) -> str:
    """The same for "grow"/"grows"/"growing", "run"/"running" (the Snowball stem)."""
    return stem(verb.lower())


_IRREGULAR_BASE = {
    **{third: base for base, third in _IRREGULAR.items() if base not in ("'m", "be")},
    "was": "was",
}


def base_form(verb: str) -> str:
    """The inverse of ``third_person``: "lives" -> "live", "has" -> "have", "studies" ->
    "study", "watches" -> "watch"; a word that is no third person stays as it is."""
    v = verb.lower()
    if v in _IRREGULAR_BASE:
        return _IRREGULAR_BASE[v]
    if re.search(r"[^aeiou]ies$", v):
        return v[:-3] + "y"
    if re.search(r"(?:ss|sh|ch|x|z|o)es$", v):
        return v[:-2]
    if re.search(r"[^su]s$", v) and len(v) > 2:
        return v[:-1]
    return v
