"""Secret words typed with a typo: "pasword", "passwrd", "paswrod", "passcdoe", "pni",
"PIN nuber". A word is a typo of a secret word when an edit distance (optimal string
alignment: insertions, deletions, substitutions and adjacent transpositions) within a
bound that grows with the word's length separates them, and it is no real word of its
own ("passport", "postcode")."""

from __future__ import annotations

from functools import lru_cache

from memory_es.formation.hazards.secrets.cache import patterns
from memory_es.formation.hazards.secrets.values import words

# The secret words a typo is read as, by the kind of context it opens.
TYPO_TARGETS: dict[str, str] = {
    "password": "password",
    "passcode": "password",
    "passwd": "password",
    "passwort": "password",
    "wachtwoord": "password",
    "kennwort": "password",
    "contraseña": "password",
    "senha": "password",
    "pincode": "pin",
    "pin": "pin",
}
# What follows a PIN word as part of it ("PIN number"), typos included.
PIN_SUFFIXES = ("number", "code")
# Real words a bounded edit away from a secret word.
_REAL_WORDS = words(
    "passport passports postcode postcodes passwords passcodes pinecone pincodes pun pan "
    "pen pig pit pie pink pine pint pins nip spin pain paid passed passer passes pastor "
    "password's crossword keyword"
)
# A word that could be a typo of one: it starts as one does (a typo keeps the first letter).
WORD = patterns.compile(
    r"(?i)(?<![\w-])[" + "".join(sorted({t[0] for t in TYPO_TARGETS})) + r"][^\W\d_]{2,11}(?![\w-])"
)


def osa_distance(a: str, b: str, bound: int) -> int:
    """The optimal-string-alignment distance of ``a`` and ``b``, or ``bound + 1`` once
    it must exceed ``bound``."""
    if abs(len(a) - len(b)) > bound:
        return bound + 1
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cost = ca != cb
            best = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                best = min(best, previous2[j - 2] + 1)
            current[j] = best
        if min(current) > bound:
            return bound + 1
        previous2, previous = previous, current
    return previous[-1]


def _doubled(word: str, target: str) -> bool:
    """Whether ``word`` is ``target`` with one of its letters typed twice ("pinn")."""
    if len(word) != len(target) + 1:
        return False
    return any(
        word[k] == word[k + 1] and word[:k] + word[k + 1 :] == target for k in range(len(target))
    )


def _bound(target: str) -> int:
    """Short words admit a transposition only ("pni"), longer ones one or two edits."""
    return 1 if len(target) <= 7 else 2


def near(word: str, target: str) -> bool:
    """Whether ``word`` (casefolded) is ``target`` with a typo (not ``target`` itself)."""
    if word == target or word in _REAL_WORDS or word[:1] != target[:1]:
        return False
    if len(target) <= 3:  # a transposition of two letters ("pni"), or one doubled ("pinn")
        return (sorted(word) == sorted(target) and osa_distance(word, target, 1) == 1) or (
            _doubled(word, target)
        )
    bound = _bound(target)
    # Each edit changes at most two letters of the set: a cheap test before the distance.
    if abs(len(word) - len(target)) > bound or len(set(word) ^ set(target)) > 2 * bound:
        return False
    return osa_distance(word, target, bound) <= bound


@lru_cache(maxsize=4096)
def typo_kind(word: str) -> str | None:
    """The context kind of the secret word ``word`` is a typo of, or None (the words of
    a text repeat: each is judged once)."""
    folded = word.casefold()
    for target, kind in TYPO_TARGETS.items():
        if near(folded, target):
            return kind
    return None
