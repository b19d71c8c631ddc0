"""Rule family: names and facts said about the people (and pets) in the user's life,
across a turn's sentences (formation@5).

Three readings, each documented in docs/formation.md:

- apposition: "my partner Kim and I", "My daughter, Ines, just started ...", "my roommate
  Dario brought home ..." name the relation in passing: "User's partner is Kim." (USER:
  the user says who their partner is, as plainly as "My partner is Kim");
- cross-sentence reference: a relation mentioned without a name ("It's for my son.", "We
  adopted a rescue cat") is named by the next sentence's "His name is Leo" / "her name is
  Miso" (USER, for the same reason), when the pronoun can point at it (``MALE_RELATIONS``,
  ``FEMALE_RELATIONS``);
- person facts: what a named relation's clause says about them, with the name or the
  pronoun that points back at them ("My husband Raj is diabetic", "She's a nurse in
  Denver", "he turns nine next month") becomes "User's husband Raj is diabetic." — a
  fact about a third person read through a reference, so INFERRED and PROVISIONAL: the
  lifecycle decays it unless it is said again.

A reference reaches one sentence back and no further, and a new relation mentioned
replaces the one a pronoun points at, so "he" never jumps to someone two sentences away.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memory_es.domain.values import Authority, BeliefType
from memory_es.formation.patterns.lexicon import (
    FEMALE_RELATIONS,
    MALE_RELATIONS,
    NAME,
    REL_ALT,
    RELATIONS,
)
from memory_es.formation.patterns.phrases import third
from memory_es.formation.patterns.relationships import relationship
from memory_es.formation.patterns.rule import Found, found
from memory_es.retrieval.temporal import MONTH_NAMES, WEEKDAYS

FACT = BeliefType.FACT


@dataclass(frozen=True)
class Antecedent:
    """The relation a pronoun in the next sentence may point at."""

    rel: str
    name: str | None
    sentence: int  # the index of the sentence that mentioned it


# Capitalized words that open a clause or name no one.
_NOT_NAMES = frozenset(
    [
        *WEEKDAYS,
        *MONTH_NAMES,
        "i",
        "i'm",
        "im",
        "and",
        "but",
        "so",
        "or",
        "the",
        "a",
        "an",
        "this",
        "that",
        "it",
        "its",
        "he",
        "she",
        "they",
        "we",
        "you",
        "my",
        "our",
        "his",
        "her",
        "their",
        "is",
        "was",
        "has",
        "had",
        "who",
        "which",
        "when",
        "where",
        "what",
        "why",
        "how",
        "yes",
        "no",
        "ok",
        "okay",
        "oh",
        "hi",
        "hey",
        "today",
        "tomorrow",
        "tonight",
        "yesterday",
        "mom",
        "dad",
    ]
)

# "my partner Kim", "my daughter, Ines,", "our vet Dr. Amrani": the name right after the
# relation (a comma around it when it is set off), never followed by "'s" (that is the
# relation's own possession) and never a sentence's next opener.
_APPOSITION = re.compile(
    rf"\b(?i:my|our) (?P<rel>(?i:{REL_ALT}))(?P<comma>,)? (?P<name>{NAME})(?P<after>,|'s\b|\b)"
)
# "Lily, my daughter, is turning five": the name set off before the relation.
_NAME_FIRST = re.compile(
    rf"(?:^|(?P<lead>[,:;] ))(?P<name>{NAME}), (?i:my|our) (?P<rel>(?i:{REL_ALT})),"
)
# "I have two kids, Mia and Sam", "We have a golden retriever named Max", "we got a
# puppy called Pretzel": the relations a first-person "have" names.
_HAVE_NAMED = re.compile(
    rf"\b(?:I|[Ww]e) (?:\w+ )?(?:have|got|adopted) (?P<n>a|an|one|two|three|four|\d+) "
    rf"(?:[a-z]+ ){{0,2}}?(?P<rel>(?i:{REL_ALT}))(?P<plural>s|ren)?(?:,| (?:named|called))"
    rf" (?P<names>{NAME}(?:(?:,| and|, and) {NAME})*)"
)
# The words a sentence needs before any of these patterns can match it.
_HAVING = re.compile(r"\b(?:have|had|got|adopted|rescued|brought|welcomed|named|called)\b")
# A relation mentioned without a name: "for my son", "We adopted a rescue cat".
_BARE_MENTION = re.compile(
    rf"(?i)\b(?:(?:my|our) (?P<rel>{REL_ALT})\b(?! is\b)|(?:I|we) (?:\w+ )?(?:adopted|got|"
    rf"rescued|have|had|welcomed|brought home) (?:a|an) (?:\w+ )?(?P<pet>{REL_ALT})\b)"
)
_NAMED_BY_PRONOUN = re.compile(
    rf"^(?P<pro>his|her|their|its) name(?: is|'s) (?P<name>{NAME})(?P<rest>\s+and\s+.+)?$"
    rf"|^(?P<pro2>he|she|they|it)(?: is|'s) (?:called|named) (?P<name2>{NAME})"
    rf"(?P<rest2>\s+and\s+.+)?$"
    rf"|^(?:we|I) (?:\w+ )?(?:named|called) (?P<pro3>him|her|them|it) (?P<name3>{NAME})$",
    re.I,
)
_PRONOUN_CLAUSE = re.compile(r"^(?P<pro>he|she)(?P<be>'s| is)?\s+(?P<pred>.+)$", re.I)
_PERSON_CLAUSE = re.compile(
    rf"^(?i:my|our) (?P<rel>(?i:{REL_ALT})),? (?P<name>{NAME}),? (?P<pred>.+)$"
)
# What a person fact's predicate may open with: a verb (the clause says something the
# person is or does), never a question or a second subject.
_PREDICATE_START = re.compile(
    r"(?i)^(?:(?:just|recently|finally|also|still|now|already|always|usually|really)\s+)*"
    r"(?:is|was|has|had|turns|turned|works|worked|lives|lived|goes|went|started|starts|"
    r"loves|loved|hates|likes|plays|teaches|studies|runs|wants|keeps|got|gets|moved|"
    r"moves|can|cannot|can not|does|did|will|would|\w+s|\w+ed)\b"
)
# A person fact ends where another subject's clause begins.
_PREDICATE_END = re.compile(
    r"(?i)\s*(?:,\s*(?:so|which|but|because|and)\b.*|\s+(?:and|but|so|because)\s+"
    r"(?:she|he|they|it|I|we|my|our)\b.*|\s+which\s+.*)$"
)
_PREDICATE_MIN_WORDS = 2
# A person fact records a state (what they are, have, do for a living, how old they
# turn), not an activity in progress or a report of what they said or want ("She is
# planning our anniversary trip", "He wants a status note every Friday").
_ACTIVITY = re.compile(
    r"(?i)^(?:(?:is|was|are|were|has been|have been) (?!going to\b|turning \w+\b)\w+ing\b|"
    r"(?:keeps|kept|wants|wanted|says|said|tells|told|thinks|thought|insists|insisted|"
    r"asks|asked|needs|needed|hopes|hoped|plans|planned|tries|tried|is going to|was going to)"
    r"\b)"
)


def _gender_ok(pronoun: str, rel: str) -> bool:
    p = pronoun.lower()
    if p in ("he", "his"):
        return rel not in FEMALE_RELATIONS
    if p in ("she", "her"):
        return rel not in MALE_RELATIONS
    return True


# Words that open a capitalized phrase that is no one's name ("Last Tuesday", "Next
# week", "Every Friday").
_NOT_NAME_OPENERS = frozenset(
    ["last", "next", "this", "every", "early", "late", "one", "some", "each"]
)


def _name_ok(name: str) -> bool:
    words = [w.rstrip(".,").lower() for w in name.split()]
    if words[0] in _NOT_NAME_OPENERS or words[0].endswith("'s"):
        return False
    return not any(w in _NOT_NAMES for w in words)


def _clean_name(name: str) -> str:
    # A name ends before a lower-case word; NAME already stops there. Strip a trailing
    # possessive or punctuation the sentence carried.
    return re.sub(r"(?:'s)?[.,;:!?]*$", "", name.strip())


def person_fact(rel: str, name: str, predicate: str, rule: str) -> list[Found]:
    """ "User's husband Raj is diabetic." from ("husband", "Raj", "is diabetic")."""
    pred = _PREDICATE_END.sub("", predicate).strip().rstrip(".,;:!?")
    pred = re.sub(r"(?i)^(?:(?:just|recently|finally|also|still|now|already|really)\s+)+", "", pred)
    if len(pred.split()) < _PREDICATE_MIN_WORDS or not _PREDICATE_START.match(pred):
        return []
    if _ACTIVITY.match(pred):
        return []
    if re.search(r"\b(?:you|your)\b", pred, re.I):
        return []  # about the other speaker, not the person
    subjects = (name, *RELATIONS.get(rel, (rel,)))
    made = found(rule, f"User's {rel} {name} {third(pred)}", FACT, subjects)
    return [
        Found(
            statement=made.statement,
            belief_type=made.belief_type,
            subjects=made.subjects,
            polarity=True,
            rule=rule,
            key=f"person/{name.lower()}/{_predicate_key(pred)}",
            authority=Authority.INFERRED,
        )
    ]


def _predicate_key(pred: str) -> str:
    """A person fact's key: the person and the predicate's first two words ("is a",
    "turns nine"), so a later "she's a doctor now" meets "she's a nurse"."""
    words = re.findall(r"[a-z0-9']+", pred.lower())
    return " ".join(words[:2])


def appositions(sentence: str) -> list[tuple[int, str, str]]:
    """(position, relation, name) for every relation named in passing in the sentence."""
    out: list[tuple[int, str, str]] = []
    for m in _APPOSITION.finditer(sentence):
        name = _clean_name(m["name"])
        if m["comma"] and m["after"] != ",":
            continue  # "my son, Theo said" is not set off; "my son, Theo, ..." is
        if m["after"] == "'s" or not _name_ok(name):
            continue
        out.append((m.start(), m["rel"].lower(), name))
    return out


def named_relations(sentence: str, index: int) -> tuple[str, list[Found], Antecedent | None]:
    """The sentence with a set-off name's commas dropped ("My daughter, Ines, just
    started" reads as one clause), the relationships it names by apposition, and the
    relation the next sentence's pronoun may point at (the last one it mentions)."""
    formed: list[Found] = []
    low = sentence.lower()
    possessive = "my " in low or "our " in low
    having = _HAVING.search(low) is not None
    if not possessive and not having:
        return sentence, formed, None  # most sentences: no relation to read
    mentions: list[tuple[int, Antecedent]] = []
    named_at: set[int] = set()
    for start, rel, name in appositions(sentence) if possessive else ():
        formed.extend(relationship("relationship.apposition", rel, name))
        mentions.append((start, Antecedent(rel, name, index)))
        named_at.add(start)
    first = _NAME_FIRST.search(sentence) if possessive else None
    if first is not None and _name_ok(_clean_name(first["name"])):
        name, rel = _clean_name(first["name"]), first["rel"].lower()
        formed.extend(relationship("relationship.apposition", rel, name))
        mentions.append((first.start(), Antecedent(rel, name, index)))
        # "Lily, my daughter, is ..." reads as "My daughter Lily is ...".
        lead = first["lead"] or ""
        sentence = sentence[: first.start()] + f"{lead}My {rel} {name}" + sentence[first.end() :]
        return sentence, formed, mentions[-1][1]
    for m in _HAVE_NAMED.finditer(sentence) if having else ():
        names = [_clean_name(n) for n in re.split(r",\s*(?:and\s+)?|\s+and\s+", m["names"])]
        names = [n for n in names if n and _name_ok(n)]
        rel = m["rel"].lower()
        if not names or (len(names) > 1) != bool(m["plural"]) or m.start() in named_at:
            continue
        if len(names) == 1:
            formed.extend(relationship("relationship.apposition", rel, names[0]))
            mentions.append((m.start(), Antecedent(rel, names[0], index)))
        else:
            plural = rel + m["plural"]
            listed = ", ".join(names[:-1]) + " and " + names[-1]
            formed.append(
                found(
                    "relationship.apposition",
                    f"User's {plural} are {listed}",
                    BeliefType.RELATIONSHIP,
                    RELATIONS.get(rel, (rel,)),
                )
            )
        named_at.add(m.start())
    for m in _BARE_MENTION.finditer(sentence):
        if m.start() not in named_at:
            mentions.append((m.start(), Antecedent((m["rel"] or m["pet"]).lower(), None, index)))
    last = max(mentions, key=lambda pair: pair[0])[1] if mentions else None
    if not named_at or "," not in sentence:
        return sentence, formed, last  # no set-off name to join
    joined = _APPOSITION.sub(
        lambda m: (
            m.group(0).replace(", ", " ", 1).rstrip(",")
            if m["comma"] and m["after"] == ","
            else m.group(0)
        ),
        sentence,
    )
    return joined, formed, last


def read_reference(clause: str, antecedent: Antecedent | None, index: int) -> list[Found] | None:
    """What a clause says through a reference to ``antecedent`` (a relation of this or the
    previous sentence): the relation's name, or a fact about the named person; None when
    the clause makes no such reference."""
    m = _PERSON_CLAUSE.match(clause)
    if m is not None and _name_ok(_clean_name(m["name"])):
        rel, name = m["rel"].lower(), _clean_name(m["name"])
        return person_fact(rel, name, m["pred"], "reference.person_fact") or None
    if antecedent is None or index - antecedent.sentence > 1:
        return None
    m = _NAMED_BY_PRONOUN.match(clause)
    if m is not None:
        pronoun = (
            m["pro"]
            or m["pro2"]
            or {"him": "he", "her": "she"}.get((m["pro3"] or "").lower(), m["pro3"])
        )
        name = _clean_name(m["name"] or m["name2"] or m["name3"])
        if antecedent.name is not None or not _gender_ok(pronoun, antecedent.rel):
            return None
        if not _name_ok(name):
            return None
        out = relationship("relationship.named_by_reference", antecedent.rel, name)
        rest = (m["rest"] or m["rest2"] or "").strip()
        tail = re.match(r"(?i)^and\s+(?P<pro>he|she|they|it)(?:'s| is)?\s+(?P<pred>.+)$", rest)
        if tail is not None and _gender_ok(tail["pro"], antecedent.rel):
            be = re.match(r"(?i)^and\s+\w+(?:'s| is)\s", rest)
            pred = ("is " if be else "") + tail["pred"]
            out += person_fact(antecedent.rel, name, pred, "reference.person_fact")
        return out
    m = _PRONOUN_CLAUSE.match(clause)
    if m is None or antecedent.name is None or not _gender_ok(m["pro"], antecedent.rel):
        return None
    pred = ("is " if m["be"] else "") + m["pred"]
    return person_fact(antecedent.rel, antecedent.name, pred, "reference.person_fact") or None
