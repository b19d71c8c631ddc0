"""Value checks: checksums (Luhn, ISO 13616 mod-97), entropy, and whether a word
looks like a value someone chose to be hard to guess."""

from __future__ import annotations

import math
from collections.abc import Callable
from itertools import pairwise

from memory_es.formation.hazards.secrets.cache import patterns


def words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# -- value tests ---------------------------------------------------------------------------


def luhn(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def iban_valid(candidate: str) -> bool:
    """ISO 13616: move the first four characters to the end, letters to numbers, mod 97."""
    s = candidate.replace(" ", "").upper()
    if not 15 <= len(s) <= 34 or not s[:2].isalpha() or not s[2:4].isdigit():
        return False
    numeric = "".join(str(int(c, 36)) for c in s[4:] + s[:4])
    return int(numeric) % 97 == 1


DNI_LETTERS = "TRWAGMYFPDXBNJZSQVHLCKE"


def _class(ch: str) -> int:
    if ch.isdigit():
        return 0
    if ch.isupper():
        return 1
    if ch.islower():
        return 2
    return 3


def random_looking(token: str, min_len: int) -> bool:
    """High entropy: long, letters and digits (or both cases) thoroughly mixed, many
    distinct characters. Random keys switch character class at about half their
    positions; words, camelCase names and version strings rarely do."""
    n = len(token)
    if n < min_len:
        return False
    classes = {_class(c) for c in token}
    if not ({0, 1} <= classes or {0, 2} <= classes or {1, 2} <= classes):
        return False
    alnum = [c for c in token if c.isalnum()]
    switches = sum(1 for a, b in pairwise(alnum) if _class(a) != _class(b))
    if len(alnum) < min_len * 2 // 3 or switches < 0.3 * (len(alnum) - 1):
        return False
    distinct = len(set(token))
    if distinct < min(12, n // 2):
        return False
    # Shannon entropy of the characters themselves, bits per character.
    counts: dict[str, int] = {}
    for c in token:
        counts[c] = counts.get(c, 0) + 1
    entropy = -sum(k / n * math.log2(k / n) for k in counts.values())
    return entropy >= min(3.0, math.log2(n) - 0.5)


ENTROPY_TOKEN = patterns.compile(r"(?<![A-Za-z0-9+/_~-])[A-Za-z0-9+/_~-]{12,}={0,2}")
HIGH_ENTROPY_MIN = 12  # a sentence-level belief with such a token is refused
CONTEXT_FREE_MIN = 24  # redacted anywhere
NEAR_CONTEXT_MIN = 12  # redacted near a word that names a secret


def has_high_entropy_token(text: str) -> bool:
    """Whether ``text`` carries a token that looks like a key (see :func:`random_looking`)."""
    return any(
        random_looking(m.group(0).rstrip("="), HIGH_ENTROPY_MIN)
        for m in ENTROPY_TOKEN.finditer(text)
    )


def looks_secret(value: str) -> bool:
    """A value someone chose to be hard to guess: digits with letters, a symbol among
    them, or case mixed inside the word — not a plain word or a plain number."""
    if len(value) < 4:
        return False
    letters = any(c.isalpha() for c in value)
    digits = any(c.isdigit() for c in value)
    symbols = any(not c.isalnum() and c not in "'’-.,/" for c in value)  # not "don't", "and/or"
    inner_case = any(c.isupper() for c in value[1:]) and any(c.islower() for c in value)
    return (letters and digits) or (letters and symbols) or inner_case


# Code, addresses and names that look chosen by their case or their marks, but that no
# one chose to be hard to guess: a call or an index ("get_items(obj", "$row['id"),
# an identifier of words ("pool_size", "points\\_idx" as markdown escapes it), a dotted
# path or a host ("rest.framework.views", "mail.example.com"), an address, a quantity
# with its unit ("64GB", "24-hour", "5GHz"), a product's model ("RT-AC68U", "L298N"), a
# name in mixed case ("YouTube", "KeyError") or in the possessive ("Cafe24's").
_CODE_MARKS = ("(", ")", "[", "]", "{", "}", "<", ">", "\\", "->", "://", "==")
# What refers to a value elsewhere: a private name, a variable ("$ids", "$this->id"), a
# dotted path or a host, its last part a name ("cv2.resize", "mail1.example.com"; not
# "feather.ember5646").
_PRIVATE = r"_{1,2}[A-Za-z]\w*"
_VARIABLE = r"\$\w.*"
_DOTTED = r"[A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)*\.[A-Za-z_]+"
_CODE_SHAPE = patterns.compile(
    r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+"  # a snake_case identifier
    rf"|{_PRIVATE}|{_VARIABLE}"
    r"|[\w.+-]+@[\w-]+(?:\.[\w-]+)+"  # an address
    rf"|{_DOTTED}\.?"
    r"|\d+(?:[.,]\d+)?-?[A-Za-z]{1,6}"  # a quantity and its unit
    r"|[A-Za-z][A-Za-z'’/-]*"  # a word or a name, its case however mixed; "and/or"
    r"|[^'’]+['’]s"  # a possessive
)
_MODEL = patterns.compile(r"[A-Z0-9]+(?:-[A-Z0-9]+)*")  # no lower-case letter


def _core(value: str) -> str:
    """The value without the marks that close a clause (base64's padding is its own)."""
    return value.rstrip(":;,.").rstrip("=")


def name_or_code(value: str, *, models: bool = True) -> bool:
    """Whether a value that looks chosen is code, an address, a quantity or a name
    (:data:`_CODE_SHAPE`), or with ``models`` a product's model: the weaker secret words
    take none of them (a key near "api key" may well be upper case and digits); nor a
    pair of its own ("ENGINE=InnoDB": the name=value rule reads those)."""
    core = _core(value)
    if any(mark in core for mark in _CODE_MARKS) or _CODE_SHAPE.fullmatch(core) is not None:
        return True
    if "=" in core:
        return True
    return models and _MODEL.fullmatch(core) is not None


_REFERENCE = patterns.compile(f"{_DOTTED}|{_PRIVATE}|{_VARIABLE}")


def code_reference(value: str) -> bool:
    """Whether a value given a name is code that refers to its value elsewhere: a call,
    an index, a dotted path ("process.env.API_KEY"), a private name or a variable."""
    core = _core(value)
    return any(mark in core for mark in _CODE_MARKS) or _REFERENCE.fullmatch(core) is not None


def chosen_value(value: str) -> bool:
    """A value that looks chosen (:func:`looks_secret`) and is no code or name."""
    return looks_secret(value) and not name_or_code(value)


# Words that describe a password rather than being one ("my password is too short").
_NOT_A_VALUE = words(
    "the a an my your his her our their its this that these those same not no none "
    "too very so really also in on at for of with what which who where when how "
    "something nothing anything everything easy hard long short weak strong secure "
    "simple complicated different new old wrong right correct incorrect required "
    "needed necessary expired stolen changed reset saved stored written hidden "
    "encrypted case still now just and or but if because protected forgotten lost "
    "blank empty unknown it it's is was be been being ready there here mine yours "
    "theirs ours then than as all any some every each both only exactly kind sort "
    "written somewhere safe changing working fine ok okay yes yeah set going gonna "
    "about like literally actually probably maybe always never one two three four "
    "five six seven eight "
    # a type or a literal of code: "password: str", "password = None"
    "str int bool boolean string none null nil undefined true false"
)


def plausible_value(value: str) -> bool:
    core = value.strip("\"'`“”‘’()[]{}<>")
    if len(core) < 3 or core.casefold() in _NOT_A_VALUE or core.startswith("[redacted"):
        return False
    # "my password is changing", "...is hardly secure": a word, not a value.
    return not (
        core.isalpha() and core.islower() and len(core) > 5 and core.endswith(("ing", "ly"))
    )


def digits_of(s: str) -> str:
    return "".join(c for c in s if c.isdigit())


def digit_group(core: str) -> bool:
    return (
        bool(core)
        and all(c.isdigit() or c in "-." for c in core)
        and any(c.isdigit() for c in core)
    )


Predicate = Callable[[str], bool]


def min_digits(n: int, *, alnum: bool = False, max_len: int = 34) -> Predicate:
    def test(core: str) -> bool:
        if not core or len(core) > max_len:
            return False
        shaped = all((c.isalnum() if alnum else c.isdigit()) or c in "-." for c in core)
        return shaped and len(digits_of(core)) >= n

    return test
