"""The RFC 002 evaluation matrix's generated variant: the memory benchmark's scenarios
with near-duplicates and low-value beliefs injected, the evidence held fixed.

Every original turn, label, probe and evidence reference stays as it is; each session
gains turns *after* its own (so every ``EvidenceRef`` turn number still points at the
same text, and nothing is said later than the session it restates):

- a **near-duplicate** of each first-person sentence the user said ("I mentioned before
  that I live in Seattle.", "I keep saying that ..."): the same names, numbers and dates,
  in words the extractor forms as a separate belief — what alignment should relate and
  a reviewer may approve consolidating;
- a **low-value** belief about the sentence's most specific word ("I watched a short
  video about Seattle yesterday."): lexically close to the probes that need the
  original, never needed by any of them.

Deterministic (no randomness, no model): the same corpus gives the same variant.
Nothing here is written to disk; the variant lives for the run.
"""

from __future__ import annotations

import json
import re
from typing import Any

from memory_es.benchmarks.memory_benchmark.corpus import MemoryBenchmarkCorpus, parse_corpus

NEAR_DUPLICATE_TEMPLATES = ("I mentioned before that {}", "I keep saying that {}")
LOW_VALUE_TEMPLATE = "I watched a short video about {} yesterday."
_SENTENCE = re.compile(r"[^.!?]+[.!?]")
_FIRST_PERSON = re.compile(r"^(I|My|We|Our)\b")
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]+")
_COMMON = frozenset(
    {
        "I",
        "My",
        "We",
        "Our",
        "The",
        "A",
        "An",
        "Also",
        "Still",
        "Big",
        "By",
        "Hi",
        "Quick",
        "Can",
        "Please",
        "Just",
        "So",
        "And",
        "But",
    }
)


def first_person_sentences(text: str) -> list[str]:
    """The turn's sentences that are the user's own first-person declaratives."""
    found = []
    for raw in _SENTENCE.findall(text):
        sentence = raw.strip()
        sentence = re.sub(r"^(Also|And|So|By the way|Oh|Well),\s*", "", sentence)
        sentence = sentence[:1].upper() + sentence[1:]
        if _FIRST_PERSON.match(sentence) and not sentence.endswith("?"):
            found.append(sentence)
    return found


def specific_word(sentence: str) -> str | None:
    """The sentence's most specific word: its first proper name, else its longest word."""
    words: list[str] = _WORD.findall(sentence)
    names = [w for w in words[1:] if w[0].isupper() and w not in _COMMON]
    if names:
        return names[0]
    longest = sorted((w for w in words if len(w) > 4), key=len, reverse=True)
    return longest[0].lower() if longest else None


def near_duplicate(sentence: str, n: int) -> str:
    # "I" keeps its capital ("I live", "I'm"); "My dog ..." becomes "my dog ...".
    lowered = sentence if re.match(r"I\b", sentence) else sentence[0].lower() + sentence[1:]
    return NEAR_DUPLICATE_TEMPLATES[n % len(NEAR_DUPLICATE_TEMPLATES)].format(lowered)


def noisy_corpus(corpus: MemoryBenchmarkCorpus) -> MemoryBenchmarkCorpus:
    document: dict[str, Any] = corpus.model_dump(mode="json")
    for scenario in document["scenarios"]:
        n = 0
        for session in scenario["sessions"]:
            added: list[dict[str, Any]] = []
            for turn in session["turns"]:
                for sentence in first_person_sentences(turn["text"]):
                    added.append({"text": near_duplicate(sentence, n), "advance_seconds": 30})
                    word = specific_word(sentence)
                    if word is not None:
                        added.append(
                            {"text": LOW_VALUE_TEMPLATE.format(word), "advance_seconds": 30}
                        )
                    n += 1
            session["turns"].extend(added)
    return parse_corpus(json.dumps(document).encode())  # the corpus's own rules, again


def injected(corpus: MemoryBenchmarkCorpus, variant: MemoryBenchmarkCorpus) -> dict[str, int]:
    """How many turns the variant added, of each kind."""
    before = sum(len(s.turns) for sc in corpus.scenarios for s in sc.sessions)
    after = [t.text for sc in variant.scenarios for s in sc.sessions for t in s.turns]
    low = sum(1 for t in after if t.startswith(LOW_VALUE_TEMPLATE.split("{")[0]))
    return {
        "original_turns": before,
        "near_duplicates": len(after) - before - low,
        "low_value": low,
    }
