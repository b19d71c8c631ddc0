"""Word lists and pattern pieces the rules share: belief types, relations,
occupations, preference topics, the words that carry no content, cut points.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from memory_es.domain.values import BeliefType


def alternation(words: Iterable[str]) -> str:
    """A regex alternative of ``words``, escaped, the longest first (so "can not stand"
    wins over "can")."""
    return "|".join(sorted((re.escape(w) for w in words), key=len, reverse=True))


F = BeliefType.FACT
PREF = BeliefType.PREFERENCE
REL = BeliefType.RELATIONSHIP
ATTR = BeliefType.USER_MODEL_ATTR

PROJECT_DECISION = "project decision"
HOME = ("home location", "location")


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
    # People the user names by their role in the user's life.
    "teacher": ("teacher",),
    "tutor": ("tutor", "teacher"),
    "coach": ("coach",),
    "advisor": ("advisor",),
    "adviser": ("adviser", "advisor"),
    "vet": ("vet", "veterinarian"),
    "coworker": ("coworker", "colleague"),
    "colleague": ("colleague",),
    "stepson": ("stepson", "child"),
    "stepdaughter": ("stepdaughter", "child"),
}
# Which pronoun can point back at a relation (cross-sentence reference,
# memory_es/formation/patterns/reference.py); a relation in neither set takes either.
MALE_RELATIONS = frozenset(
    [
        "husband",
        "boyfriend",
        "fiance",
        "fiancé",
        "dad",
        "father",
        "brother",
        "son",
        "grandfather",
        "grandpa",
        "uncle",
        "nephew",
        "stepson",
    ]
)
FEMALE_RELATIONS = frozenset(
    [
        "wife",
        "girlfriend",
        "fiancee",
        "fiancée",
        "mom",
        "mother",
        "mum",
        "sister",
        "daughter",
        "grandmother",
        "grandma",
        "aunt",
        "niece",
        "stepdaughter",
    ]
)
REL_ALT = alternation(RELATIONS)
REL_WORD = rf"(?P<rel>{REL_ALT})"

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
    # The order of an answer's parts ("the summary first and the details after").
    (
        "answer structure",
        re.compile(
            r"\b(?:summary|summaries|conclusion|overview|bottom line|tl;?dr|key points?|"
            r"answer|details)\b(?:\s+\w+){0,2}\s+(?:first|up front|at the top|at the end)\b",
            re.I,
        ),
    ),
    # How an answer is laid out, apart from how long or plain it is: "I prefer short
    # paragraphs now" replaces "I prefer bullet points", not "I prefer concise answers".
    (
        "answer format",
        re.compile(
            r"\b(?:bullet points?|bullets|prose|paragraphs?|numbered lists?|tables|headings|"
            r"headers|markdown)\b",
            re.I,
        ),
    ),
    (
        "answer style",
        re.compile(
            r"\b(?:answers?|responses?|replies|reply|explanations?|summaries|summary|"
            r"verbose|verbosity|tl;?dr|code examples?|examples)\b",
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
CHOICE = re.compile(
    r"^(?:(?:the|a|an|this|that)\s+)?(?:(?:first|second|third|fourth|last|other|former|"
    r"latter|previous|next|newer|latest|shorter|longer|original|updated|revised|"
    r"top|bottom|simpler|cleaner|same|above|below|current)\b"
    r"|(?:\w+\s+){0,2}(?:one|ones|option|options|version|versions|approach|draft|"
    r"suggestion|alternative|variant)\b)",
    re.I,
)
PRONOUN_OBJECT = re.compile(
    r"^(?:it|this|that|them|these|those|one|something|stuff|things?|you|your|him|her|"
    r"everything|anything|nothing|what|how|when|where|if|whether|so|too|much|more|"
    r"here|there|to)\b",
    re.I,
)
# Where an object phrase stops being the object: a new clause or a reason.
OBJECT_CUT = re.compile(
    r"\s+(?:because|since|so that|so I|so we|which|but|although|though|if|unless|"
    r"when I|when we|while|whereas|lol|haha|and I|and we|and my|and it|and that|"
    r"and so|as I|as we|cause|cuz)\b.*$",
    re.I,
)
RELATIVE_CUT = re.compile(r"\s+(?:that|which|who|whose|where)\b.*$", re.I)
PLACE_CUT = re.compile(
    r"\s+(?:with|for|since|near|where|now that|and have|and work|and I|ever since|"
    r"these days|at the moment|right now|currently|now)\b.*$",
    re.I,
)
TRAILING = re.compile(
    r"(?:\s+(?:now|these days|nowadays|currently|at the moment|right now|anymore|"
    r"any more|any longer|lol|haha|too|as well|btw|though|actually|honestly|tbh|"
    r"for now|by the way|fyi|really|a lot|very much|so much|please|pls|mostly|mainly|"
    r"usually|most of the time|for the most part|i guess|i think|haha|lmao|:\)|ok)"
    r"|\s*[:;]-?[)(DPp]|\s*[.!?,;:\u2026]+|\s+)$",
    re.I,
)
HEAD_CUT = re.compile(
    r"\s+(?:(?:more|less|better) than|for|to|with|on|at|in|from|over|than|instead|rather|"
    r"because|since|when|while|"
    r"that|which|who|as|by|and|or|but|so|during|every|into|about|via|after|before|"
    r"like|whenever|if|most|all)\b.*$",
    re.I,
)
LEAD_DET = re.compile(
    r"^(?:(?:a|an|the|my|our|their|some|any|this|that|these|those|one|two|three|four|"
    r"five|\d+|new|brand new|own|pair of|couple of|a bit of|bit of|a little|little|some)\s+)+",
    re.I,
)


def word_set(text: str) -> frozenset[str]:
    return frozenset(text.split())


MODALS = word_set("will would can could should shall might may must wont ought")
NOT_VERBS = word_set(
    "too myself alone and or but a an the to in on at for with of as if so not no "
    "personally also really just even"
)
# Adverbs that may stand before the verb; they stay in the statement.
EPISODE_ADVERBS = word_set(
    "also just really recently finally actually definitely totally never always often "
    "sometimes usually still already absolutely truly literally honestly seriously "
    "genuinely mostly even once first last kinda officially almost nearly barely hardly simply"
)
IRREGULAR_PAST = word_set(
    "went got made took saw had did was were ran came gave found bought brought thought "
    "taught caught felt left met kept sent spent built began won lost wrote read drove "
    "rode ate drank swam sang sat stood heard told knew grew threw flew drew wore chose "
    "broke spoke woke forgot paid put set cut hit let hurt shut quit fell held led slept "
    "lit became understood fed fought hung dug stuck struck sold shot shook bit hid tore "
    "blew dealt meant sought spun wept began rang sank stole swore swung bent lent "
    "froze"
)
# Words that carry no content of their own: an episode needs two content words.
LIGHT = word_set(
    "am is are was were be been being have has had having do does did get got go went "
    "it its this that these those them they their there here thing things stuff so "
    "very really too just much more some any all a an the and or but of to in on at for "
    "with from by about as up out off over into than then also even still now today "
    "lot lots bit kind sort one ones way time times well good great nice fun cool like "
    "awesome amazing sure yes yeah not no never always"
)
YOU = re.compile(r"(?i)\b(?:you|your|yours|yourself|ya)\b|\[redacted")
# A name set off at a sentence's end ("That's great, Caroline.", "Take it easy, Evan!"):
# a vocative when the word before the comma is lowercase (``phrases.vocative``), so not
# "Portland, Oregon".
VOCATIVE_TAIL = re.compile(r"(?<=[\w'])\s*,\s+(?-i:[A-Z][a-z]+)[\s.!\u2026]*$")


# Words in -ly that are not adverbs.
LY_NOUNS = word_set("family friendly lovely lonely holy italy july rally jelly belly ugly silly")


SUBJECT_SKIP = word_set(
    "to at in on for with about from into by of up out back off over around down away "
    "been being so very really just also still even a an the some my our their this "
    "these that those going gonna planning trying hoping super pretty quite it them him "
    "her currently already now recently finally started begun began"
)


FEELINGS = word_set(
    "excited thrilled stoked proud grateful thankful blessed nervous anxious stressed "
    "exhausted worried scared terrified curious eager keen inspired motivated "
    "determined overwhelmed relieved heartbroken devastated obsessed addicted "
    "interested hooked busy"
)
ING_NOT_VERBS = word_set(
    "according regarding speaking talking including considering assuming nothing "
    "something anything everything morning evening thing things wedding building "
    "spring king ring sing bring string wing sibling darling pudding ceiling during "
    "sounding being seeing hearing feeling wishing hoping thinking looking "
    "sending keeping"
)
