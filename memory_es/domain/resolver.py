"""The resolver: how an incoming candidate meets what the principal already believes.

Rule order (seed): same source, duplicate, conflict, contradiction — after the durable
rejections, which nothing restated can get past — then revival: a statement the decay
sweep retired, stated again at its authority and contested by nothing live, returns as
the same belief rather than forming a second one. Authority ranks USER > AFFIRMED >
INFERRED per candidate; at equal authority, time orders — the incoming instant is the
newest source event's time, the existing one its ``valid_from``; inside one session the
source order decides. Polarity never enters the decision: a later retraction at the
same authority supersedes what it retracts, an earlier one conflicts, exactly as an
assertion would. A retraction (a negative candidate) reaches further than an assertion:
every live positive belief that names what it retracts, whatever its type ("User no
longer drinks coffee" reaches the preference "User prefers their coffee black", "User
quit the choir" the habit "User sings in the choir"). Several live beliefs may share a
subject: the candidate supersedes every one it beats and conflicts with every one it
does not. Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from memory_es.domain.values import Authority, subject_keys


class Outcome(StrEnum):
    NEW = "new"
    REJECTED = "rejected"
    SAME_SOURCE = "same_source"
    DUPLICATE = "duplicate"
    CONFLICT = "conflict"
    CONTRADICTION = "contradiction"
    REVIVED = "revived"


@dataclass(frozen=True)
class Evidence:
    """What the resolver needs to know about one belief, incoming or existing."""

    belief_type: str
    subject_key: str
    normalized: str
    polarity: bool
    authority: Authority
    instant: str  # ISO-8601 UTC; lexical order is time order
    session_id: str
    seq: int  # position of the newest source turn inside its session
    source_event_ids: frozenset[str]
    project: str
    portable: bool  # visible from every project (a portable type, or formed at user scope)


@dataclass(frozen=True)
class Existing:
    belief_id: str
    evidence: Evidence
    live: bool
    rejected: bool = False
    retired: bool = False  # retired by the decay sweep: forgotten, not contradicted


@dataclass(frozen=True)
class Decision:
    """``existing_id`` names the belief a rejection, same source or duplicate matched
    (or the first partner of a conflict or contradiction); ``supersedes`` and
    ``conflicts`` list every same-subject live belief the candidate beats or does not."""

    outcome: Outcome
    existing_id: str | None = None
    supersedes: tuple[str, ...] = ()
    conflicts: tuple[str, ...] = ()


def is_later(incoming: Evidence, existing: Evidence) -> bool:
    """True when time (or source order within one session) puts incoming after existing."""
    if incoming.session_id == existing.session_id:
        return incoming.seq > existing.seq
    return incoming.instant > existing.instant


def beats(incoming: Evidence, existing: Evidence) -> bool:
    """Authority first; at equal authority, only a strictly later source wins."""
    if incoming.authority != existing.authority:
        return incoming.authority > existing.authority
    return is_later(incoming, existing)


def visible(incoming: Evidence, existing: Evidence) -> bool:
    """Beliefs meet only where both can be seen: the same project, or a portable one."""
    return existing.project == incoming.project or existing.portable


# Words of a normalized statement, a possessive's "'s" cut ("ana's boat" names "boat").
_WORDS = re.compile(r"[\w-]+(?='s\b)|[\w'-]+")


# Words that frame a statement rather than state its value: never what changed.
_FRAME_WORDS = frozenset(
    [
        "user",
        "user's",
        "said",
        "they",
        "them",
        "their",
        "is",
        "are",
        "was",
        "were",
        "has",
        "have",
        "had",
        "a",
        "an",
        "the",
        "in",
        "at",
        "on",
        "of",
        "to",
        "for",
        "with",
        "and",
        "or",
        "but",
        "no",
        "not",
        "longer",
        "now",
    ]
)


# Words that tell of a change: a line that says them ("User is losing their job was
# hard", "User used to drink coffee") records the change, not the old state, and no
# retraction of the same object supersedes it.
_CHANGE_WORDS = frozenset(
    [
        "lost",
        "losing",
        "lose",
        "quit",
        "quitting",
        "sold",
        "selling",
        "left",
        "leaving",
        "stopped",
        "stopping",
        "gave",
        "giving",
        "moved",
        "moving",
        "closed",
        "closing",
        "broke",
        "ended",
        "anymore",
        "longer",
        "former",
        "used",
    ]
)


def tells_of_change(normalized: str) -> bool:
    return not _CHANGE_WORDS.isdisjoint(_WORDS.findall(normalized))


def retracted_objects(incoming: Evidence) -> tuple[str, ...]:
    """What a direct negative candidate retracts, as normalized words: the parts of
    its subject key its statement names ("coffee" of "no longer drinks coffee"), else
    the word its statement ends on ("vegetarian" of "is no longer vegetarian", whose
    key is "diet"). Empty for an assertion, and for an inference."""
    if incoming.polarity or incoming.authority is Authority.INFERRED:
        return ()  # a guess retracts nothing beyond its own subject
    words = _WORDS.findall(incoming.normalized)
    padded = f" {' '.join(words)} "
    named = [k for k in sorted(subject_keys(incoming.subject_key)) if f" {k} " in padded]
    objects = named or words[-1:]
    return tuple(o for o in objects if o not in _FRAME_WORDS and len(o) > 2)


def names_object(normalized: str, objects: Iterable[str]) -> bool:
    """Whether a normalized statement names one of ``objects`` as whole words."""
    padded = f" {' '.join(_WORDS.findall(normalized))} "
    return any(f" {o} " in padded for o in objects if o)


def changed_words(old: str, new: str) -> tuple[str, ...]:
    """The words of a superseded normalized statement its successor does not say, less
    the words that only frame a statement: the value that changed ("bristol")."""
    kept = set(_WORDS.findall(new)) | _FRAME_WORDS
    return tuple(dict.fromkeys(w for w in _WORDS.findall(old) if w not in kept and len(w) > 2))


def reaches(incoming: Evidence, existing: Evidence, objects: tuple[str, ...] = ()) -> bool:
    """Whether the candidate contests ``existing``: the same type and a shared subject,
    or a retraction of what a positive belief of any type names (``objects``:
    ``retracted_objects(incoming)``)."""
    if existing.belief_type == incoming.belief_type and (
        subject_keys(existing.subject_key) & subject_keys(incoming.subject_key)
    ):
        return not _told_together(incoming, existing)
    return (
        bool(objects)
        and existing.polarity
        # What the user said beside the retraction is the same story, not the old state.
        and existing.session_id != incoming.session_id
        and names_object(existing.normalized, objects)
        and not tells_of_change(existing.normalized)
    )


def _told_together(incoming: Evidence, existing: Evidence) -> bool:
    """A retraction and an assertion of one session on the same subject that name
    different values are one story told together ("I left Acme and joined Globex":
    "User no longer works at Acme." and "User works at Globex."), not a contradiction."""
    if incoming.polarity == existing.polarity or incoming.session_id != existing.session_id:
        return False
    negative, positive = (existing, incoming) if incoming.polarity else (incoming, existing)
    objects = retracted_objects(negative)
    return bool(objects) and not names_object(positive.normalized, objects)


def resolve(incoming: Evidence, beliefs: Iterable[Existing]) -> Decision:
    candidates = list(beliefs)
    # 0. Durable rejection: the user said no to this statement; however often it is
    #    restated (or replayed), it does not return.
    for b in candidates:
        if b.rejected and b.evidence.normalized == incoming.normalized:
            return Decision(Outcome.REJECTED, b.belief_id)
    # 1. Same source: these turns already formed this statement (any status). A replay
    #    of old evidence must not form it again, nor revive what replaced it.
    for b in candidates:
        if (
            b.evidence.normalized == incoming.normalized
            and incoming.source_event_ids
            and incoming.source_event_ids <= b.evidence.source_event_ids
        ):
            return Decision(Outcome.SAME_SOURCE, b.belief_id)
    live = [b for b in candidates if b.live and visible(incoming, b.evidence)]
    # 2. Duplicate: the same statement is already believed; reinforce it.
    for b in live:
        if b.evidence.normalized == incoming.normalized:
            return Decision(Outcome.DUPLICATE, b.belief_id)
    # 3/4. Same type and subject (or what a retraction retracts), different statement:
    #      conflict with every belief the candidate does not beat, supersede every one
    #      it does.
    supersedes: list[str] = []
    conflicts: list[str] = []
    objects = retracted_objects(incoming)
    for b in live:
        if not reaches(incoming, b.evidence, objects):
            continue
        (supersedes if beats(incoming, b.evidence) else conflicts).append(b.belief_id)
    if conflicts:
        return Decision(Outcome.CONFLICT, conflicts[0], tuple(supersedes), tuple(conflicts))
    if supersedes:
        return Decision(Outcome.CONTRADICTION, supersedes[0], tuple(supersedes), ())
    # 5. Revival: a statement the decay sweep retired for want of evidence is stated
    #    again at the authority it had, and nothing live contests it: the same belief
    #    returns with the new evidence (seed 000: "new evidence revives the statement").
    for b in candidates:
        if (
            b.retired
            and b.evidence.normalized == incoming.normalized
            and b.evidence.authority == incoming.authority
            and visible(incoming, b.evidence)
        ):
            return Decision(Outcome.REVIVED, b.belief_id)
    return Decision(Outcome.NEW)
