"""Digits spelled out, in English, French, Spanish, German, Portuguese, Italian and
Dutch: "four seven two one", "six oh four eight", "quatre sept deux un",
"nine-nine-one-two". A run of three or more such words after a PIN or password word is
a value (context.py)."""

from __future__ import annotations

from memory_es.formation.hazards.secrets.values import words

DIGIT_WORDS = words(
    "zero oh nought naught nil one two three four five six seven eight nine ten eleven twelve "
    "thirteen fourteen fifteen sixteen seventeen eighteen nineteen hundred thousand twenty "
    "thirty forty fifty sixty seventy eighty ninety "
    "zéro un deux trois quatre cinq sept huit neuf dix "
    "cero uno dos tres cuatro cinco seis siete ocho nueve "
    "null eins zwei drei vier fünf sechs sieben acht neun "
    "um dois três quatro sete oito nove due tre quattro cinque sei sette otto "
    "nul een twee drie vijf zes zeven negen"
)
MIN_RUN = 3  # "one of them" is prose; "one two three" a value
# A word that repeats the spelled digit after it ("double four one two"): one digit more,
# and only before a digit word.
MULTIPLIERS = words(
    "double triple doppio doppia triplo dubbel driedubbel doble duplo doppelt doppel"
)


def digit_words(core: str) -> int:
    """How many spelled digits the token is ("nine-nine-one-two": four), or 0."""
    parts = core.casefold().split("-")
    return len(parts) if all(p in DIGIT_WORDS for p in parts) else 0
