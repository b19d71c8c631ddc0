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
    r"^I (?:think|guess|feel|wonder|want|wanna|need|needed|was|were|had|used to|might|may|"
    r"could|should|must|can(?! not stand| not bear)|will|would like|would love|"
    r"would rather|would be|would not|"
    r"hope|wish|mean|meant|said|told|asked|forgot|forget|believe|suppose|bet|doubt|"
    r"imagine|assume|heard|saw|read|agree|disagree|see|understand|know|get it|got it|"
    r"appreciate|apologize|apologise|promise|tried|try|plan|am going to|am gonna|"
    r"am trying|am looking|am thinking|am planning|am wondering|am curious|am asking|"
    r"am not sure|am unsure|am here|am back|am sorry|am glad|am happy|am excited|"
    r"am done|am ready|am good|am fine|am okay|am ok|am confused|am stuck|am tired|"
    r"am working on|am about to|am still trying|am having|am getting|am hoping|"
    r"am considering|am debating|am writing|am reading|am running|am testing|"
    r"am sure|am afraid|am worried|am interested|am just|do not know|do not think|"
    r"do not understand|do not remember|did|have been|have to|have got to|have no idea|"
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
    if not usable(o) or re.match(r"(?i)^(?:the way|how|when|what|that|working with you)\b", o):
        return []
    verb = _LIKE_VERBS[m["verb"].lower()]
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
    for _name, pattern, fn in _ORDERED.get(first if first in ("i", "my") else "", []):
        m = pattern.match(clause)
        if m is not None:
            return fn(m)
    return None


def extract_clauses(text: str) -> list[Found]:
    """Every belief a user turn states, in the order it states them."""
    out: list[Found] = []
    for sentence in sentences(repair(text)):
        if sentence.rstrip("\"') ").endswith("?"):
            continue
        first_person = False
        list_prefix: str | None = None
        for raw in clauses(sentence):
            clause = _trim(strip_markers(raw))
            if not clause or QUESTION_OPENERS.match(clause):
                list_prefix = None
                continue
            if first_person and _ELLIPSIS_VERBS.match(clause):
                clause = "I " + clause
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
            if result:
                out.extend(result)
                if not continued:
                    prefix = _LIST_PREFIX.match(clause)
                    list_prefix = (
                        prefix.group(1) if prefix and result[0].rule in _LIST_RULES else None
                    )
            elif result is None:
                list_prefix = None
    return out


# Built once the catalogue above is complete.
_ORDERED: dict[str, list[tuple[str, re.Pattern[str], Rule]]] = {
    "i": _rules_for("i"),
    "my": _rules_for("my"),
    "": _rules_for(""),
}
