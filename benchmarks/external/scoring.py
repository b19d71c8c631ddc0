"""Judge-free answer scoring for the live arm on external datasets.

The published LongMemEval/LoCoMo/HaluMem figures score answers by token F1 (LoCoMo) or
a model judge; the seed allows no judge, so an answer counts as correct when its
normalised token F1 against the gold answer is at least 0.5. Normalisation is the
SQuAD one: lowercase, drop punctuation, drop the articles a/an/the, collapse spaces.
"""

from __future__ import annotations

import re
import string
from collections import Counter

CORRECT_AT_F1 = 0.5

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = str.maketrans("", "", string.punctuation + "‘’“”–—")


def normalize_answer(text: object) -> str:
    """SQuAD-style: lowercase, no punctuation, no articles, single spaces."""
    lowered = str(text).lower().translate(_PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", lowered).split())


def answer_tokens(text: object) -> list[str]:
    return normalize_answer(text).split()


def token_f1(prediction: object, gold: object) -> float:
    """Harmonic mean of token precision and recall over normalised tokens."""
    predicted, expected = answer_tokens(prediction), answer_tokens(gold)
    if not predicted or not expected:
        return 1.0 if predicted == expected else 0.0
    overlap = sum((Counter(predicted) & Counter(expected)).values())
    if overlap == 0:
        return 0.0
    precision = overlap / len(predicted)
    recall = overlap / len(expected)
    return 2 * precision * recall / (precision + recall)


def answer_correct(prediction: object, gold: object, *, threshold: float = CORRECT_AT_F1) -> bool:
    """Correct when the normalised token F1 reaches the threshold (0.5 by default)."""
    return token_f1(prediction, gold) >= threshold
