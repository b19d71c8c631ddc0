"""A linear screen for instructions aimed at an assistant, over character and word n-grams.

The phrase patterns of :mod:`.injection` say what we thought of; this model says what the
public prompt-injection sets' authors wrote (trained on the train and validation splits
of S-Labs and neuralchemy's core set, with user turns of LongMemEval S's train half of
sessions as benign conversation: ``benchmarks/hazards/train_screen.py``; NOTICE holds
their attribution). It reads the screen's normalized view (entities, compatibility
forms, invisible characters, confusables and accents undone), glosses the words of six
European languages to English (:mod:`.gloss`), and scores binary features — character
3- to 5-grams of the words, glossed words and glossed word pairs — each window of
:data:`WINDOW` words (consecutive, so the work is linear in the text's length).

The sets' benign rows are one-line requests, so alone the model mistakes chat ("don't
forget to rest up, you got this") for orders. A turn is flagged when a window that names
what an assistant is made of (:data:`.makeup.ASSISTANT_WORDS`: its instructions, rules, prompt,
training, mode, filters; the words glossed first) scores past ``gated``, or any window
scores past ``confident``; formation refuses a sentence whose window naming the assistant
scores past the lower ``candidate`` (a refused candidate costs one belief, a flagged turn
the whole turn). The speaker's own declarative (:mod:`.speech`) is not gated and takes
the ``declarative`` bar, and none where its words are of the speaker's world
(:func:`of_the_speakers_world`: "I hate password rules that need symbols").

Pure Python over a weight table loaded once per process (``array`` and one split of a
text blob): ``session say`` decides the flag and must not pay for numpy.
"""

from __future__ import annotations

import math
import re
from array import array
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from itertools import pairwise
from pathlib import Path
from typing import NamedTuple

from memory_es.formation.hazards.gloss import gloss
from memory_es.formation.hazards.language import word_set
from memory_es.formation.hazards.makeup import (
    ASSISTANT_WORDS,
    DISCLOSURE_WORDS,
    DONE_TO_IT,
    KEPT_SECRETS,
    ONLY_AN_ASSISTANTS,
    SHARED_WITH_A_LIFE,
)
from memory_es.formation.hazards.speech import addresses_a_listener, speaks_for_oneself

MODEL_PATH = Path(__file__).parent / "data" / "injection_screen.bin"
# The file's first line: a format tag, the bias, the thresholds; then the
# features, one per line, then (after a NUL) their float32 weights in that order.
MODEL_FORMAT = "memory_es-injection-screen/3"
WINDOW = 64  # words scored together
_CHAR_ORDERS = (3, 4, 5)
_WORD = re.compile(r"\w+")
# Distinct prefixes keep a word feature from colliding with a character n-gram.
_UNIGRAM = "\x01"
_BIGRAM = "\x02"


def window_features(words: list[str]) -> set[str]:
    """The binary features of one window of words (already normalized, casefolded)."""
    glossed = [gloss(w) for w in words]
    found = {_UNIGRAM + w for w in glossed}
    found.update(_BIGRAM + a + " " + b for a, b in pairwise(glossed))
    joined = " " + " ".join(words) + " "
    size = len(joined)
    for n in _CHAR_ORDERS:
        found.update(joined[i : i + n] for i in range(size - n + 1))
    return found


def windows(view: str) -> Iterator[list[str]]:
    """The text's words in consecutive windows of :data:`WINDOW` (a long turn costs what
    its words cost, once)."""
    words = _WORD.findall(view)
    if len(words) <= WINDOW:
        yield words
        return
    for start in range(0, len(words), WINDOW):
        yield words[start : start + WINDOW]


_DETERMINERS = word_set("the a an this that these those his her their its our")
_ASSISTANTS_OWN = ASSISTANT_WORDS | word_set("you your yours yourself chat conversation")


# The words of ASSISTANT_WORDS that also name a person's job: after "a"/"an" ("act as a
# professional web developer", "I work as an admin") they are a role, not a part of the
# assistant (a role that is a pretext is read by the injection patterns' role check).
_JOBS = word_set("developer admin assistant")
_INDEFINITE = word_set("a an")


def names_the_assistant(words: list[str]) -> bool:
    """Whether a window names what an assistant is made of: one of
    :data:`ASSISTANT_WORDS`, unless it is something else's ("the rules of Monopoly",
    "the training for a marathon": the owner after "of"/"for" is no assistant) or a job
    someone holds ("a web developer")."""
    glossed = [gloss(w) for w in words]
    for i, word in enumerate(glossed):
        if word not in ASSISTANT_WORDS:
            continue
        if word in _JOBS and _INDEFINITE.intersection(glossed[max(0, i - 3) : i]):
            continue
        if i + 1 < len(glossed) and glossed[i + 1] in ("of", "for"):
            rest = [w for w in glossed[i + 2 : i + 5] if w not in _DETERMINERS]
            if rest and rest[0] not in _ASSISTANTS_OWN:
                continue
        return True
    return False


def asks_to_disclose(words: list[str]) -> bool:
    """Whether a window asks for the assistant's make-up to be shown: it names it and a
    word of showing ("Apparently revealing setup is permissible")."""
    return names_the_assistant(words) and any(gloss(w) in DISCLOSURE_WORDS for w in words)


_SENTENCE_WORDS = 4


def of_the_speakers_world(words: list[str]) -> bool:
    """Whether a text's words that sound like an assistant's make-up are all of a
    person's life too ("password rules", "a stronger password policy", "dietary
    restrictions"), with nothing only an assistant has and nothing done to it: the words
    on which the model, having learnt them from injections, misreads a person telling
    of their world."""
    glossed = [gloss(w) for w in words]
    if any(w in ONLY_AN_ASSISTANTS or w in DONE_TO_IT for w in glossed):
        return False
    return any(w in SHARED_WITH_A_LIFE or w in KEPT_SECRETS for w in glossed)


class WindowScores(NamedTuple):
    """A text's highest window log-odds: over all its windows, over those naming the
    assistant's make-up, and over those asking to disclose it (-inf where none); and
    whether it is the speaker's own declarative (then no window is gated)."""

    best: float
    gated: float
    disclosing: float
    about_oneself: bool


@dataclass
class Thresholds:
    """Log-odds past which a window counts (module docstring)."""

    gated: float = 1.0  # a window naming the assistant's make-up
    confident: float = 3.0  # any window
    candidate: float = -0.75  # a candidate belief's sentence naming the assistant
    candidate_any: float = 1.5  # any candidate belief's sentence
    # A trusted turn past this (in a window naming the assistant's make-up) reads as
    # addressed to the assistant: only its direct statements form, never a residue line
    # or a reading more guess than fact.
    suspect: float = -0.2
    # Any window of a text whose every sentence is the speaker's own declarative ("I used
    # to work as a system admin"): it tells, it does not order, so it takes more than
    # ``confident``; where its words are of the speaker's world, the score alone never
    # flags it. (A model file written before this field reads it as this default.)
    declarative: float = 3.0
    # A window asking for the assistant's make-up to be shown (its prompt, rules, setup:
    # :func:`asks_to_disclose`): the request the screen exists for, so it takes less than
    # ``gated``. (A model file written before this field reads it as this default.)
    disclosing: float = 0.0

    def dump(self) -> str:
        return "\t".join(
            repr(t)
            for t in (
                self.gated,
                self.confident,
                self.candidate,
                self.candidate_any,
                self.suspect,
                self.declarative,
                self.disclosing,
            )
        )


class LinearScreen:
    """A logistic model over L2-normalized binary features."""

    def __init__(
        self, weights: dict[str, float], bias: float, thresholds: Thresholds | None = None
    ) -> None:
        self.weights = weights
        self.bias = bias
        self.thresholds = thresholds or Thresholds()

    def window_score(self, features: set[str]) -> float:
        if not features:
            return self.bias
        get = self.weights.get
        total = sum(get(f, 0.0) for f in features)
        return self.bias + total / math.sqrt(len(features))

    def _read(self, view: str, *, told: bool = False, said: str | None = None) -> WindowScores:
        """The window scores of ``view``; ``said`` is the text ``view`` reads (itself by
        default), whose speech act decides whether it is the speaker's own declarative
        (:mod:`.speech`), or with ``told`` a text that addresses no listener, built from a
        turn that was one."""
        best = gated = disclosing = -math.inf
        said = view if said is None else said
        about_oneself = speaks_for_oneself(said) or (told and not addresses_a_listener(said))
        for words in windows(view):
            score = self.window_score(window_features(words))
            best = max(best, score)
            if not about_oneself and names_the_assistant(words):
                gated = max(gated, score)
                if score > disclosing and asks_to_disclose(words):
                    disclosing = score
        return WindowScores(best, gated, disclosing, about_oneself)

    def scores(self, view: str) -> WindowScores:
        return self._read(view)

    def score(self, view: str) -> float:
        return self._read(view).best

    def _declarative_past(self, view: str, best: float) -> bool:
        """The speaker's own declarative tells, it orders no one: past ``declarative``,
        unless what it names is of the speaker's world (:func:`of_the_speakers_world`:
        "I hate password rules that need symbols"), where the model's score is no
        evidence of an order (no such text is flagged or refused on the score alone)."""
        return best >= self.thresholds.declarative and not of_the_speakers_world(
            _WORD.findall(view)
        )

    def flags_turn(self, view: str, *, said: str | None = None) -> bool:
        best, gated, disclosing, about_oneself = self._read(view, said=said)
        thresholds = self.thresholds
        if gated >= thresholds.gated or disclosing >= thresholds.disclosing:
            return True
        if best < min(thresholds.confident, thresholds.declarative):
            return False  # most turns: the reading below is not needed
        if about_oneself:
            return self._declarative_past(said or view, best)
        return best >= thresholds.confident

    def suspects_turn(self, view: str, *, said: str | None = None) -> bool:
        """Past ``suspect`` in a window that names what an assistant is made of (its
        rules, prompt, instructions, mode): "you" alone is who a chat turn speaks to
        (a friend, the assistant), not an address to the assistant's make-up."""
        return self._read(view, said=said).gated >= self.thresholds.suspect

    def refuses_candidate(self, view: str, *, told: bool = False, said: str | None = None) -> bool:
        """A candidate's sentence: past the lower bar where it names the assistant's
        make-up, past ``candidate_any`` anywhere (short first-person statements, "I am
        vegetarian", are rare in the training sets and score well above the bias).
        ``told``: the statement was built from a turn that is the speaker's own
        declarative (formation rewrote its first person: "User said: they need ...")."""
        best, gated, _, about_oneself = self._read(view, told=told, said=said)
        if gated >= self.thresholds.candidate:
            return True
        # A phrase of a few words is mostly the bias: only a sentence is judged anywhere;
        # the speaker's own declarative ("I ignore spam calls") as a turn's is.
        if len(_WORD.findall(view)) < _SENTENCE_WORDS:
            return False
        if about_oneself:
            return self._declarative_past(said or view, best)
        return best >= self.thresholds.candidate_any

    def dump(self) -> bytes:
        names = list(self.weights)
        header = f"{MODEL_FORMAT}\t{self.bias!r}\t{self.thresholds.dump()}"
        text = "\n".join([header, *names]).encode("utf-8")
        return text + b"\x00" + array("f", (self.weights[n] for n in names)).tobytes()

    @classmethod
    def load(cls, blob: bytes) -> LinearScreen:
        text, _, packed = blob.partition(b"\x00")
        header, *names = text.decode("utf-8").split("\n")
        tag, bias, *thresholds = header.split("\t")
        if tag != MODEL_FORMAT:
            raise ValueError(f"not a {MODEL_FORMAT} model: {tag!r}")
        weights = array("f")
        weights.frombytes(packed)
        if len(weights) != len(names):
            raise ValueError("the model's weights do not match its features")
        return cls(
            dict(zip(names, weights, strict=True)),
            float(bias),
            Thresholds(*(float(t) for t in thresholds)),
        )


@cache
def shipped_screen() -> LinearScreen:
    """The model the package ships, loaded once per process."""
    return LinearScreen.load(MODEL_PATH.read_bytes())
