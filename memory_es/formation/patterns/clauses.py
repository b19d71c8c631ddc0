"""The clause walk: a user turn read as sentences and clauses, each clause matched
against the catalogue (``match_clause``), subjects restored, lists and episodes
continued (``extract_clauses``).
"""

from __future__ import annotations

import re
from dataclasses import replace

from memory_es.domain.values import Authority, BeliefType
from memory_es.formation.hazards.gloss import in_another_language, plain_words
from memory_es.formation.patterns.asides import role_opener, taken_for_granted
from memory_es.formation.patterns.catalogue import FALLBACK_RULES, rules_for
from memory_es.formation.patterns.corrections import read_correction, read_restatement
from memory_es.formation.patterns.lexicon import (
    DET,
    FEELINGS,
    ING_NOT_VERBS,
    NAME,
    REL_ALT,
    YOU,
    word_set,
)
from memory_es.formation.patterns.morphology import past
from memory_es.formation.patterns.phrases import (
    content_words,
    episode_key,
    third,
    trim_clause,
    vocative,
)
from memory_es.formation.patterns.reference import (
    Antecedent,
    named_relations,
    read_reference,
)
from memory_es.formation.patterns.requests import asked_for
from memory_es.formation.patterns.residue import carries_nothing, residue_statement
from memory_es.formation.patterns.rule import Found, Reread, sentence_case
from memory_es.formation.patterns.switches import read_replacement
from memory_es.formation.text import QUESTION_OPENERS, clauses, repair, sentences, strip_markers
from memory_es.retrieval.tokenizer import STOPWORDS, lexemes, stem

# A clause with its subject dropped ("Researching adoption agencies", "Just got back
# from Rome", "Excited for the trip") is the user speaking about themself when it opens
# a sentence or follows a first-person clause: it is read with "I" / "I am" restored.


_AFTER_GERUND_SUBJECT = re.compile(
    r"(?i)^\S+\s+(?:is|was|are|were|has|have|had|can|could|will|would|should|must|"
    r"might|may|makes|made|helps|helped|gives|gave|keeps|takes|sounds|seems|looks)\b"
)


# A state said without its subject ("Allergic to penicillin, by the way").
_STATE_ADJECTIVES = word_set("allergic vegan vegetarian pescatarian lactose gluten-free")


# Past forms that are also a bare verb, so an opening one may be an imperative
# ("Let me check", "Read this").
_AMBIGUOUS_PAST = word_set("was were did had let put set cut hit hurt shut quit read")


def restore_subject(clause: str) -> str | None:
    """The clause with its dropped first-person subject restored, or None."""
    m = re.match(
        r"(?i)^((?:just|finally|recently|also|still|even|really|totally|super|so|very|"
        r"pretty|quite)\s+)*(\S+)",
        clause,
    )
    if m is None:
        return None
    word = m.group(2).lower()
    if not re.fullmatch(r"[a-z]+", word) or _AFTER_GERUND_SUBJECT.match(clause[m.start(2) :]):
        return None
    lowered = clause[:1].lower() + clause[1:]
    if word == "been":
        return "I have " + lowered
    gerund = word.endswith("ing") and len(word) > 4 and word not in ING_NOT_VERBS
    if gerund and len(clause[m.end(2) :].split()) < 2:
        return None  # "Moving news": a heading, not "I am moving ..."
    if word in FEELINGS or gerund or word in _STATE_ADJECTIVES:
        return "I am " + lowered
    if past(word) and word not in _AMBIGUOUS_PAST:
        return "I " + lowered
    return None


# -- the clause walk ---------------------------------------------------------------------

_ELLIPSIS_VERBS = re.compile(
    r"^(?:live|work|prefer|like|love|enjoy|hate|use|have|own|speak|play|drive|"
    r"am|grew|moved|no longer|switched|started|stopped|quit|joined|sold|bought|got|"
    r"accepted|adopted|went|relocated|"
    r"code|speak|drive|run)\b",
    re.I,
)
_LIST_RULES = frozenset({"attr.has", "attr.uses", "preference.like", "attr.activity"})
_LIST_PREFIX = re.compile(r"^(I (?:\w+ ){0,2}?(?:have|own|use|like|love|enjoy|speak|play))\b", re.I)
_LIST_ITEM = re.compile(rf"^(?:(?i:{DET})\b|[A-Z])")


# A clause that opens with an adverbial ("After a long debate the team decided ...",
# "Yesterday I bought ...") is read again from its first "I"/"we"/"my", unless what
# precedes is hypothetical, reported or a question.
_INNER_START = re.compile(r"\b(?:I|we|the team|our team|my)\b(?! am\b.*\?)")
_NOT_ASSERTED = re.compile(
    r"(?i)\b(?:if|whether|wonder|think|thinks|thought|ask|asked|maybe|might|should|could|"
    r"would|imagine|pretend|suppose|says?|said|tell|told|write|draft|unless|when|once|"
    r"before|until|not sure|know|believe|hope|wish|please|that|what|who|where|how|why|"
    r"lived|used|was|were|had)\b"
)


# Adverbs right after "I" / "I am" / "I have" say nothing the statement keeps
# ("I am currently living in" reads as "I am living in", "I really really love" as
# "I love").
_ADVERB_RUN = re.compile(
    r"^(I(?: am| have)?)((?:\s+(?:also|still|currently|now|actually|really|mostly|usually|"
    r"generally|definitely|just|totally|absolutely|honestly|personally|truly|always|"
    r"recently|finally|officially|happily|basically|literally|mainly|primarily|only|"
    r"kind of|kinda|sort of|pretty much|very much|so|seriously|genuinely))+)(?=\s)",
    re.I,
)


# "Our vet is Dr. Amrani", "Our son is Leo": a household's relation is the user's.
_OUR_RELATION = re.compile(
    rf"^Our (?=(?i:{REL_ALT}|office|home|house|apartment|flat|place)\b)", re.I
)
_NAMED = re.compile(r"^User's (?P<rel>.+?) is (?P<who>[A-Z].*?)\.$")


def _merge_person_fact(out: list[Found], result: list[Found], sentence_start: int) -> bool:
    """A second person fact of one sentence about the same person extends the first
    ("User's sister Priya is a nurse in Denver, and is their go-to for anything
    medical."): one reading per person per sentence, as an episode is one per turn."""
    if len(result) != 1 or result[0].rule != "reference.person_fact":
        return False
    new = result[0]
    for at in range(len(out) - 1, sentence_start - 1, -1):
        old = out[at]
        if old.rule == "reference.person_fact" and old.subjects[:1] == new.subjects[:1]:
            prefix = " ".join(old.statement.split()[:3])  # "User's sister Priya"
            tail = new.statement[len(prefix) :].strip().rstrip(".")
            if not new.statement.startswith(prefix) or not tail:
                return False
            statement = sentence_case(f"{old.statement.rstrip('.')}, and {tail}")
            out[at] = replace(old, statement=statement)
            return True
    return False


_DISLIKE_OF_PRONOUN = re.compile(
    r"(?i)^(I (?:really |just |honestly |absolutely )?(?:can not stand|can not bear|hate|"
    r"dislike|loathe|detest|do not like)) (?:it|them|that|those)$"
)


def _dislike_of_left_out(clause: str, sentence_formed: list[Found]) -> str:
    """ "Leave out the cilantro, I can't stand it": the dislike is of what the sentence
    just asked to be left out (patterns/requests.py)."""
    m = _DISLIKE_OF_PRONOUN.match(clause)
    if m is None or not sentence_formed:
        return clause
    last = sentence_formed[-1]
    if last.rule != "preference.request_leave_out" or not last.subjects:
        return clause
    return f"{m[1]} {last.subjects[0]}"


def _named_antecedent(formed: list[Found], index: int) -> Antecedent | None:
    """The last relation a clause named ("My sister is Priya"), for the next pronoun."""
    for f in reversed(formed):
        if f.belief_type is REL_TYPE:
            m = _NAMED.match(f.statement)
            if m is not None:
                return Antecedent(m["rel"].lower(), m["who"], index)
    return None


def match_clause(clause: str) -> list[Found] | None:
    """The beliefs one clause states; None when no rule reads it."""
    if clause[:4].lower() == "our ":
        clause = _OUR_RELATION.sub("My ", clause)
    clause = _ADVERB_RUN.sub(r"\1", clause)
    first = clause.split(" ", 1)[0].lower()
    lowered = clause.lower()
    for entry in rules_for(first):
        if entry.needs is not None and entry.needs.search(lowered) is None:
            continue
        m = entry.pattern.match(clause)
        if m is not None:
            got = entry.read(m)
            if isinstance(got, Reread):
                got = match_clause(got.text) or []
            elif entry.authority is not Authority.USER:
                got = [replace(f, authority=entry.authority) for f in got]
            if not got and entry.name in FALLBACK_RULES:
                continue  # the catch-all episode rules refuse without deciding
            return got
    return None


def _before_question(sentence: str) -> str:
    """The statement a question sentence opens with ("I went there last year, have you
    been?" -> "I went there last year"); "" when it opens as a question or has one
    clause."""
    head_part = _QUESTION_TAIL.split(sentence, maxsplit=1)
    if len(head_part) == 2:
        first = head_part[0]
    else:
        parts = re.split(r",\s+", sentence)
        kept: list[str] = []
        for part in parts:
            if QUESTION_OPENERS.match(strip_markers(part)) or YOU.search(part):
                break
            kept.append(part)
        if len(kept) == len(parts):
            return ""
        first = ", ".join(kept)
    if not first or QUESTION_OPENERS.match(strip_markers(first)):
        return ""
    return first


_QUESTION_TAIL = re.compile(r"\s+(?:\u2014|\u2013|-{1,2})\s+(?=[^\u2014\u2013]*\?\W*$)")
_WITH_I = re.compile(rf"(\b(?i:my (?:{REL_ALT})(?: {NAME})?)|(?:^|(?<=[:;] )){NAME}) and I\b")
# "Me and my family are ..." reads as "My family & I are ...".
_ME_AND_MY = re.compile(r"(?i)^me and my (\w+) ")


# A time said before the subject ("Yesterday I went to the park", "Last week, we ...")
# belongs to the clause it opens: the clause is read without it and the time is put
# back on what the clause formed, so the belief says when (and formation anchors it on
# the turn's day: memory_es/formation/anchoring.py).
_WEEKDAY_ALT = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
_MONTH_ALT = "january|february|march|april|may|june|july|august|september|october|november|december"
_TIME_OPENER = re.compile(
    r"(?i)^(?P<when>yesterday|today|tonight|earlier today|recently|"
    r"this (?:morning|afternoon|evening|week|weekend|month|year|summer|spring|fall|autumn|winter)|"
    rf"last (?:night|week|weekend|month|year|summer|spring|fall|autumn|winter|{_WEEKDAY_ALT})|"
    r"(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|a few|\d{1,2}) "
    r"(?:days?|weeks?|weekends?|months?|years?) ago|"
    rf"(?:in|on) (?:{_WEEKDAY_ALT}|\d{{4}}|(?:{_MONTH_ALT})(?: \d{{4}})?)|"
    rf"(?:{_MONTH_ALT}) \d{{4}})\s*,?\s+(?=(?:I|we|my)\b)"
)


def _with_time(found: Found, when: str) -> Found:
    """A formed reading with the time its clause opened with, said after it."""
    statement = f"{found.statement.rstrip('.')} {when[:1].lower()}{when[1:]}."
    key = found.key
    if key is not None and key.startswith("episode/"):
        key = episode_key(statement)
    return replace(found, statement=statement, key=key)


_EPISODE_MAX_WORDS = 60
REL_TYPE = BeliefType.RELATIONSHIP


def _extend_episode(episode: Found, clause: str) -> Found | None:
    """The episode with a clause of the same turn that formed nothing on its own ("I was
    in Chicago, it had so much energy"); None when the clause ends the episode (it is
    about the other speaker, is in another language, carries a secret, or says nothing)."""
    if YOU.search(clause) or in_another_language(plain_words(clause)):
        return None
    if content_words(clause) < 2:
        return episode  # "it was awesome": nothing to add, the episode goes on
    text = third(re.sub(r"(?i)\b(?:me|myself)\b", "them", clause))
    if re.match(r"(?:It|They|He|She|This|That|These|Those|There|Its|Their|The|A|An)\b", text):
        text = text[:1].lower() + text[1:]
    statement = sentence_case(f"{episode.statement.rstrip('.')}, {text}")
    if len(statement.split()) > _EPISODE_MAX_WORDS:
        return None
    return replace(episode, statement=statement, key=episode_key(statement))


def extract_clauses(text: str, *, residue: bool = False) -> list[Found]:
    """Every belief a user turn states, in the order it states them.

    With ``residue`` a declarative sentence that formed nothing is kept as what the user
    said (:func:`residue_statement`); off by default (profile ``formation.residue_enabled``).
    """
    out: list[Found] = []
    episode: int | None = None  # the episode later unread clauses of the turn extend
    antecedent: Antecedent | None = None  # the relation a pronoun may point at
    held: list[Found] = []  # residue lines that carry nothing (patterns/residue.py)
    for index, sentence in enumerate(sentences(repair(text))):
        formed_before = len(out), out[-1] if out else None
        grown: Found | None = None  # the episode this sentence's clauses extended
        spoken = sentence  # as said, before a question's tail is cut
        # "As a night-shift nurse, ...": who the user says they are, whatever follows.
        out.extend(role_opener(sentence))
        if sentence.rstrip("\"') ").endswith("?"):
            episode = None
            asked = asked_for(strip_markers(sentence))
            if asked:
                out.extend(asked)
                continue
            # "I've started eating healthier - what's new with you?": the statement
            # before the question still stands; a sentence that opens as a question
            # (or asks in its only clause) forms nothing but what it takes for granted
            # about the user ("... a lens for my Fujifilm X-T5?").
            stated = _before_question(sentence)
            out.extend(taken_for_granted(sentence[len(stated) :] if stated else sentence))
            sentence = stated
            if not sentence:
                continue
        # "I went hiking yesterday, Sam.": the name it is addressed to is no clause.
        named = vocative(sentence)
        if named is not None:
            sentence = sentence[: named[0]] + sentence[named[1] :]
        # "my partner Kim and I", "My daughter, Ines, ...": names said in passing; the
        # relation they name is what a pronoun of this or the next sentence points at.
        sentence, apposed, mention = named_relations(sentence, index)
        out.extend(apposed)
        if mention is not None:
            antecedent = mention
        # "My wife and I went ...": one subject, not a clause boundary before "and I".
        sentence = _WITH_I.sub(r"\1 & I", sentence)
        sentence = _ME_AND_MY.sub(r"my \1 & I ", sentence)
        opener = _TIME_OPENER.match(sentence)
        when = opener["when"] if opener is not None else None
        if opener is not None:
            sentence = sentence[opener.end() :]
        first_person = False
        list_prefix: str | None = None
        for position, raw in enumerate(clauses(sentence)):
            clause = trim_clause(strip_markers(raw))
            if not clause or QUESTION_OPENERS.match(clause):
                list_prefix = None
                episode = None
                continue
            if first_person and _ELLIPSIS_VERBS.match(clause):
                clause = "I " + clause
            elif position == 0 or first_person:
                clause = restore_subject(clause) or clause
            clause = _dislike_of_left_out(clause, out[formed_before[0] :])
            result = read_reference(clause, antecedent, index)
            if result and out and _merge_person_fact(out, result, formed_before[0]):
                result = []
            if result is None:
                result = match_clause(clause)
            if result:
                antecedent = _named_antecedent(result, index) or antecedent
            if result is None:
                inner = _INNER_START.search(clause, 1)
                if inner is not None and not _NOT_ASSERTED.search(clause[: inner.start()]):
                    result = match_clause(clause[inner.start() :])
            continued = False
            if (
                result is None
                and list_prefix
                and len(clause.split()) <= 6
                and (_LIST_ITEM.match(clause))
            ):
                result = match_clause(f"{list_prefix} {clause}")
                continued = True
            if re.match(r"(?i)^(?:I|my)\b", clause):
                first_person = True
            if not result and episode is not None:
                extended = _extend_episode(out[episode], clause)
                if extended is None:
                    episode = None
                elif extended is not out[episode]:
                    out[episode] = extended
                    grown = extended
            if result and when is not None:
                if result[0].belief_type is BeliefType.FACT:
                    result = [_with_time(result[0], when), *result[1:]]
                when = None  # said once, of the clause it opened
            if result:
                out.extend(result)
                last = result[-1]
                episode = (
                    len(out) - 1
                    if last.key is not None and last.key.startswith("episode/")
                    else None
                )
                if not continued:
                    prefix = _LIST_PREFIX.match(clause)
                    list_prefix = (
                        prefix.group(1) if prefix and result[0].rule in _LIST_RULES else None
                    )
            elif result is None:
                list_prefix = None
        # "Actually it's the 12th, not the 10th": a correction of what an earlier belief
        # says (memory_es/formation/corrections.py finds which).
        corrected = read_correction(strip_markers(spoken)) if " not " in spoken else None
        if corrected is not None:
            was, now = corrected
            out.append(
                Found(
                    statement=f"Correction: {now}, not {was}.",
                    belief_type=BeliefType.FACT,
                    subjects=("correction",),
                    polarity=True,
                    rule="correction.substitution",
                    corrects=corrected,
                )
            )
        # "Actually they pay me on the 10th": a value put right without the old one.
        restated = read_restatement(spoken) if corrected is None else None
        if restated is not None:
            out.append(
                Found(
                    statement=f"Correction: {spoken}",
                    belief_type=BeliefType.FACT,
                    subjects=("correction",),
                    polarity=True,
                    rule="correction.restatement",
                    corrects=("", restated),
                )
            )
        # "I traded my Kindle for a Kobo Libra": the newest belief naming the old value,
        # with the new one in its place (memory_es/formation/corrections.py).
        replaced = read_replacement(spoken) if corrected is None else None
        if replaced is not None:
            out.append(
                Found(
                    statement=f"Switch: {replaced[1]}, not {replaced[0]}.",
                    belief_type=BeliefType.FACT,
                    subjects=("switch",),
                    polarity=True,
                    rule="switch.replacement",
                    corrects=replaced,
                )
            )
        if residue and (
            ((len(out), out[-1] if out else None) == formed_before and grown is None)
            or _uncovered(
                strip_markers(spoken),
                [*out[formed_before[0] :], *([grown] if grown is not None else [])],
            )
            >= _UNCOVERED_MIN
        ):
            kept = residue_statement(spoken)
            if kept is not None and carries_nothing(strip_markers(spoken)):
                held.append(kept)
            elif kept is not None:
                out.append(kept)
    # A turn of nothing but talk about talk keeps one line, the turn's one way in (its
    # context carries the turn's words): the shortest, since it carries nothing itself.
    if held and not out:
        out.append(min(held, key=lambda f: len(f.statement)))
    return out


# A sentence a rule read is kept whole as well when what the rules formed from it leaves
# out at least this many of its content words ("I bought air tickets to Toronto, and
# I'm leaving the day after tomorrow evening" forms two episodes and loses nothing; "It
# was so amazing lying there watching the sky light up" after an episode would be lost).
_UNCOVERED_MIN = 2


def _uncovered(sentence: str, formed: list[Found]) -> int:
    """Content words of the sentence no statement formed from it carries."""
    have = {stem(w) for f in formed for w in lexemes(f.statement)}
    return len({stem(w) for w in lexemes(sentence) if w not in STOPWORDS} - have)
