"""The one tokenizer every store indexes with, so lexical recall agrees everywhere.

Rules (seed "lexical parity"): lowercase; a run joined by dots, slashes, colons or an at
sign stays whole (``api.example.com``, ``a/b``, ``10:30``, ``me@x.org``); an apostrophe
splits a word into its parts; a hyphenated word is emitted whole and in its parts. Each
alphabetic lexeme also yields its English (Snowball) stem, so "live" meets "lives".
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from functools import lru_cache
from typing import Any

_RUN = re.compile(r"\w+(?:[./:@]\w+)*(?:-\w+(?:[./:@]\w+)*)*")

# Where english_stemmer.py and the two modules it imports run when the package itself
# is not imported yet (see _english_stemmer).
_PRIVATE_SNOWBALL = "memory_es.retrieval._snowball"


def _english_stemmer() -> Any:
    """The pure-Python Snowball English stemmer, named directly: ``snowballstemmer.stemmer()``
    hands back PyStemmer's whenever that is installed, which stems some words differently
    ("international", "skis"), so one environment would index what another cannot find.

    ``snowballstemmer``'s ``__init__`` imports every language's stemmer (~9 ms of CPU, a
    tenth of what ``memory-es recall`` adds to a turn), and importing
    ``snowballstemmer.english_stemmer`` runs it first. So unless the package is imported
    already, its ``english_stemmer.py`` (with ``basestemmer`` and ``among``, its relative
    imports) is run from the package's directory under a private package name: the same
    files, the same bytecode, and ``snowballstemmer`` itself left unimported for whoever
    imports it. Installed other than as files (a zip, a frozen build): the plain import.
    tests/test_tokenizer_stemmer.py holds it equal to ``snowballstemmer``'s stemmer."""
    if "snowballstemmer" not in sys.modules:
        import importlib
        import importlib.util
        import types

        try:
            spec = importlib.util.find_spec("snowballstemmer")
        except (ImportError, ValueError):
            spec = None
        locations = list(spec.submodule_search_locations or ()) if spec is not None else []
        if locations and spec is not None and spec.origin and spec.origin.endswith(".py"):
            package = sys.modules.get(_PRIVATE_SNOWBALL)
            if package is None:
                package = types.ModuleType(_PRIVATE_SNOWBALL, "snowballstemmer's files")
                package.__path__ = locations
                package.__package__ = _PRIVATE_SNOWBALL
                sys.modules[_PRIVATE_SNOWBALL] = package
            try:
                module = importlib.import_module(f"{_PRIVATE_SNOWBALL}.english_stemmer")
                return module.EnglishStemmer()
            except ImportError:
                sys.modules.pop(_PRIVATE_SNOWBALL, None)
    from snowballstemmer.english_stemmer import EnglishStemmer

    return EnglishStemmer()


_STEMMER = _english_stemmer()

# Words that carry no content in a recall query. Documents keep them (an any-term match
# on "in" would be noise, but "the" in a statement harms nothing when queries drop it).
STOPWORDS: frozenset[str] = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "me",
        "more",
        "most",
        "my",
        "myself",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
        "s",
        "t",
        "d",
        "ll",
        "m",
        "re",
        "ve",
        "don",
        "didn",
        "doesn",
        "isn",
        "wasn",
        "tell",
        "know",
        "remember",
        "please",
        "still",
        "anymore",
    ]
)


@lru_cache(maxsize=65536)
def stem(lexeme: str) -> str:
    if not lexeme.isalpha():
        return lexeme
    result: str = _STEMMER.stemWord(lexeme)
    return result


def lexemes(text: str) -> list[str]:
    """Whole lexemes in text order, hyphen parts following their whole word."""
    out: list[str] = []
    for match in _RUN.finditer(text.casefold()):
        token = match.group(0).strip("_")
        if not token:
            continue
        out.append(token)
        if "-" in token:
            out.extend(part for part in token.split("-") if part)
    return out


def terms(text: str) -> list[str]:
    """Lexemes plus the stem of each that differs from it (the indexed and queried form)."""
    out: list[str] = []
    for lexeme in lexemes(text):
        out.append(lexeme)
        stemmed = stem(lexeme)
        if stemmed != lexeme:
            out.append(stemmed)
    return out


def document_terms(text: str) -> Counter[str]:
    """Term frequencies of a belief's indexed text."""
    return Counter(terms(text))


def query_terms(text: str) -> list[str]:
    """Distinct content terms of a query, sorted (order never changes a result)."""
    kept = [lexeme for lexeme in lexemes(text) if lexeme not in STOPWORDS]
    out: set[str] = set()
    for lexeme in kept:
        out.add(lexeme)
        out.add(stem(lexeme))
    return sorted(out)
