"""The pattern catalogue of the deterministic extractor.

Each rule reads one clause (already repaired, split and stripped of discourse markers by
``memory_es.formation.text``) and returns the beliefs it states, in the third person.
The rules run in order and the first that matches wins, so retractions are read before
the assertions they retract and hedges ("I think", "I want to") before anything that
would read them as facts. docs/formation.md documents every rule: its belief type, its
subject and its statement form. Keep the two in step: the benchmark matches on the
(type, subject, statement) triple.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from memory_es.domain.values import SUBJECT_KEY_SEPARATOR, BeliefType
from memory_es.formation.text import (
    QUESTION_OPENERS,
    clauses,
    repair,
    sentences,
    strip_markers,
)

F = BeliefType.FACT
PREF = BeliefType.PREFERENCE
REL = BeliefType.RELATIONSHIP
ATTR = BeliefType.USER_MODEL_ATTR

PROJECT_DECISION = "project decision"
HOME = ("home location", "location")


@dataclass(frozen=True)
class Found:
    statement: str
    belief_type: BeliefType
    subjects: tuple[str, ...]
    polarity: bool
    rule: str
    key: str | None = None


# -- pieces of patterns ------------------------------------------------------------------

# Adverbs that may sit between "I" and the verb without changing the claim.
ADV = (
    r"(?:(?:also|still|currently|now|actually|really|mostly|usually|generally|definitely|"
    r"just|totally|absolutely|honestly|do|kind of|kinda|sort of|personally|strongly|much|"
    r"truly|always|recently|finally|officially|happily|basically|literally|very|"
    r"pretty much|mainly|primarily|only)\s+)*"
)
DET = r"(?:a|an|the|my|our|some|one|two|three|four|five|\d+)"
NAME = r"(?-i:[A-Z][\w'.-]*(?:\s+[A-Z][\w'.-]*){0,2})"

RELATIONS: dict[str, tuple[str, ...]] = {
    "wife": ("wife", "spouse"),
    "husband": ("husband", "spouse"),
    "spouse": ("spouse",),
    "partner": ("partner", "spouse"),
    "girlfriend": ("girlfriend", "partner"),
    "boyfriend": ("boyfriend", "partner"),
    "fiance": ("fiance", "partner"),
    "fiancé": ("fiancé", "partner"),
    "fiancee": ("fiancee", "partner"),
    "fiancée": ("fiancée", "partner"),
    "mom": ("mom", "mother"),
    "mother": ("mother",),
    "mum": ("mum", "mother"),
    "dad": ("dad", "father"),
    "father": ("father",),
    "sister": ("sister", "sibling"),
    "brother": ("brother", "sibling"),
    "son": ("son", "child"),
    "daughter": ("daughter", "child"),
    "kid": ("kid", "child"),
    "child": ("child",),
    "baby": ("baby", "child"),
    "grandmother": ("grandmother",),
    "grandma": ("grandma", "grandmother"),
    "grandfather": ("grandfather",),
    "grandpa": ("grandpa", "grandfather"),
    "aunt": ("aunt",),
    "uncle": ("uncle",),
    "cousin": ("cousin",),
    "niece": ("niece",),
    "nephew": ("nephew",),
    "manager": ("manager", "boss"),
    "boss": ("boss", "manager"),
    "cofounder": ("cofounder",),
    "co-founder": ("co-founder", "cofounder"),
    "best friend": ("best friend", "friend"),
    "friend": ("friend",),
    "roommate": ("roommate",),
    "flatmate": ("flatmate", "roommate"),
    "mentor": ("mentor",),
    "tech lead": ("tech lead", "manager"),
    "team lead": ("team lead", "manager"),
    "therapist": ("therapist",),
    "doctor": ("doctor",),
    "dentist": ("dentist",),
    "landlord": ("landlord",),
    "neighbor": ("neighbor",),
    "neighbour": ("neighbour", "neighbor"),
    "dog": ("dog", "pet"),
    "cat": ("cat", "pet"),
    "puppy": ("puppy", "pet"),
    "kitten": ("kitten", "pet"),
    "pet": ("pet",),
}
_REL_ALT = "|".join(sorted((re.escape(r) for r in RELATIONS), key=len, reverse=True))
REL_WORD = rf"(?P<rel>{_REL_ALT})"

OCCUPATIONS = (
    r"(?:engineer|developer|dev|designer|manager|scientist|analyst|teacher|nurse|doctor|"
    r"physician|surgeon|student|lawyer|attorney|consultant|researcher|architect|writer|"
    r"author|journalist|editor|founder|cofounder|co-founder|ceo|cto|cfo|coo|vp|lead|"
    r"director|intern|programmer|accountant|professor|lecturer|pm|administrator|admin|"
    r"artist|chef|cook|pharmacist|therapist|officer|specialist|coordinator|technician|"
    r"mechanic|electrician|plumber|photographer|musician|marketer|recruiter|salesperson|"
    r"freelancer|contractor|sre|owner|entrepreneur|economist|statistician|librarian|"
    r"veterinarian|vet|dentist|paramedic|firefighter|pilot|driver|barista|waiter|"
    r"waitress|cashier|clerk|secretary|assistant|associate|tester|qa|devops|"
    r"mathematician|physicist|chemist|biologist|translator|tutor|coach|trainer|"
    r"counselor|psychologist|psychiatrist|student|phd student|postdoc|resident|"
    r"carpenter|farmer|banker|trader|investor|producer|animator|illustrator|"
    r"copywriter|strategist|advisor|adviser|auditor|realtor|agent|instructor)"
)

# Topics that name a preference's subject (only for "prefer"; see docs/formation.md).
PREFERENCE_TOPICS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "answer style",
        re.compile(
            r"\b(?:answers?|responses?|replies|reply|explanations?|summaries|summary|"
            r"bullet points?|bullets|prose|verbose|verbosity|tl;?dr|code examples?|examples)\b",
            re.I,
        ),
    ),
    ("indentation style", re.compile(r"\b(?:tabs|spaces|indentation|indents?)\b", re.I)),
    ("theme", re.compile(r"\b(?:dark|light) (?:mode|theme)s?\b|\bthemes?\b", re.I)),
    ("drink", re.compile(r"\b(?:tea|coffee|espresso|latte|matcha|cappuccino)\b", re.I)),
    ("units", re.compile(r"\b(?:metric|imperial|celsius|fahrenheit|kilometers|miles)\b", re.I)),
    (
        "programming language",
        re.compile(
            r"\b(?:python|golang|rust|java|javascript|typescript|kotlin|swift|ruby|haskell|"
            r"elixir|scala|php|ocaml|clojure|zig)\b|(?<!\w)(?:c\+\+|c#)(?!\w)",
            re.I,
        ),
    ),
    (
        "communication channel",
        re.compile(
            r"\b(?:e-?mails?|slack|phone calls?|text messages?|texts|zoom calls?|"
            r"video calls?|async updates?)\b",
            re.I,
        ),
    ),
    (
        "meeting time",
        re.compile(r"\b(?:morning|afternoon|evening) meetings\b|\bmeetings in the \w+\b", re.I),
    ),
    ("seat", re.compile(r"\b(?:window|aisle) seats?\b", re.I)),
)

# Head words that make "I have X" a conversational move rather than a possession.
NOT_POSSESSIONS = re.compile(
    r"^(?:question|questions|idea|ideas|issue|issues|problem|problems|bug|bugs|error|"
    r"errors|meeting|meetings|call|calls|feeling|feelings|concern|concerns|doubt|doubts|"
    r"suggestion|suggestions|request|requests|favor|favour|appointment|appointments|"
    r"deadline|deadlines|time|minute|minutes|second|moment|thought|thoughts|follow-up|"
    r"followup|look|chance|clue|plan|plans|lot|bunch|couple|few|day|days|week|weeks|"
    r"month|months|year|years|hour|hours|headache|cold|fever|flu|job|task|tasks|"
    r"meeting|interview|exam|test|presentation|demo|draft|list|number|way|choice|"
    r"option|options|access|permission|permissions|update|updates|quick|small|"
    r"weird|strange|similar|new|different|same|other|another|nothing|something|"
    r"anything|everything|no|none|trouble|difficulty|experience|background|"
    r"budget|limit|point|reason|sense|hunch|preference|opinion|habit|"
    # what someone debugging or drafting "has": the work in front of them, not a belonging
    r"function|functions|class|classes|method|methods|file|files|list|lists|dict|dicts|"
    r"dictionary|dataframe|df|script|scripts|table|tables|column|columns|query|queries|"
    r"loop|variable|variables|array|arrays|string|strings|object|objects|component|"
    r"endpoint|branch|commit|dataset|csv|json|snippet|code|build|config|output|result|"
    r"results|warning|warnings|exception|stack trace|log|logs|copy|document|doc|docs|"
    r"spreadsheet|pr|pull request|ticket|case|version|draft|regex|test|tests|typo|"
    r"follow up|concern|announcement|favorite|feeling)\b",
    re.I,
)

# Objects that pick among things on the screen ("the second one", "a shorter version"):
# a choice in the conversation, not a lasting preference or possession.
_CHOICE = re.compile(
    r"^(?:(?:the|a|an|this|that)\s+)?(?:(?:first|second|third|fourth|last|other|former|"
    r"latter|previous|next|newer|latest|shorter|longer|original|updated|revised|"
    r"top|bottom|simpler|cleaner|same|above|below|current)\b"
    r"|(?:\w+\s+){0,2}(?:one|ones|option|options|version|versions|approach|draft|"
    r"suggestion|alternative|variant)\b)",
    re.I,
)
_PRONOUN_OBJECT = re.compile(
    r"^(?:it|this|that|them|these|those|one|something|stuff|things?|you|your|him|her|"
    r"everything|anything|nothing|what|how|when|where|if|whether|so|too|much|more|"
    r"here|there|to)\b",
    re.I,
)
# Where an object phrase stops being the object: a new clause or a reason.
_OBJECT_CUT = re.compile(
    r"\s+(?:because|since|so that|so I|so we|which|but|although|though|if|unless|"
    r"when I|when we|while|whereas|lol|haha|and I|and we|and my|and it|and that|"
    r"and so|as I|as we|cause|cuz)\b.*$",
    re.I,
)
_RELATIVE_CUT = re.compile(r"\s+(?:that|which|who|whose|where)\b.*$", re.I)
_PLACE_CUT = re.compile(
    r"\s+(?:with|for|since|near|where|now that|and have|and work|and I|ever since|"
    r"these days|at the moment|right now|currently|now)\b.*$",
    re.I,
)
_TRAILING = re.compile(
    r"(?:\s+(?:now|these days|nowadays|currently|at the moment|right now|anymore|"
    r"any more|any longer|lol|haha|too|as well|btw|though|actually|honestly|tbh|"
    r"for now|by the way|fyi|really|a lot|very much|so much|please|pls|mostly|mainly|"
    r"usually|most of the time|for the most part|i guess|i think|haha|lmao|:\)|ok)"
    r"|\s*[:;]-?[)(DPp]|\s*[.!?,;:\u2026]+|\s+)$",
    re.I,
)
_HEAD_CUT = re.compile(
    r"\s+(?:for|to|with|on|at|in|from|over|than|instead|rather|because|since|when|while|"
    r"that|which|who|as|by|and|or|but|so|during|every|into|about|via|after|before|"
    r"like|whenever|if|most|all)\b.*$",
    re.I,
)
_LEAD_DET = re.compile(
    r"^(?:(?:a|an|the|my|our|their|some|any|this|that|these|those|one|two|three|four|"
    r"five|\d+|new|brand new|own|pair of|couple of|a bit of|bit of|a little|little|some)\s+)+",
    re.I,
)


def tidy(obj: str, *, cut: re.Pattern[str] | None = None) -> str:
    """The object phrase, with trailing reasons, fillers and punctuation removed."""
    obj = obj.strip().strip('"')
    obj = _OBJECT_CUT.sub("", obj)
    if cut is not None:
        obj = cut.sub("", obj)
    previous = None
    while previous != obj:
        previous = obj
        obj = _TRAILING.sub("", obj)
    return obj.strip()


_PRONOUNS = (
    (re.compile(r"\bmyself\b", re.I), "themselves"),
    (re.compile(r"\bmy\b", re.I), "their"),
    (re.compile(r"\bmine\b", re.I), "theirs"),
    (re.compile(r"\bme\b"), "them"),
    (re.compile(r"\bI am\b"), "they are"),
    (re.compile(r"\bI\b"), "they"),
    (re.compile(r"\bour\b", re.I), "their"),
    (re.compile(r"\bus\b"), "them"),
    (re.compile(r"\bwe are\b", re.I), "they are"),
    (re.compile(r"\bwe\b", re.I), "they"),
)
_TEAM_PRONOUNS = (
    (re.compile(r"\bour\b", re.I), "its"),
    (re.compile(r"\bourselves\b", re.I), "itself"),
    (re.compile(r"\bus\b"), "the team"),
    (re.compile(r"\bwe are\b", re.I), "the team is"),
    (re.compile(r"\bwe have\b", re.I), "the team has"),
    (re.compile(r"\bwe\b", re.I), "the team"),
)


def third(obj: str, *, team: bool = False) -> str:
    for pattern, replacement in _TEAM_PRONOUNS if team else _PRONOUNS:
        obj = pattern.sub(replacement, obj)
    return obj


def indefinite(obj: str) -> str:
    """ "my Apple Watch" -> "an Apple Watch": what the user had, not whose it is."""
    m = re.match(r"(?i)^(?:my|our|the)\s+(?:own\s+)?(.+)$", obj)
    if m is None:
        return obj
    rest = m.group(1)
    if re.match(r"(?i)^(?:\d|two|three|four|five|several|some|many)\b", rest) or re.search(
        r"(?i)s$", rest.split()[-1]
    ):
        return rest if not rest.split()[-1].lower().endswith("ss") else _article(rest)
    return _article(rest)


def _article(rest: str) -> str:
    return ("an " if re.match(r"(?i)^[aeiou]", rest) else "a ") + rest


def head(obj: str) -> str:
    """The subject a phrase is about: determiners off, cut at the first preposition."""
    h = _LEAD_DET.sub("", obj.strip())
    h = _HEAD_CUT.sub("", h)
    h = re.sub(r"(?i)\s+(?:installed|set up|configured|running)$", "", h)
    words = h.split()
    return " ".join(words[:4]).strip(" ,.;:!?'\"")


_LOWER_WORDS = frozenset(
    ["of", "the", "and", "de", "la", "le", "du", "von", "van", "der", "in", "on", "upon"]
)


def proper(name: str) -> str:
    """Casual typing of a place or company ("berlin") read as its name ("Berlin")."""
    if name != name.lower() or re.match(rf"(?i)^{DET}\b", name) or len(name.split()) > 3:
        return name
    words = name.split()
    return " ".join(
        w if (i and w in _LOWER_WORDS) else w[:1].upper() + w[1:] for i, w in enumerate(words)
    )


def usable(obj: str) -> bool:
    return (
        bool(obj)
        and not _PRONOUN_OBJECT.match(obj)
        and not _CHOICE.match(obj)
        and len(obj.split()) <= 16
    )


def sentence_case(statement: str) -> str:
    statement = re.sub(r"\s+", " ", statement).strip()
    statement = re.sub(r"\s+([,.;:!?])", r"\1", statement)
    return statement.rstrip(".,;:!? ") + "."


def split_list(obj: str) -> list[str]:
    """'an Apple Watch and a Garmin bike computer' -> two items, when it reads as a list."""
    parts = [p.strip() for p in re.split(r"\s*,\s*(?:and\s+)?|\s+and\s+", obj) if p.strip()]
    if len(parts) < 2 or any(len(p.split()) > 5 for p in parts):
        return [obj]
    if not all(re.match(rf"(?i)^{DET}\b", p) or p[:1].isupper() for p in parts[1:]):
        return [obj]
    return parts


# -- rules -------------------------------------------------------------------------------

Rule = Callable[[re.Match[str]], list[Found]]
RULES: list[tuple[str, re.Pattern[str], Rule]] = []
# Rules anchored on a first word ("^I ", "^My "), so a clause only tries its own.
_ANCHORS: dict[str, str] = {"^I ": "i", "^My ": "my"}
_BY_FIRST_WORD: dict[str | None, list[tuple[str, re.Pattern[str], Rule]]] = {}


def rule(name: str, pattern: str) -> Callable[[Rule], Rule]:
    compiled = re.compile(pattern, re.I)
    anchor = next((w for prefix, w in _ANCHORS.items() if pattern.startswith(prefix)), None)

    def register(fn: Rule) -> Rule:
        entry = (name, compiled, fn)
        RULES.append(entry)
        _BY_FIRST_WORD.setdefault(anchor, []).append(entry)
        return fn

    return register


def _rules_for(first_word: str) -> list[tuple[str, re.Pattern[str], Rule]]:
    """Rules a clause opening with this word can match, in catalogue order."""
    key = first_word if first_word in ("i", "my") else None
    if key is None:
        return _BY_FIRST_WORD.get(None, [])
    mine = {id(r) for r in _BY_FIRST_WORD.get(key, [])} | {
        id(r) for r in _BY_FIRST_WORD.get(None, [])
    }
    return [r for r in RULES if id(r) in mine]


def found(
    name: str,
    statement: str,
    belief_type: BeliefType,
    subjects: tuple[str, ...] | str,
    *,
    polarity: bool = True,
    key: str | None = None,
) -> Found:
    subs = (subjects,) if isinstance(subjects, str) else subjects
    return Found(
        statement=sentence_case(statement),
        belief_type=belief_type,
        subjects=tuple(s for s in subs if s),
        polarity=polarity,
        rule=name,
        key=key,
    )


# Retractions first: they carry the verbs the assertions below also read.
_RETRACT_VERBS: dict[str, tuple[str, BeliefType, str]] = {
    # verb -> (third person, type, subject rule: "head" | "home" | "employment")
    "use": ("uses", ATTR, "head"),
    "using": ("uses", ATTR, "head"),
    "have": ("has", ATTR, "head"),
    "own": ("owns", ATTR, "head"),
    "owning": ("owns", ATTR, "head"),
    "drive": ("drives", ATTR, "head"),
    "driving": ("drives", ATTR, "head"),
    "play": ("plays", ATTR, "head"),
    "playing": ("plays", ATTR, "head"),
    "speak": ("speaks", ATTR, "head"),
    "wear": ("wears", ATTR, "head"),
    "wearing": ("wears", ATTR, "head"),
    "live in": ("lives in", ATTR, "home"),
    "living in": ("lives in", ATTR, "home"),
    "work at": ("works at", ATTR, "employment"),
    "work for": ("works at", ATTR, "employment"),
    "working at": ("works at", ATTR, "employment"),
    "working for": ("works at", ATTR, "employment"),
    "drink": ("drinks", PREF, "head"),
    "drinking": ("drinks", PREF, "head"),
    "eat": ("eats", PREF, "head"),
    "eating": ("eats", PREF, "head"),
    "like": ("likes", PREF, "head"),
    "love": ("loves", PREF, "head"),
    "prefer": ("prefers", PREF, "prefer"),
}
_RV = "|".join(sorted((re.escape(v) for v in _RETRACT_VERBS), key=len, reverse=True))


def _retraction(name: str, verb: str, obj: str) -> list[Found]:
    third_verb, belief_type, subject_rule = _RETRACT_VERBS[verb.lower()]
    o = tidy(obj, cut=_PLACE_CUT if subject_rule == "home" else None)
    if not usable(o):
        return []
    if subject_rule == "home":
        return [found(name, f"User no longer {third_verb} {third(o)}", ATTR, HOME, polarity=False)]
    if subject_rule == "employment":
        return [
            found(name, f"User no longer works at {third(o)}", ATTR, "employment", polarity=False)
        ]
    shown = indefinite(o)
    subject = preference_subject(o) if subject_rule == "prefer" else head(o)
    return [
        found(
            name,
            f"User no longer {third_verb} {third(shown)}",
            belief_type,
            subject,
            polarity=False,
        )
    ]


@rule("retraction.no_longer", rf"^I {ADV}no longer (?P<verb>{_RV})\s+(?P<o>.+)$")
def _no_longer(m: re.Match[str]) -> list[Found]:
    return _retraction("retraction.no_longer", m["verb"], m["o"])


@rule(
    "retraction.not_anymore",
    rf"^I {ADV}do not (?P<verb>{_RV})\s+(?P<o>.+?)\s+(?:any ?more|any longer)\b.*$",
)
def _not_anymore(m: re.Match[str]) -> list[Found]:
    return _retraction("retraction.not_anymore", m["verb"], m["o"])


@rule("retraction.stopped", rf"^I {ADV}(?:have )?(?:stopped|quit) (?P<verb>{_RV})\s+(?P<o>.+)$")
def _stopped(m: re.Match[str]) -> list[Found]:
    return _retraction("retraction.stopped", m["verb"], m["o"])


@rule(
    "retraction.got_rid_of",
    r"^I (?:have )?(?:just |finally )?(?:sold|got rid of|gave away|returned|lost|ditched)"
    r" (?P<o>(?:my|our) .+)$",
)
def _got_rid_of(m: re.Match[str]) -> list[Found]:
    o = tidy(m["o"])
    if not usable(o):
        return []
    return [
        found(
            "retraction.got_rid_of",
            f"User no longer has {indefinite(o)}",
            ATTR,
            head(o),
            polarity=False,
        )
    ]


@rule(
    "retraction.left_job",
    rf"^I {ADV}(?:have )?(?:left|quit)(?: my job at| my job with| my position at)?"
    rf" (?P<o>{NAME})(?P<rest>.*)$",
)
def _left_job(m: re.Match[str]) -> list[Found]:
    if m["rest"].strip() and not re.match(r"(?i)^\s*(?:last|this|in|a|after|because)", m["rest"]):
        return []
    return [
        found(
            "retraction.left_job",
            f"User no longer works at {m['o']}",
            ATTR,
            "employment",
            polarity=False,
        )
    ]


@rule("retraction.moved_away", rf"^I {ADV}(?:have )?moved (?:away )?(?:from|out of) (?P<o>{NAME})$")
def _moved_away(m: re.Match[str]) -> list[Found]:
    return [
        found(
            "retraction.moved_away", f"User no longer lives in {m['o']}", ATTR, HOME, polarity=False
        )
    ]


_NEGATED = {
    "use": "does not use",
    "have": "does not have",
    "own": "does not own",
    "drive": "does not drive",
    "drink": "does not drink",
    "eat": "does not eat",
    "speak": "does not speak",
    "play": "does not play",
}


@rule(
    "attr.does_not",
    r"^I (?:really |actually )?do not (?P<verb>use|have|own|drive|drink|eat|"
    r"speak|play) (?P<o>.+)$",
)
def _does_not(m: re.Match[str]) -> list[Found]:
    o = tidy(m["o"])
    subject = head(o)
    if not usable(o) or not subject or NOT_POSSESSIONS.match(subject):
        return []
    belief_type = PREF if m["verb"].lower() in ("drink", "eat") else ATTR
    verb = _NEGATED[m["verb"].lower()]
    return [found("attr.does_not", f"User {verb} {third(o)}", belief_type, subject, polarity=False)]


# Birth and origin read before the hedge guard ("I was ..." is otherwise past tense).
@rule("attr.born_in", r"^I was born (?P<prep>in|on) (?P<o>.+)$")
def _born(m: re.Match[str]) -> list[Found]:
    o = tidy(m["o"])
    if not usable(o):
        return []
    subject = "birthplace" if m["prep"].lower() == "in" else "birthday"
    if m["prep"].lower() == "in" and re.match(r"^(?:\d{4}|the \d|19|20)", o):
        subject = "birth year"
    return [found("attr.born_in", f"User was born {m['prep'].lower()} {o}", ATTR, subject)]


@rule("attr.grew_up", rf"^I {ADV}grew up in (?P<o>.+)$")
def _grew_up(m: re.Match[str]) -> list[Found]:
    o = tidy(m["o"], cut=_PLACE_CUT)
    if not usable(o):
        return []
    return [found("attr.grew_up", f"User grew up in {proper(third(o))}", ATTR, "hometown")]


# Hedges, intentions, past tense and talk about the conversation form nothing.
@rule(
    "none.hedge",
    r"^I (?:think|guess|feel like|wonder|want|wanna|need|needed|used to|might|may|"
    # past tense is an episode (fact.episode below) unless it reports a passing thought
    r"was thinking|was wondering|was hoping|was going to|was gonna|was trying|was about to|"
    r"was just|was told|was asking|was not sure|was curious|was looking for|had to|"
    r"had no idea|had a question|did not|have been thinking|have been wondering|"
    r"have been meaning|have been trying|have been asking|have been looking for|"
    r"am going to try|am going to check|am going to need|am going to ask|"
    r"could|should|must|can(?! not stand| not bear)|will|would like|would love|"
    r"would rather|would be|would not|"
    r"hope|wish|mean|meant|said|told|asked|forgot|forget|believe|suppose|bet|doubt|"
    r"imagine|assume|agree|disagree|see|understand|know|(?:get|got) it(?=\W*$)|"
    r"appreciate|apologize|apologise|promise|try|"
    r"tried (?:that|this|it|everything|again|your|the (?:fix|code|command|script|solution))|"
    r"am trying to (?:figure|understand|fix|debug|get|make|decide|work out)|"
    r"am looking at|am looking for (?:help|advice|a way|ideas|tips|suggestions|feedback)|"
    r"am thinking|am wondering|am curious|am asking|"
    r"am not sure|am unsure|am here|am back|am sorry|am glad|"
    r"am done|am ready|am good|am fine|am okay|am ok|am confused|am stuck|am tired|"
    r"am working on (?:this|that|it|a bug|an? (?:script|function|query|issue|problem|fix)|"
    r"the (?:code|bug|script|function|query|issue|problem|fix|report|deck|slides))\b|"
    r"am about to|am still trying|am having|am getting|am hoping|"
    r"am considering|am debating|am testing|"
    r"am sure|am afraid|am just|do not know|do not think|"
    r"do not understand|do not remember|did it|did that|did not|have to|have got to|"
    r"have no idea|"
    r"have a question|have a few|have some questions|love to|like to think|"
    r"keep|kept|just wanted|also wanted|wanted)\b",
)
def _hedge(m: re.Match[str]) -> list[Found]:
    return []


# Residence.
@rule(
    "attr.residence",
    rf"^I {ADV}(?:am |have been )?(?:live|living|reside|residing|based|located|stay|staying)"
    r" (?:in|at) (?P<o>.+)$",
)
def _residence(m: re.Match[str]) -> list[Found]:
    o = tidy(m["o"], cut=_PLACE_CUT)
    if not usable(o):
        return []
    return [found("attr.residence", f"User lives in {proper(third(o))}", ATTR, HOME)]


@rule("attr.residence", rf"^I {ADV}am based out of (?P<o>.+)$")
def _based_out_of(m: re.Match[str]) -> list[Found]:
    return _residence(m)


@rule(
    "attr.moved_to",
    rf"^I {ADV}(?:have )?(?:just )?(?:moved|relocated)(?: from (?P<from>{NAME}))? to (?P<o>{NAME})"
    r"(?P<rest>.*)$",
)
def _moved_to(m: re.Match[str]) -> list[Found]:
    o = tidy(m["o"], cut=_PLACE_CUT)
    return [found("attr.moved_to", f"User lives in {o}", ATTR, HOME)] if usable(o) else []


@rule("attr.home_is", r"^My (?:home|house|apartment|flat|place) is in (?P<o>.+)$")
def _home_is(m: re.Match[str]) -> list[Found]:
    return _residence(m)


@rule("attr.origin", rf"^I {ADV}am (?:originally )?from (?P<o>.+)$")
def _origin(m: re.Match[str]) -> list[Found]:
    o = tidy(m["o"], cut=_PLACE_CUT)
    if not usable(o):
        return []
    return [found("attr.origin", f"User is from {proper(third(o))}", ATTR, "origin")]


# Employment and role.
def _employment(name: str, org: str, role: str | None) -> list[Found]:
    org = tidy(org, cut=re.compile(r"\s+(?:for|since|in|on|and|where)\b.*$", re.I))
    if not usable(org):
        return []
    org = proper(org)
    if role:
        role = tidy(role)
        if not re.match(rf"(?i)^(?:{DET}|their|his|her|its)\b", role):
            role = _article(role)
        return [found(name, f"User works at {org} as {third(role)}", ATTR, "employment")]
    return [found(name, f"User works at {org}", ATTR, "employment")]


@rule(
    "attr.work_remote",
    rf"^I {ADV}(?:work|am working) (?P<o>remotely|from home|remote|hybrid|"
    r"in (?:the|an) office|on-?site)\b.*$",
)
def _work_remote(m: re.Match[str]) -> list[Found]:
    mode = m["o"].lower()
    mode = "remotely" if mode == "remote" else mode
    return [found("attr.work_arrangement", f"User works {mode}", ATTR, "work arrangement")]


@rule(
    "attr.employment",
    rf"^I {ADV}(?:work|am working|am employed|am|have been working)"
    rf" (?:at|for|by|with) (?P<org>{NAME})(?:\s+as\s+(?P<role>.+)|(?P<rest>\s+.*))?$",
)
def _works_at(m: re.Match[str]) -> list[Found]:
    rest = (m["rest"] or "").strip()
    if rest and not re.match(r"(?i)^(?:for|since|now|these|currently|and|,|in|on)\b", rest):
        return []
    return _employment("attr.employment", m["org"], m["role"])


@rule(
    "attr.employment",
    rf"^I {ADV}work (?:at|for) (?P<org>(?:the|a|an) .+?)(?:\s+as\s+(?P<role>.+))?$",
)
def _works_at_lower(m: re.Match[str]) -> list[Found]:
    return _employment("attr.employment", m["org"], m["role"])


@rule(
    "attr.employment",
    rf"^I {ADV}(?:work|am working) as (?P<role>.+?)(?: (?:at|for|with) (?P<org>.+))?$",
)
def _work_as(m: re.Match[str]) -> list[Found]:
    if m["org"]:
        return _employment("attr.employment", m["org"], m["role"])
    role = tidy(m["role"])
    if not usable(role):
        return []
    if not re.match(rf"(?i)^{DET}\b", role):
        role = _article(role)
    return [found("attr.role", f"User works as {third(role)}", ATTR, "role")]


@rule(
    "attr.employment",
    rf"^I {ADV}am (?P<role>(?:a|an|the) (?:[\w-]+ ){{0,3}}{OCCUPATIONS}s?)"
    r"(?: (?:at|for|with|in) (?P<org>.+))?$",
)
def _am_role(m: re.Match[str]) -> list[Found]:
    if m["org"] and re.match(r"^[A-Z]", m["org"]):
        return _employment("attr.employment", m["org"], m["role"])
    role = tidy(m["role"] + (f" in {m['org']}" if m["org"] else ""))
    return [found("attr.role", f"User is {third(role)}", ATTR, "role")]


@rule(
    "attr.employment",
    rf"^I {ADV}(?:have )?(?:joined|started at|started working at|started working for|"
    rf"started a new job at|got a (?:new )?job at|got a (?:new )?job with|got hired at|"
    rf"got hired by|accepted an offer from|accepted a job at)"
    rf" (?P<org>{NAME})(?:\s+as\s+(?P<role>.+))?(?P<rest>.*)$",
)
def _joined(m: re.Match[str]) -> list[Found]:
    if m["rest"].strip() and not re.match(
        r"(?i)^\s*(?:last|this|in|a|on|recently|two|three)", m["rest"]
    ):
        return []
    return _employment("attr.employment", m["org"], m["role"])


# Relationships.
# One partner at a time: girlfriend, fiancée, wife (and the rest of the family of roles)
# share one subject key, so "Ana is my fiancée now" supersedes "My girlfriend is Ana".
PARTNER_KEY = "partner"
_PARTNER_ROLES = frozenset(
    r for r, subjects in RELATIONS.items() if {"spouse", "partner"} & set(subjects)
)


def _relationship(name: str, rel: str, who: str) -> list[Found]:
    rel = rel.lower()
    who = who.strip()
    who = who[:1].upper() + who[1:]
    key = PARTNER_KEY if rel in _PARTNER_ROLES else None
    return [found(name, f"User's {rel} is {who}", REL, RELATIONS.get(rel, (rel,)), key=key)]


_NOT_A_NAME = re.compile(
    r"^(?:sick|ill|busy|away|home|out|here|there|pregnant|great|awesome|amazing|nice|"
    r"tired|angry|upset|happy|sad|cool|fine|ok|okay|old|young|retired|working|visiting|"
    r"traveling|travelling|coming|going|a|an|the|not|also|still|really|very|so|too|"
    r"always|never|super|kind|mean|funny|smart|late|early|allergic|vegan|vegetarian|"
    r"british|american|french|german|italian|spanish|english|it|named|called)$",
    re.I,
)


@rule(
    "relationship.named",
    rf"^My {REL_WORD}(?:'s name)? (?:is|'s) (?:called |named )?(?P<who>{NAME})$",
)
def _my_rel_is(m: re.Match[str]) -> list[Found]:
    return _relationship("relationship.named", m["rel"], m["who"])


@rule(
    "relationship.named",
    rf"^My {REL_WORD}(?:'s name is| is called| is named|'s called|'s named)"
    r" (?P<who>[A-Za-z][\w'-]*)$",
)
def _my_rel_named_lower(m: re.Match[str]) -> list[Found]:
    return _relationship("relationship.named", m["rel"], m["who"])


@rule("relationship.named", rf"^My {REL_WORD} is (?P<who>[a-z][a-z'-]+)$")
def _my_rel_is_lower(m: re.Match[str]) -> list[Found]:
    who = m["who"]
    if _NOT_A_NAME.match(who) or re.search(r"(?:ing|ed|ly|ful|ous|ive|ish|y)$", who):
        return []
    return _relationship("relationship.named", m["rel"], who)


@rule("relationship.named", rf"^(?P<who>{NAME}) is my {REL_WORD}$")
def _name_is_my_rel(m: re.Match[str]) -> list[Found]:
    if m["who"].lower() in ("she", "he", "they", "it", "this", "that", "who"):
        return []
    return _relationship("relationship.named", m["rel"], m["who"])


@rule(
    "relationship.named",
    rf"^I {ADV}have (?:a|an|one) {REL_WORD} (?:named|called) (?P<who>[A-Za-z][\w'-]*)$",
)
def _have_rel_named(m: re.Match[str]) -> list[Found]:
    return _relationship("relationship.named", m["rel"], m["who"])


@rule("relationship.married_to", rf"^I {ADV}am (?:married|engaged) to (?P<who>{NAME})$")
def _married_to(m: re.Match[str]) -> list[Found]:
    verb = "married" if "married" in m.group(0).lower() else "engaged"
    return [
        found(
            "relationship.married_to",
            f"User is {verb} to {m['who']}",
            REL,
            "spouse",
            key=PARTNER_KEY,
        )
    ]


@rule("relationship.status", rf"^I {ADV}am (?P<s>married|engaged|single|divorced|widowed)$")
def _marital(m: re.Match[str]) -> list[Found]:
    return [found("relationship.status", f"User is {m['s'].lower()}", REL, "marital status")]


@rule(
    "relationship.has",
    rf"^I {ADV}have (?P<n>a|an|one|two|three|four|five|\d+) (?P<o>(?:little |baby |younger |"
    rf"older |big |twin )?{REL_WORD}(?:s|ren)?)(?P<rest>(?: and .+)?)$",
)
def _have_rel(m: re.Match[str]) -> list[Found]:
    rel = m["rel"].lower()
    out = [found("relationship.has", f"User has {m['n']} {m['o']}", REL, RELATIONS[rel])]
    rest = m["rest"].strip()
    if rest:
        again = re.match(
            rf"(?i)^and (?P<n>a|an|one|two|three|\d+) (?P<o>{REL_WORD}(?:s|ren)?)$", rest
        )
        if again:
            rel2 = again["rel"].lower()
            out.append(
                found(
                    "relationship.has", f"User has {again['n']} {again['o']}", REL, RELATIONS[rel2]
                )
            )
    return out


# Preferences.
def preference_subject(obj: str) -> str:
    for topic, pattern in PREFERENCE_TOPICS:
        if pattern.search(obj):
            return topic
    return head(obj)


@rule("preference.prefer", rf"^I {ADV}(?:would |do )?(?:prefer|prefers|perfer) (?P<o>.+)$")
def _prefer(m: re.Match[str]) -> list[Found]:
    o = tidy(m["o"])
    if not usable(o) or re.match(r"(?i)^(?:if|that you|you|it if|for you|not to have you)\b", o):
        return []
    return [found("preference.prefer", f"User prefers {third(o)}", PREF, preference_subject(o))]


@rule("preference.prefer", r"^My preference is (?:for )?(?P<o>.+)$")
def _my_preference(m: re.Match[str]) -> list[Found]:
    return _prefer(m)


_LIKE_VERBS = {
    "like": "likes",
    "love": "loves",
    "enjoy": "enjoys",
    "adore": "adores",
}


@rule(
    "preference.like",
    r"^I (?P<adv>really |truly |also |just |absolutely )?"
    r"(?P<verb>like|love|enjoy|adore) (?P<o>.+)$",
)
def _like(m: re.Match[str]) -> list[Found]:
    o = tidy(m["o"])
    verb = _LIKE_VERBS[m["verb"].lower()]
    to = re.match(r"(?i)^to (?P<v>[a-z]+) (?P<rest>.+)$", o)
    if to and not _YOU.search(o) and _content_words(o) >= 2:
        # "I like to come to this spot by the water": what they like doing
        subject = _episode_subject(to["rest"]) or to["v"].lower()
        return [found("preference.like", f"User {verb} {third(o)}", PREF, subject)]
    if not usable(o) or re.match(r"(?i)^(?:the way|how|when|what|that|working with you)\b", o):
        return []
    return [found("preference.like", f"User {verb} {third(o)}", PREF, head(o))]


_DISLIKE = {
    "hate": "hates",
    "dislike": "dislikes",
    "detest": "detests",
    "loathe": "loathes",
    "can not stand": "can't stand",
    "can not bear": "can't bear",
    "do not like": "does not like",
    "do not enjoy": "does not enjoy",
    "do not love": "does not love",
    "am not a fan of": "is not a fan of",
    "am not a big fan of": "is not a big fan of",
    "am not into": "is not into",
}
_DV = "|".join(sorted((re.escape(v) for v in _DISLIKE), key=len, reverse=True))


@rule("preference.dislike", rf"^I (?:also |honestly |just |absolutely )?(?P<verb>{_DV}) (?P<o>.+)$")
def _dislike(m: re.Match[str]) -> list[Found]:
    o = tidy(m["o"])
    if not usable(o):
        return []
    verb = _DISLIKE[m["verb"].lower()]
    return [found("preference.dislike", f"User {verb} {third(o)}", PREF, head(o), polarity=False)]


@rule(
    "preference.fan",
    rf"^I {ADV}am (?P<verb>a (?:big |huge )?fan of|into|obsessed with|passionate about)"
    r" (?P<o>.+)$",
)
def _fan(m: re.Match[str]) -> list[Found]:
    o = tidy(m["o"])
    if not usable(o):
        return []
    return [found("preference.fan", f"User is {m['verb'].lower()} {third(o)}", PREF, head(o))]


@rule(
    "preference.favorite",
    r"^My (?:all-time |absolute )?(?:favorite|favourite|fav|fave) (?P<what>[\w -]+?)"
    r" (?:is|are|'s) (?P<o>.+)$",
)
def _favorite(m: re.Match[str]) -> list[Found]:
    o = tidy(m["o"])
    what = m["what"].strip().lower()
    if not usable(o):
        return []
    return [
        found(
            "preference.favorite", f"User's favorite {what} is {third(o)}", PREF, f"favorite {what}"
        )
    ]


# Team decisions: local to the project they were made in.
_GENERIC_DECISION_VERBS = frozenset(
    [
        "use",
        "go",
        "switch",
        "move",
        "adopt",
        "keep",
        "stick",
        "try",
        "stop",
        "start",
        "have",
        "make",
        "do",
        "get",
        "put",
        "run",
        "be",
        "skip",
        "drop",
        "add",
        "stay",
        "migrate",
        "build",
        "write",
        "ship",
        "rewrite",
        "replace",
    ]
)
_SKIP_WORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "to",
        "on",
        "with",
        "from",
        "for",
        "in",
        "at",
        "of",
        "our",
        "all",
        "over",
        "into",
        "its",
        "their",
        "this",
        "that",
    ]
)


# Verbs that choose a tool or practice: their decisions are keyed on what they choose,
# as "use <thing>", so "go with Postgres" and "switch from Postgres to MySQL" meet.
_CHOOSING_VERBS = frozenset(["use", "go", "adopt", "keep", "stick", "stay", "try", "pick"])
# Verbs that move from one thing to another (or drop one): keyed on every thing named.
_MOVING_VERBS = frozenset(["switch", "move", "migrate", "change", "replace", "stop", "drop"])
_MOVE_LINKS = frozenset(["from", "to", "with", "by", "using"])


def decision_key(obj: str) -> str:
    """The subject key of a team decision: what it decides about.

    A decision that moves from one thing to another names both (joined by
    SUBJECT_KEY_SEPARATOR), so it supersedes an earlier decision on either.
    """
    words = [w.strip(",.;:").lower() for w in obj.split()]
    words = [w for w in words if w]
    if not words:
        return PROJECT_DECISION
    verb, rest = words[0], words[1:]
    if verb in _MOVING_VERBS:
        things = _moved_things(rest)
        if things:
            return SUBJECT_KEY_SEPARATOR.join(f"{PROJECT_DECISION}/use {t}" for t in things)
    key = [verb]
    if verb in _GENERIC_DECISION_VERBS:
        key += [w for w in rest if w not in _SKIP_WORDS and w != "using"][:1]
        if verb in _CHOOSING_VERBS and len(key) == 2:
            key[0] = "use"
    return f"{PROJECT_DECISION}/{' '.join(key)}"


def _moved_things(words: list[str]) -> list[str]:
    """The first content word of each part of "from X to Y" / "X with Y" / "using X"."""
    things: list[str] = []
    expecting = True
    for word in words:
        if word in _MOVE_LINKS:
            expecting = True
            continue
        if expecting and word not in _SKIP_WORDS:
            things.append(word)
            expecting = False
    return things


def _decision(name: str, connector: str, obj: str) -> list[Found]:
    o = tidy(obj, cut=re.compile(r"\s+(?:because|since|as|so that)\b.*$", re.I))
    if not usable(o) and connector != "that":
        return []
    text = third(o, team=True)
    if connector == "that":
        return [
            found(
                name,
                f"The team decided that {text}",
                F,
                PROJECT_DECISION,
                key=f"{PROJECT_DECISION}/{head(text).lower()}",
            )
        ]
    key = decision_key(o) if connector == "to" else f"{PROJECT_DECISION}/{head(o).lower()}"
    return [found(name, f"The team decided {connector} {text}", F, PROJECT_DECISION, key=key)]


_WE = r"(?:we|the team|our team|the whole team|we all|everyone|the group)"


@rule(
    "fact.team_decision",
    rf"^{_WE} (?:have |has |had )?(?:all |finally |just |collectively |officially |now )*"
    r"(?P<verb>decided|agreed|chose|voted|committed|resolved|settled|opted)"
    r"(?: as a team)? (?P<prep>to|on|upon|against|that|for) (?P<o>.+)$",
)
def _team_decision(m: re.Match[str]) -> list[Found]:
    prep = m["prep"].lower()
    connector = {"upon": "on", "for": "on"}.get(prep, prep)
    return _decision("fact.team_decision", connector, m["o"])


@rule(
    "fact.team_decision",
    rf"^{_WE} (?:have |has )?(?:chose|picked|selected|went with|are going with|"
    r"are going to go with|settled on) (?P<o>.+)$",
)
def _team_chose(m: re.Match[str]) -> list[Found]:
    return _decision("fact.team_decision", "on", m["o"])


@rule("fact.team_decision", r"^(?:the |our )?(?:team )?decision (?:is|was) to (?P<o>.+)$")
def _decision_is(m: re.Match[str]) -> list[Found]:
    return _decision("fact.team_decision", "to", m["o"])


@rule("fact.team_uses", rf"^(?:we|our team|the team) {ADV}(?:use|are using|rely on) (?P<o>.+)$")
def _team_uses(m: re.Match[str]) -> list[Found]:
    o = tidy(m["o"])
    if not usable(o):
        return []
    return [found("fact.team_uses", f"The team uses {third(o, team=True)}", F, head(o))]


# Possessions and tools.
_USE_VERBS = {
    "use": "uses",
    "am using": "uses",
    "have been using": "uses",
    "rely on": "relies on",
    "code in": "codes in",
    "program in": "programs in",
    "write code in": "writes code in",
    "develop in": "develops in",
    "switched to": "uses",
    "have switched to": "uses",
}
_UV = "|".join(sorted((re.escape(v) for v in _USE_VERBS), key=len, reverse=True))


@rule("attr.uses", rf"^I {ADV}(?P<verb>{_UV}) (?P<o>.+)$")
def _uses(m: re.Match[str]) -> list[Found]:
    o = tidy(m["o"])
    if not usable(o) or re.match(r"(?i)^(?:to|a lot|the same|your|the chat|you)\b", o):
        return []
    verb = _USE_VERBS[m["verb"].lower()]
    out = []
    for item in split_list(o):
        shown = indefinite(item) if re.match(r"(?i)^my\b", item) else item
        subject = head(item)
        if subject:
            out.append(found("attr.uses", f"User {verb} {third(shown)}", ATTR, subject))
    return out


@rule(
    "attr.has",
    rf"^I {ADV}(?P<verb>have got|have|got myself|got|own|bought|picked up|"
    rf"am the proud owner of) (?P<o>(?:{DET}\b|(?-i:[A-Z])).+)$",
)
def _has(m: re.Match[str]) -> list[Found]:
    verb = "owns" if m["verb"].lower() == "own" else "has"
    o = tidy(m["o"], cut=_RELATIVE_CUT)
    if not usable(o):
        return []
    out = []
    for item in split_list(o):
        subject = head(item)
        if not subject or NOT_POSSESSIONS.match(subject):
            continue
        shown = indefinite(item) if re.match(r"(?i)^(?:my|our)\b", item) else item
        named = re.match(
            rf"(?i)^(?:a|an|one) {REL_WORD} (?:named|called) (?P<who>[A-Za-z][\w'-]*)$", item
        )
        if named:
            out.extend(_relationship("relationship.named", named["rel"], named["who"]))
            continue
        first = subject.split()[0].lower()
        if first.rstrip("s") in RELATIONS or first in RELATIONS:
            rel = first if first in RELATIONS else first.rstrip("s")
            out.append(found("relationship.has", f"User has {third(shown)}", REL, RELATIONS[rel]))
            continue
        out.append(found("attr.has", f"User {verb} {third(shown)}", ATTR, subject))
    return out


@rule("attr.drives", rf"^I {ADV}drive (?P<o>(?:a|an|the|my) .+)$")
def _drives(m: re.Match[str]) -> list[Found]:
    o = tidy(m["o"])
    if not usable(o):
        return []
    return [found("attr.drives", f"User drives {indefinite(o)}", ATTR, "car")]


_ACTIVITY_VERBS = {
    "speak": ("speaks", "head"),
    "play": ("plays", "head"),
    "am learning": ("is learning", "head"),
    "am studying": ("is studying", "head"),
    "study": ("studies", "head"),
    "am new to": ("is new to", "head"),
    "practice": ("practices", "head"),
    "run": ("runs", "head"),
    "cook": ("cooks", "head"),
    "write": ("writes", "head"),
    "read": ("reads", "head"),
    "watch": ("watches", "head"),
    "volunteer at": ("volunteers at", "head"),
    "go to": ("goes to", "head"),
    "attend": ("attends", "head"),
    "teach": ("teaches", "head"),
    "train": ("trains", "head"),
    "ride": ("rides", "head"),
    "wear": ("wears", "head"),
    "drink": ("drinks", "head"),
    "eat": ("eats", "head"),
}
_AV = "|".join(sorted((re.escape(v) for v in _ACTIVITY_VERBS), key=len, reverse=True))


@rule("attr.activity", rf"^I {ADV}(?P<verb>{_AV}) (?P<o>.+)$")
def _activity(m: re.Match[str]) -> list[Found]:
    o = tidy(m["o"])
    if not usable(o) or re.match(
        r"(?i)^(?:a lot|about|through|up|out|into|on|over|for|with|at|late|early)\b", o
    ):
        return []
    verb = _ACTIVITY_VERBS[m["verb"].lower()][0]
    items = split_list(o) if verb in ("speaks", "plays") else [o]
    out = []
    for item in items:
        subject = head(item)
        if subject:
            out.append(found("attr.activity", f"User {verb} {third(item)}", ATTR, subject))
    return out


# General first-person attributes.
_ATTRIBUTES: dict[str, str] = {
    "name": "name",
    "full name": "name",
    "first name": "name",
    "nickname": "nickname",
    "pronouns": "pronouns",
    "timezone": "time zone",
    "time zone": "time zone",
    "birthday": "birthday",
    "date of birth": "birthday",
    "age": "age",
    "hometown": "hometown",
    "home town": "hometown",
    "native language": "native language",
    "first language": "native language",
    "mother tongue": "native language",
    "job": "role",
    "job title": "role",
    "title": "role",
    "role": "role",
    "position": "role",
    "occupation": "role",
    "profession": "role",
    "employer": "employment",
    "company": "employment",
    "team": "team",
    "nationality": "nationality",
    "diet": "diet",
    "dietary restriction": "diet",
    "shoe size": "shoe size",
    "height": "height",
    "blood type": "blood type",
    "zodiac sign": "zodiac sign",
    "star sign": "zodiac sign",
    "major": "field of study",
    "degree": "degree",
    "os": "operating system",
    "operating system": "operating system",
    "laptop": "laptop",
    "phone": "phone",
    "editor": "editor",
    "shell": "shell",
    "car": "car",
    "commute": "commute",
    "schedule": "schedule",
    "working hours": "working hours",
    "work hours": "working hours",
    "main language": "programming language",
}
_ATTR_ALT = "|".join(sorted((re.escape(a) for a in _ATTRIBUTES), key=len, reverse=True))


_STATE_WORD = re.compile(
    r"^(?:(?:so|very|really|pretty|super|too|kind of|a bit)\s+)?(?:small|big|large|tiny|huge|"
    r"busy|great|fine|good|bad|old|new|slow|fast|broken|weird|annoying|crazy|long|short|"
    r"hectic|messy|ok|okay|awesome|terrible|amazing|nice|down|up|off|on|over|done|"
    r"\w+ing|\w+ed)$",
    re.I,
)


@rule("attr.my_attribute", rf"^My (?P<attr>{_ATTR_ALT}) (?P<be>is|are|'s) (?P<o>.+)$")
def _my_attribute(m: re.Match[str]) -> list[Found]:
    o = tidy(m["o"])
    if not usable(o):
        return []
    attr = m["attr"].lower()
    if _STATE_WORD.match(o):
        return []  # "My team is small": a description, not the attribute's value
    be = "are" if m["be"].lower() == "are" else "is"
    return [found("attr.my_attribute", f"User's {attr} {be} {third(o)}", ATTR, _ATTRIBUTES[attr])]


@rule("attr.name", r"^(?:call me|you can call me|people call me|everyone calls me) (?P<o>\w+)$")
def _call_me(m: re.Match[str]) -> list[Found]:
    o = m["o"][:1].upper() + m["o"][1:]
    return [found("attr.name", f"User's name is {o}", ATTR, "name")]


@rule("attr.age", rf"^I {ADV}am (?P<n>\d{{1,3}})(?: years old| yrs old| y/o| yo)?$")
def _age(m: re.Match[str]) -> list[Found]:
    return [found("attr.age", f"User is {m['n']} years old", ATTR, "age")]


@rule(
    "attr.time_zone",
    rf"^I {ADV}am (?:in|on) (?:the )?(?P<o>[\w/+-]+(?: [A-Z]\w+)?) (?:time|time ?zone|tz)$",
)
def _tz(m: re.Match[str]) -> list[Found]:
    return [found("attr.time_zone", f"User's time zone is {m['o']}", ATTR, "time zone")]


@rule("attr.allergy", rf"^I {ADV}am (?:severely |very |mildly )?allergic to (?P<o>.+)$")
def _allergy(m: re.Match[str]) -> list[Found]:
    o = tidy(m["o"])
    if not usable(o):
        return []
    return [
        found(
            "attr.allergy",
            f"User is allergic to {third(o)}",
            ATTR,
            "allergy",
            key=f"allergy/{head(o).lower()}",
        )
    ]


_TRAITS: dict[str, str] = {
    "vegetarian": "diet",
    "vegan": "diet",
    "pescatarian": "diet",
    "gluten-free": "diet",
    "lactose intolerant": "diet",
    "kosher": "diet",
    "halal": "diet",
    "diabetic": "health",
    "celiac": "health",
    "colorblind": "vision",
    "color blind": "vision",
    "left-handed": "handedness",
    "right-handed": "handedness",
    "left handed": "handedness",
    "right handed": "handedness",
    "an introvert": "personality",
    "an extrovert": "personality",
    "a morning person": "chronotype",
    "a night owl": "chronotype",
    "not a morning person": "chronotype",
    "deaf": "hearing",
    "hard of hearing": "hearing",
    "sober": "drinking",
    "a non-smoker": "smoking",
    "a smoker": "smoking",
    "retired": "employment",
    "unemployed": "employment",
    "self-employed": "employment",
    "a freelancer": "employment",
    "bilingual": "languages",
    "a beginner": "experience level",
    "a native speaker of english": "native language",
}
_TRAIT_ALT = "|".join(sorted((re.escape(t) for t in _TRAITS), key=len, reverse=True))


@rule("attr.trait", rf"^I {ADV}am (?P<t>{_TRAIT_ALT})(?P<rest>(?: (?:at|in|with) .+)?)$")
def _trait(m: re.Match[str]) -> list[Found]:
    trait = m["t"].lower()
    rest = tidy(m["rest"]) if m["rest"] else ""
    return [
        found(
            "attr.trait",
            f"User is {trait}{' ' + rest.strip() if rest else ''}",
            ATTR,
            _TRAITS[trait],
        )
    ]


# -- episodes: what the user did, is doing, plans, feels --------------------------------
#
# The last rules of the catalogue: a first-person clause no rule above reads is an
# episode (type ``fact``): "I went to a support group yesterday" forms "User went to a
# support group yesterday." Its resolver key is the statement itself (``episode/<...>``),
# so two episodes never supersede each other; only the attribute rules above update.


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_MODALS = _words("will would can could should shall might may must wont ought")
_NOT_VERBS = _words(
    "too myself alone and or but a an the to in on at for with of as if so not no "
    "personally also really just even"
)
# Adverbs that may stand before the verb; they stay in the statement.
_EPISODE_ADVERBS = _words(
    "also just really recently finally actually definitely totally never always often "
    "sometimes usually still already absolutely truly literally honestly seriously "
    "genuinely mostly even once first kinda officially"
)
_IRREGULAR_PAST = _words(
    "went got made took saw had did was were ran came gave found bought brought thought "
    "taught caught felt left met kept sent spent built began won lost wrote read drove "
    "rode ate drank swam sang sat stood heard told knew grew threw flew drew wore chose "
    "broke spoke woke forgot paid put set cut hit let hurt shut quit fell held led slept "
    "lit became understood fed fought hung dug stuck struck sold shot shook bit hid tore "
    "blew dealt meant sought spun wept began rang sank stole swore swung bent lent "
    "froze"
)
# Words that carry no content of their own: an episode needs two content words.
_LIGHT = _words(
    "am is are was were be been being have has had having do does did get got go went "
    "it its this that these those them they their there here thing things stuff so "
    "very really too just much more some any all a an the and or but of to in on at for "
    "with from by about as up out off over into than then also even still now today "
    "lot lots bit kind sort one ones way time times well good great nice fun cool like "
    "awesome amazing sure yes yeah not no never always"
)
_YOU = re.compile(r"(?i)\b(?:you|your|yours|yourself|ya)\b|\[redacted")


def _past(word: str) -> bool:
    w = word.lower()
    return w in _IRREGULAR_PAST or (len(w) > 4 and w.endswith("ed"))


def _content_words(text: str) -> int:
    """Content words, a name or a number counting twice ("in Chicago" is enough)."""
    words = re.findall(r"[A-Za-z][A-Za-z'-]*", text)
    return sum(
        2 if w[0].isupper() else 1
        for w in words
        if len(w) > 2
        and w.lower() not in _LIGHT
        and (not w.lower().endswith("ly") or w.lower() in _LY_NOUNS)
    ) + 2 * len(re.findall(r"\b\d+\b", text))


# Words in -ly that are not adverbs.
_LY_NOUNS = _words("family friendly lovely lonely holy italy july rally jelly belly ugly silly")


def _episode_key(statement: str) -> str:
    return f"episode/{statement.rstrip('.')}"


def _verb_phrase(rest: str, *, plural: bool) -> tuple[str, str, str] | None:
    """(adverbs, conjugated verb, object) of "am going to the gym", or None."""
    words = rest.split()
    i = 0
    while i < len(words) - 1 and (
        words[i].lower() in _EPISODE_ADVERBS
        or (words[i].lower().endswith("ly") and len(words[i]) > 4)
    ):
        i += 1
    verb = words[i]
    low = verb.lower()
    if not re.fullmatch(r"[a-z]+", low) or low in _MODALS or low in _NOT_VERBS:
        return None
    obj = " ".join(words[i + 1 :])
    if plural:
        shown = low
    elif low == "were":
        shown = "was"
    elif low == "am":
        shown = "is"
    elif _past(low) or low.endswith("ing"):
        shown = low
    else:
        from memory_es.formation.extractor import third_person

        shown = third_person(low)
    return " ".join(words[:i]), shown, obj


_SUBJECT_SKIP = _words(
    "to at in on for with about from into by of up out back off over around down away "
    "been being so very really just also still even a an the some my our their this "
    "these that those going gonna planning trying hoping super pretty quite it them him "
    "her currently already now recently finally started begun began"
)


def _episode_subject(obj: str) -> str:
    """What an episode is about: its object's head, past particles and verb chains
    ("been volunteering at the animal shelter" -> "animal shelter")."""
    words = obj.split()
    i = 0
    while i < len(words) - 1:
        w = words[i].lower().strip(",.")
        after_det = i > 0 and words[i - 1].lower() in ("a", "an", "the", "my", "their", "our")
        gerund = w.endswith("ing") and len(w) > 4 and not after_det
        if w in _SUBJECT_SKIP or w in _FEELINGS or gerund:
            i += 1
        elif i and words[i - 1].lower() == "to" and words[i].islower():
            i += 1  # "to run a marathon": the verb after "to"
        else:
            break
    return _EPISODE_HEAD_CUT.sub("", head(" ".join(words[i:])))


_EPISODE_HEAD_CUT = re.compile(
    r"\s+(?:I|they|last|next|this|yesterday|today|tomorrow|tonight|every|ago|together)\b.*$"
)


def _episode(name: str, who: str, rest: str, *, plural: bool) -> list[Found]:
    if _YOU.search(rest):
        return []  # about the one they talk to, not about the user
    rest = _trim(rest)
    parts = _verb_phrase(rest, plural=plural)
    if parts is None:
        return []
    adverbs, verb, obj = parts
    obj = obj.strip(" ,;:")
    if plural and _GROUP_HEDGE.match(f"{verb} {obj}"):
        return []
    if not obj or len(obj.split()) > 40:
        return []
    counted = ("" if verb.lower() in _LIGHT else verb) + " " + obj
    if _content_words(counted) < 2:
        return []
    statement = " ".join(p for p in (who, adverbs, verb, third(obj)) if p)
    subject = _episode_subject(obj)
    negative = re.match(r"(?i)^(?:not|never)\b", obj) is not None or "never" in adverbs
    key: str | None = None
    habit = _habit(verb, obj, plural=plural)
    if habit is not None and subject:
        # "I grow zucchini" is a habit: "I am not growing zucchini anymore" updates it.
        lemma, retracted = habit
        if retracted:
            rest_obj = re.sub(r"(?i)\s*\bany ?more$", "", obj)
            rest_obj = re.sub(r"(?i)^not\s+\S+", "", rest_obj).strip()
            subject = _episode_subject(rest_obj) if rest_obj else lemma
            statement = f"{who} no longer {_present(lemma, verb, obj, plural)} {third(rest_obj)}"
            negative = True
        key = f"habit/{lemma} {(subject or '').lower()}"
    made = found(name, statement, F, subject or verb.lower(), polarity=not negative)
    return [
        Found(
            statement=made.statement,
            belief_type=made.belief_type,
            subjects=made.subjects,
            polarity=made.polarity,
            rule=made.rule,
            key=key or _episode_key(made.statement),
        )
    ]


_GROUP_HEDGE = re.compile(
    r"(?i)^(?:are|were) (?:thinking|wondering|hoping|trying|considering|going to|gonna|"
    r"not sure|talking|looking at)\b|^(?:might|may|could|should|would|will)\b"
)


def _stem(verb: str) -> str:
    """A crude verb stem, the same for "grow"/"grows"/"growing", "run"/"running"."""
    v = verb.lower()
    if v.endswith("ing") and len(v) > 5:
        v = v[:-3]
        if len(v) > 2 and v[-1] == v[-2] and v[-1] not in "ls":
            v = v[:-1]
    elif v.endswith("ies") and len(v) > 4:
        v = v[:-3] + "y"
    elif v.endswith("es") and re.search(r"(?:sh|ch|x|z|ss|o)es$", v):
        v = v[:-2]
    elif v.endswith("s") and not v.endswith("ss"):
        v = v[:-1]
    return v.rstrip("e")


def _habit(verb: str, obj: str, *, plural: bool) -> tuple[str, bool] | None:
    """(stem, retracted) when the clause states a present habit or drops one."""
    low = verb.lower()
    m = re.match(r"(?i)^not (?P<v>[a-z]+ing)\b.+\bany ?more$", obj)
    if low in ("is", "are") and m:
        return _stem(m["v"]), True
    m = re.match(r"(?i)^not (?P<v>[a-z]+)\b.+\bany ?more$", obj)
    if low in ("does", "do") and m:
        return _stem(m["v"]), True
    if low in _LIGHT or low in ("is", "are", "has", "have", "does", "do") or _past(low):
        return None
    if low.endswith("ing"):
        return None
    return _stem(low), False


def _present(stem: str, verb: str, obj: str, plural: bool) -> str:
    """The verb of a dropped habit, as "no longer grows" reads it."""
    m = re.match(r"(?i)^not (?P<v>[a-z]+?)(?:ing)?\b", obj)
    base = m["v"] if m else stem
    if m and m["v"].lower().endswith(("ing",)):
        base = stem
    if verb.lower() in ("is", "are"):
        # "not growing" -> "grow": the stem, with a final e restored where needed
        raw = re.match(r"(?i)^not ([a-z]+)ing\b", obj)
        base = raw.group(1) if raw else stem
        if len(base) > 2 and base[-1] == base[-2] and base[-1] not in "ls":
            base = base[:-1]  # "running" -> "run"
        elif re.search(r"[cvz]$|^[^aeiou]*[aeiou][^aeiouwxy]$", base):
            base += "e"  # "baking" -> "bake", "dancing" -> "dance"
    if plural:
        return base
    from memory_es.formation.extractor import third_person

    return third_person(base)


@rule(
    "fact.episode_with",
    rf"^(?:my (?P<rel>{_REL_ALT}|family|friends|parents|kids|team)|(?P<who>{NAME}))"
    r" (?:and|&) I (?P<rest>.+)$",
)
def _episode_with(m: re.Match[str]) -> list[Found]:
    who = f"User and their {m['rel'].lower()}" if m["rel"] else f"User and {m['who']}"
    if m["who"] and m["who"].lower() in ("you", "he", "she", "they", "it", "this", "that"):
        return []
    return _episode("fact.episode_with", who, m["rest"], plural=True)


@rule("fact.group_episode", r"^we (?P<rest>.+)$")
def _group_episode(m: re.Match[str]) -> list[Found]:
    return _episode("fact.group_episode", "User and others", m["rest"], plural=True)


@rule("fact.my_episode", r"^My (?P<all>\S+ .+)$")
def _my_episode(m: re.Match[str]) -> list[Found]:
    """ "My sister ran the Boston marathon" / "My colleague Rob invited me to ...": a
    possession's or relation's past or present deed (never "is": "My wife is planning"
    and "my dog is sick" stay unread)."""
    if _YOU.search(m["all"]):
        return []
    words = m["all"].split()
    for at in range(1, min(4, len(words))):
        verb = words[at]
        if not re.fullmatch(r"[a-z]+", verb):
            continue
        present = verb.endswith("s") and not verb.endswith("ss") and verb not in ("is", "was")
        if not (_past(verb) or present):
            continue
        thing = " ".join(words[:at])
        rest = _trim(" ".join(words[at:]))
        if _content_words(rest) < 2:
            return []
        statement = f"User's {third(thing)} {third(rest)}"
        made = found("fact.my_episode", statement, F, head(thing) or thing)
        return [
            Found(
                statement=made.statement,
                belief_type=F,
                subjects=made.subjects,
                polarity=True,
                rule=made.rule,
                key=_episode_key(made.statement),
            )
        ]
    return []


@rule("fact.episode", r"^I (?P<rest>.+)$")
def _first_person_episode(m: re.Match[str]) -> list[Found]:
    you = _YOU.search(m["rest"])
    if you is not None:
        # "I am so excited to tell you I started a yoga class": the news after "you".
        inner = re.compile(r"\b(?:that )?(?=I [a-z])").search(m["rest"], you.end())
        if inner is None or _YOU.search(m["rest"], inner.end()):
            return []
        return match_clause(m["rest"][inner.end() :].removeprefix("that ")) or []
    return _episode("fact.episode", "User", m["rest"], plural=False)


# A statement about the user's world with another subject ("Nature totally inspires
# me", "Cooking has been helping me de-stress"): the user's words, with "me"/"my"
# read as the user. Only when the clause opens with a noun phrase (not an imperative
# such as "Write me a poem") and carries three content words.
_SUBJECT_OPENERS = _words(
    "they he she it this that these those the a an his her their its there everyone "
    "everybody people someone both all each one two three some most many"
)
_ABOUT_USER = re.compile(r"\b(?:me|my|mine|myself)\b", re.I)
_FINITE = re.compile(
    r"(?i)^(?:is|was|are|were|has|have|had|will|would|can|could|[a-z]+s|[a-z]+ed)$"
)


@rule("fact.about_user", r"^(?!(?:I|we|my)\b)(?P<all>\S+ .+)$")
def _about_user(m: re.Match[str]) -> list[Found]:
    text = _trim(m["all"])
    if not _ABOUT_USER.search(text) or _YOU.search(text):
        return []
    words = text.split()
    first = words[0]
    opener = first.lower().split("'")[0]
    if (
        (opener == "it" and _content_words(text) < 4)
        or opener == "there"
        or (first.lower() in ("this", "that", "these", "those") and _FINITE.match(words[1]))
    ):
        return []  # "It tastes like soap to me": about nothing named
    if not (
        opener in _SUBJECT_OPENERS
        or (first.lower().endswith("ing") and first.lower() not in _ING_NOT_VERBS)
        or (first[:1].isupper() and any(_FINITE.match(w) for w in words[1:5]))
    ):
        return []
    if _content_words(text) < 3 or len(words) > 40:
        return []
    return _about_user_statement("fact.about_user", text)


def _about_user_statement(name: str, text: str) -> list[Found]:
    statement = re.sub(r"(?i)\b(?:my|mine)\b", "User's", text)
    statement = re.sub(r"(?i)\b(?:me|myself)\b", "User", statement)
    statement = third(statement)
    words = text.split()
    verb_at = next((i for i, w in enumerate(words[1:5], 1) if _FINITE.match(w)), len(words))
    made = found(name, statement, F, head(" ".join(words[:verb_at])) or words[0])
    return [
        Found(
            statement=made.statement,
            belief_type=F,
            subjects=made.subjects,
            polarity=True,
            rule=made.rule,
            key=_episode_key(made.statement),
        )
    ]


# A clause with its subject dropped ("Researching adoption agencies", "Just got back
# from Rome", "Excited for the trip") is the user speaking about themself when it opens
# a sentence or follows a first-person clause: it is read with "I" / "I am" restored.
_FEELINGS = _words(
    "excited thrilled stoked proud grateful thankful blessed nervous anxious stressed "
    "exhausted worried scared terrified curious eager keen inspired motivated "
    "determined overwhelmed relieved heartbroken devastated obsessed addicted "
    "interested hooked busy"
)
_ING_NOT_VERBS = _words(
    "according regarding speaking talking including considering assuming nothing "
    "something anything everything morning evening thing things wedding building "
    "spring king ring sing bring string wing sibling darling pudding ceiling during "
    "sounding being seeing hearing feeling wishing hoping thinking looking "
    "sending keeping"
)
_AFTER_GERUND_SUBJECT = re.compile(
    r"(?i)^\S+\s+(?:is|was|are|were|has|have|had|can|could|will|would|should|must|"
    r"might|may|makes|made|helps|helped|gives|gave|keeps|takes|sounds|seems|looks)\b"
)


# Past forms that are also a bare verb, so an opening one may be an imperative
# ("Let me check", "Read this").
_AMBIGUOUS_PAST = _words("was were did had let put set cut hit hurt shut quit read")


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
    gerund = word.endswith("ing") and len(word) > 4 and word not in _ING_NOT_VERBS
    if gerund and len(clause[m.end(2) :].split()) < 2:
        return None  # "Moving news": a heading, not "I am moving ..."
    if word in _FEELINGS or gerund:
        return "I am " + lowered
    if _past(word) and word not in _AMBIGUOUS_PAST:
        return "I " + lowered
    return None


# -- the clause walk ---------------------------------------------------------------------

_ELLIPSIS_VERBS = re.compile(
    r"^(?:live|work|prefer|like|love|enjoy|hate|use|have|own|speak|play|drive|"
    r"am|grew|moved|no longer|switched|started|stopped|quit|joined|sold|bought|got|"
    r"code|speak|drive|run)\b",
    re.I,
)
_LIST_RULES = frozenset({"attr.has", "attr.uses", "preference.like", "attr.activity"})
_LIST_PREFIX = re.compile(r"^(I (?:\w+ ){0,2}?(?:have|own|use|like|love|enjoy|speak|play))\b", re.I)
_LIST_ITEM = re.compile(rf"^(?:(?i:{DET})\b|[A-Z])")


_RETRACTION_TAIL = re.compile(r"(?i)\s+(?:any ?more|any longer)[\s.!,;:]*$")


def _trim(clause: str) -> str:
    tail = _RETRACTION_TAIL.search(clause)  # "... anymore" is what makes a retraction
    kept = " anymore" if tail else ""
    clause = clause[: tail.start()] if tail else clause
    previous = None
    while previous != clause:
        previous = clause
        clause = _TRAILING.sub("", clause)
    return clause.strip() + kept


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


def match_clause(clause: str) -> list[Found] | None:
    """The beliefs one clause states; None when no rule reads it."""
    clause = _ADVERB_RUN.sub(r"\1", clause)
    first = clause.split(" ", 1)[0].lower()
    for name, pattern, fn in _ORDERED.get(first if first in ("i", "my") else "", []):
        m = pattern.match(clause)
        if m is not None:
            got = fn(m)
            if not got and name in _FALLBACK_RULES:
                continue  # the catch-all episode rules refuse without deciding
            return got
    return None


# The episode rules read what nothing above read; when they refuse, the clause is
# still unread (a list continuation or an inner "I ..." may read it).
_FALLBACK_RULES = frozenset(
    [
        "fact.episode",
        "fact.episode_with",
        "fact.group_episode",
        "fact.my_episode",
        "fact.about_user",
    ]
)


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
            if QUESTION_OPENERS.match(strip_markers(part)) or _YOU.search(part):
                break
            kept.append(part)
        if len(kept) == len(parts):
            return ""
        first = ", ".join(kept)
    if not first or QUESTION_OPENERS.match(strip_markers(first)):
        return ""
    return first


_QUESTION_TAIL = re.compile(r"\s+(?:\u2014|\u2013|-{1,2})\s+(?=[^\u2014\u2013]*\?\W*$)")
_WITH_I = re.compile(rf"(\b(?i:my (?:{_REL_ALT}))|^{NAME}) and I\b")
# "Me and my family are ..." reads as "My family & I are ...".
_ME_AND_MY = re.compile(r"(?i)^me and my (\w+) ")


_EPISODE_MAX_WORDS = 60


def _extend_episode(episode: Found, clause: str) -> Found | None:
    """The episode with a clause of the same turn that formed nothing on its own ("I was
    in Chicago, it had so much energy"); None when the clause ends the episode (it is
    about the other speaker, carries a secret, or says nothing)."""
    if _YOU.search(clause):
        return None
    if _content_words(clause) < 2:
        return episode  # "it was awesome": nothing to add, the episode goes on
    text = third(re.sub(r"(?i)\b(?:me|myself)\b", "them", clause))
    if re.match(r"(?:It|They|He|She|This|That|These|Those|There|Its|Their|The|A|An)\b", text):
        text = text[:1].lower() + text[1:]
    statement = sentence_case(f"{episode.statement.rstrip('.')}, {text}")
    if len(statement.split()) > _EPISODE_MAX_WORDS:
        return None
    return Found(
        statement=statement,
        belief_type=episode.belief_type,
        subjects=episode.subjects,
        polarity=episode.polarity,
        rule=episode.rule,
        key=_episode_key(statement),
    )


def extract_clauses(text: str, *, residue: bool = False) -> list[Found]:
    """Every belief a user turn states, in the order it states them.

    With ``residue`` a declarative sentence that formed nothing is kept as what the user
    said (:func:`_residue`); off by default (profile ``formation.residue_enabled``).
    """
    out: list[Found] = []
    episode: int | None = None  # the episode later unread clauses of the turn extend
    for sentence in sentences(repair(text)):
        formed_before = len(out), out[-1] if out else None
        kept = _residue(sentence) if residue else None
        if sentence.rstrip("\"') ").endswith("?"):
            episode = None
            # "I've started eating healthier - what's new with you?": the statement
            # before the question still stands; a sentence that opens as a question
            # (or asks in its only clause) forms nothing.
            sentence = _before_question(sentence)
            if not sentence:
                continue
        # "My wife and I went ...": one subject, not a clause boundary before "and I".
        sentence = _WITH_I.sub(r"\1 & I", sentence)
        sentence = _ME_AND_MY.sub(r"my \1 & I ", sentence)
        first_person = False
        list_prefix: str | None = None
        for index, raw in enumerate(clauses(sentence)):
            clause = _trim(strip_markers(raw))
            if not clause or QUESTION_OPENERS.match(clause):
                list_prefix = None
                episode = None
                continue
            if first_person and _ELLIPSIS_VERBS.match(clause):
                clause = "I " + clause
            elif index == 0 or first_person:
                clause = restore_subject(clause) or clause
            result = match_clause(clause)
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
                else:
                    out[episode] = extended
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
        if kept is not None and (len(out), out[-1] if out else None) == formed_before:
            out.append(kept)
    return out


# -- residue: what the user said that no rule reads (opt-in) ---------------------------
#
# Conversation carries facts no first-person pattern reads ("They're called Peruvian
# Lilies", "It's a mix of drama and romance"). With the residue on, such a sentence is
# kept as a belief of type ``fact`` saying what the user said ("User said: ..."), keyed
# by its statement like an episode, so it never supersedes anything. It is refused when
# it asks, hedges, requests, speaks about the other party, carries a redaction, or says
# too little; the secrets screen has run before any of this.
_RESIDUE_REFUSED = re.compile(
    r"(?i)\b(?:maybe|perhaps|probably|might|may|could|should|would|if|unless|whether|"
    r"not sure|thinking (?:of|about)|wondering|considering|guess|suppose|hopefully|"
    r"please|remind|remember|write (?:that|this|it) down|let's|let me|lemme|"
    r"nothing is decided|not decided|undecided)\b"
    r"|^\W*(?:ok|okay|sure|yes|yeah|yep|no|nope|wow|haha|lol|aw+|oh)\b"
)
# Social formulas say nothing of the user, whatever follows them ("Thanks for the photos
# from the coast"); an interjection only opens a sentence ("Yeah, the kids loved the
# beach"), so it is judged once the markers are stripped.
_RESIDUE_SOCIAL = re.compile(
    r"(?i)^\W*(?:thanks|thank|hi|hey|hello|bye|goodbye|congrats|congratulations|sorry)\b"
)
_RESIDUE_LOWER = re.compile(
    r"(?:The|A|An|It|Its|It's|He|He's|She|She's|They|They're|Their|This|That|These|Those|"
    r"There|Our|We|We're|Some|Every|Each|All|One|First|Last|Next|Just|Back)\b"
)
_RESIDUE_MIN_CONTENT = 3
_RESIDUE_MAX_WORDS = 40


def _residue(sentence: str) -> Found | None:
    text = _trim(strip_markers(sentence)).strip(" ,;:-\u2014\u2013")
    if not text or text.rstrip("\"') ").endswith(("?", "!?")) or QUESTION_OPENERS.match(text):
        return None
    if _YOU.search(text) or _RESIDUE_REFUSED.search(text) or _RESIDUE_SOCIAL.match(sentence):
        return None
    # A sentence's capital first word is no name: it counts once, as any word.
    content = _content_words(text[:1].lower() + text[1:])
    if content < _RESIDUE_MIN_CONTENT or len(text.split()) > _RESIDUE_MAX_WORDS:
        return None
    made = _about_user_statement("fact.said", text)[0]
    said = made.statement
    if _RESIDUE_LOWER.match(said):
        said = said[:1].lower() + said[1:]  # "The move ..." but "Theo ...", "User's ..."
    statement = f"User said: {said}"
    return Found(
        statement=statement,
        belief_type=made.belief_type,
        subjects=made.subjects,
        polarity=True,
        rule="fact.said",
        key=_episode_key(statement),
    )


# Built once the catalogue above is complete.
_ORDERED: dict[str, list[tuple[str, re.Pattern[str], Rule]]] = {
    "i": _rules_for("i"),
    "my": _rules_for("my"),
    "": _rules_for(""),
}
