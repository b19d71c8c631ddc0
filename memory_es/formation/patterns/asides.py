"""Rule family: what the user says about themself in passing, inside a question or a
request, or while weighing something up ("Can you suggest a lens for my Fujifilm
X-T5?", "I was thinking of baking with my favourite Swiss dark chocolate", "a harness
for a Border Collie like Pip?", "As a night-shift nurse, do you know ...?").

The question or the request forms nothing of its own: it asks; what is weighed up is
not decided (it forms as weighed up, never as done). What it takes for granted about
the user does, and only that: the named thing they have ("my Fujifilm X-T5"), what they
made or got ("the quilt that I sewed for my niece"), their favourite of a named kind,
the kind of person they are ("a beginner like me", "As a nurse, ..."), the kind their
named pet is. A reading out of a question is more guess than statement (a question can
suppose what is not so), so every one enters INFERRED: PROVISIONAL until the user says
it again, and it carries its turn's words for the index
(memory_es/formation/extractor.py), never the question's order.
"""

from __future__ import annotations

import re
from dataclasses import replace

from memory_es.domain.values import Authority, BeliefType
from memory_es.formation.patterns.lexicon import (
    ATTR,
    PREF,
    RELATIONS,
    YOU,
    F,
    alternation,
    word_set,
)
from memory_es.formation.patterns.morphology import past
from memory_es.formation.patterns.phrases import (
    article,
    content_words,
    episode_subject,
    head,
    third,
    tidy,
    usable,
)
from memory_es.formation.patterns.rule import Found, Rule, found, rule
from memory_es.retrieval.temporal import MONTH_NAMES, WEEKDAYS

# Where a noun phrase after "my" ends: a new clause, a preposition, a verb of its own.
_BOUNDARY = word_set(
    "that which who whose where when while if because since so and or but nor to for with "
    "in on at from into onto during as like than using by about around near after before "
    "without through over under of off up out i is are was were has have had will would "
    "can could should shall may might must do does did be been being it its this these "
    "those me you your what how why whether lately recently now currently already still "
    "just also too again either instead really sometimes often always usually every each "
    "any some all more most less anymore yet there here then tonight today tomorrow "
    "yesterday soon best better well properly correctly often fast"
)
_TIMES = (
    frozenset(WEEKDAYS)
    | frozenset(MONTH_NAMES)
    | word_set("christma easter thanksgiving diwali eid hanukkah ramadan")
)
# What may follow a named thing's own words: a relative clause, a list, a purpose.
_TAIL_ENDS = word_set("that which i and or to")
# Leading words of a named thing that say its state, not its name ("my new Kobo Libra").
_STATE_WORDS = r"(?:(?:new|old|trusty|current|beloved|own|brand new|little|first|second) )*"
# A word of a name or a model ("Kobo", "X-T5", "24-70mm", "f/2.8", "iPhone"): it carries
# a capital or a digit. "I" is the speaker, never a name.
_NAMED_WORD = r"(?!I\b)(?=[\w/.+-]*[A-Z0-9])[\w/.+-]*[\w+]"
_NAMED_THING = re.compile(
    rf"\b[Mm]y {_STATE_WORDS}(?P<np>{_NAMED_WORD}(?: {_NAMED_WORD})*"
    r"(?P<tail>(?: [a-z][a-z-]*){0,2}))(?P<after>\W|$)"
)
# "my quilt that I sewed for my niece", "the festival I volunteered at last month".
_MADE_OR_GOT = re.compile(
    r"\b(?P<det>[Mm]y|[Tt]he) (?P<np>[\w-]+(?: [\w-]+){0,3}?),? (?:that |which )?I "
    r"(?P<adv>(?:just|recently|finally|already|once|also) )?(?P<verb>[a-z]+)"
    r"(?P<rest>(?: [\w'-]+){0,10})"
)
_STRANDED = re.compile(
    r"^ (?P<prep>at|in|to|for|on|with|from|into|about)(?P<after>(?: (?!(?:a|an|the|my|our|"
    r"his|her|their|this|that)\b)[\w'-]+)*)$"
)
# "my favourite Swiss dark chocolate": the kind is named, so the favourite is known.
_FAVOURITE = re.compile(
    r"\b[Mm]y (?:all-time |absolute )?(?:favou?rite|fave) (?P<np>[A-Z][\w-]*(?: [\w-]+){0,3})"
)
# "a beginner like me", "a Border Collie like Pip".
_LIKE = re.compile(
    r"\b(?:a|an) (?P<kind>[\w-]+(?: [\w-]+){0,3}?) like (?P<who>me|(?-i:[A-Z][a-z]+))\b(?!')"
)
_NOT_KINDS = word_set(
    "someone somebody person people guy guys folks anyone anybody one thing something "
    "place way time lot bit"
)
# The breeds a named pet is said to be ("a Border Collie like Pip"): a dog's or a cat's.
_DOG_BREEDS = word_set(
    "retriever labrador lab poodle terrier shepherd bulldog beagle husky spaniel corgi "
    "dachshund collie chihuahua pug doodle labradoodle goldendoodle rottweiler doberman "
    "schnauzer greyhound whippet pointer setter hound mastiff maltese pomeranian sheepdog "
    "malamute shiba akita samoyed dalmatian weimaraner vizsla pinscher bernese newfoundland "
    "basset bichon havanese cavalier papillon"
)
_CAT_BREEDS = word_set(
    "siamese persian ragdoll bengal sphynx tabby shorthair longhair coon abyssinian burmese "
    "birman calico tortoiseshell"
)
# "As a nurse, ...", "As an avid hiker myself, ...": who the user says they are.
_ROLE_OPENER = re.compile(
    r"^(?:(?:so|and|but|well|also|oh|ok|okay)[, ]+)?As (?P<det>a|an) "
    r"(?P<role>[\w'-]+(?: [\w'-]+){0,4}?)(?: myself)?,\s"
)
_NOT_ROLES = word_set(
    "result matter reminder side note bonus rule whole treat gift step aside example "
    "alternative compromise effect precaution reward surprise joke favor favour resort "
    "backup start beginning kid child teen teenager boy girl baby toddler youngster young "
    "little quick general last final first thank thanks consequence follow-up followup "
    "heads-up update recap summary"
)


def role_opener(sentence: str) -> list[Found]:
    """ "As a Sony camera user, I ..." -> "User is a Sony camera user." (said of now; "As
    a kid, ..." speaks of then and forms nothing)."""
    m = _ROLE_OPENER.match(sentence)
    if m is None:
        return []
    role = m["role"]
    if YOU.search(role) or _NOT_ROLES.intersection(role.lower().split()):
        return []
    return [_inferred("aside.role", f"User is {m['det'].lower()} {role}", ATTR, role.lower())]


def taken_for_granted(text: str) -> list[Found]:
    """What a question, a request or a clause weighing something up takes for granted
    about the user."""
    out: list[Found] = []
    made = set()
    for m in _MADE_OR_GOT.finditer(text):
        got = _made_or_got(m)
        if got is not None:
            out.append(got)
            made.add(m["np"])
    for m in _FAVOURITE.finditer(text):
        got = _favourite(m["np"])
        if got is not None:
            out.append(got)
    for m in _NAMED_THING.finditer(text):
        np = _named(m)
        if np and not any(np in thing or thing in np for thing in made):
            subject = np.split()[-1].lower() if len(np.split()) > 1 else np.lower()
            out.append(_inferred("aside.has", f"User has {_thing(np)}", ATTR, subject))
    for m in _LIKE.finditer(text):
        got = _like(m["kind"], m["who"])
        if got is not None:
            out.append(got)
    return out


def _named(m: re.Match[str]) -> str:
    """The named thing a "my ..." match names, its trailing lowercase words kept only
    while they read as the name's own ("my Kobo Libra", "my Garmin bike computer"): "my
    Tesla charges slowly" is a Tesla."""
    base = m["np"][: len(m["np"]) - len(m["tail"])]
    if "'" in base or base.split()[0].lower() in RELATIONS or not re.search("[A-Z]", base):
        return ""  # "my 20-mile ride" names no thing; "my Mum's ..." is hers
    if _TIMES.intersection(w.lower().rstrip("s") for w in base.split()):
        return ""  # "my Thursdays", "my Christmas": a time of theirs, not a thing
    tail = m["tail"].split()
    if any(w in _BOUNDARY for w in tail):
        cut = next(at for at, w in enumerate(tail) if w in _BOUNDARY)
        # Words a relative clause or the question's end follows are the name's ("my
        # Suica card I just got"); words a preposition follows are a verb of its own
        # ("my Kobo Libra freeze at night").
        tail = tail[:cut] if m["tail"].split()[cut] in _TAIL_ENDS else []
    elif tail and m["after"].strip() == "" and m.end() < len(m.string):
        tail = []  # the words go on past the tail: a verb of the name's own
    if any(w.endswith("ly") for w in tail) or any(w.endswith("s") for w in tail[:-1]):
        tail = []
    return " ".join([base, *tail]).strip()


def _thing(np: str) -> str:
    """ "my Kobo Libra" -> "a Kobo Libra", "my 35mm lens" -> "a 35mm lens", "my Nike
    runners" -> "Nike runners"."""
    last = np.split()[-1].lower()
    plural = last.endswith("s") and not last.endswith(("ss", "us", "is", "ens"))
    return np if plural else article(np)


def _made_or_got(m: re.Match[str]) -> Found | None:
    verb = m["verb"]
    np = m["np"]
    if not past(verb) or verb in ("was", "were", "had", "did") or "'" in np:
        return None
    if np.split()[0].lower() in RELATIONS or YOU.search(m["rest"] or "") or YOU.search(np):
        return None
    if _BOUNDARY.intersection(w.lower() for w in np.split()):
        return None  # "the place where I met them": no thing the user made or got
    rest = _clause_end(m["rest"] or "")
    thing = _thing(np) if m["det"].lower() == "my" else f"the {np}"
    adv = m["adv"] or ""
    stranded = _STRANDED.match(rest)
    if stranded is not None:
        said = f"User {adv}{verb} {stranded['prep']} {thing}{stranded['after']}"
    else:
        said = f"User {adv}{verb} {thing}{third(rest)}"
    return _inferred("aside.made_or_got", said, ATTR, np.split()[-1].lower())


def _clause_end(rest: str) -> str:
    """The words of a relative clause up to where the question goes on ("... for my
    niece and do you think ..." -> " for my niece")."""
    words = rest.split()
    for at, word in enumerate(words):
        if word.lower() in ("and", "but", "so", "or", "because", "since", "if", "which", "that"):
            words = words[:at]
            break
    return (" " + " ".join(words)) if words else ""


def _favourite(np: str) -> Found | None:
    words = np.split()
    while words and words[-1].lower() in _BOUNDARY:
        words.pop()
    if len(words) < 2 or any(w.lower() in _BOUNDARY for w in words) or "'" in np:
        return None
    kind = words[-1].lower()
    thing = " ".join(words)
    return _inferred(
        "aside.favourite", f"User's favorite {kind} is {thing}", PREF, f"favorite {kind}"
    )


def _like(kind: str, who: str) -> Found | None:
    words = kind.split()
    if _NOT_KINDS.intersection(w.lower() for w in words) or YOU.search(kind):
        return None
    if who == "me":
        return _inferred("aside.kind", f"User is {article(kind)}", ATTR, words[-1].lower())
    breed = words[-1].lower()
    pet = "dog" if breed in _DOG_BREEDS else "cat" if breed in _CAT_BREEDS else None
    if pet is None:
        return None  # "a city like Lisbon" says nothing about the user
    return _inferred("aside.pet_kind", f"User's {pet} {who} is {article(kind)}", ATTR, pet)


def _inferred(name: str, statement: str, belief_type: BeliefType, subject: str) -> Found:
    return replace(found(name, statement, belief_type, subject), authority=Authority.INFERRED)


# -- what the user is weighing up ----------------------------------------------------------
# "I'm thinking of going back to Porto for the jazz festival", "I was considering
# switching to a standing desk": no decision yet (the hedge rule refuses it as a fact),
# but what the user says they are weighing up is so, and a later question about it
# ("Any tips for my trip to Porto?") is about that.
_WEIGHING = {
    "am thinking of": "is thinking of",
    "am thinking about": "is thinking about",
    "was thinking of": "was thinking of",
    "was thinking about": "was thinking about",
    "have been thinking of": "has been thinking of",
    "have been thinking about": "has been thinking about",
    "am considering": "is considering",
    "was considering": "was considering",
    "have been considering": "has been considering",
    "am debating": "is debating",
}
_WV = alternation(_WEIGHING)
# What a sentence about one's troubles is about ("I'm having issues with my faucet").
_TROUBLE = (
    r"(?:some |a few |a lot of |a bit of |real |serious )?(?:issues|trouble|problems|difficulty)"
)


@rule("aside.weighing", rf"^I (?:also |really |still )?(?P<verb>{_WV}) (?P<o>[a-z]+ing\b.+)$")
def _weighing(m: re.Match[str]) -> list[Found]:
    o = tidy(m["o"])
    if YOU.search(o) or content_words(o) < 3 or len(o.split()) > 16:
        return []  # "I'm thinking of asking you ...": about the conversation
    verb = _WEIGHING[m["verb"].lower()]
    statement = f"User {verb} {third(o)}"
    weighing = _inferred("aside.weighing", statement, F, episode_subject(o) or head(o))
    return [weighing, *taken_for_granted(m.string)]


@rule("aside.trouble", rf"^I (?:am|have been) having (?P<t>{_TROUBLE}) with (?P<o>.+)$")
def _trouble(m: re.Match[str]) -> list[Found]:
    o = tidy(m["o"])
    if YOU.search(o) or not usable(o) or content_words(o) < 2:
        return []
    statement = f"User is having {m['t'].lower()} with {third(o)}"
    return [_inferred("aside.trouble", statement, F, head(o)), *taken_for_granted(m.string)]


RULES: tuple[Rule, ...] = (_weighing, _trouble)
