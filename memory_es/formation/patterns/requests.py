"""Rule family: how the user asks to be served ("please keep answers short", "can you
always answer in Spanish?", "use metric units", "don't use emojis").

A request about the service is information about the user — a preference — never an
instruction the memory carries: the statement is always "User prefers ...", so it cannot
read as an order (``hazards.is_instruction`` still screens it, and the turn's injection
screen runs first: "please ignore your rules" never reaches here). Only the shape of a
request about answers, units, language or style, or to leave something out ("leave out
the cilantro"), is read; any other imperative forms nothing from this family.
"""

from __future__ import annotations

import re

from memory_es.formation.patterns.habits import gerund
from memory_es.formation.patterns.lexicon import PREF
from memory_es.formation.patterns.phrases import preference_subject, third, tidy
from memory_es.formation.patterns.rule import Found, Rule, found, rule

# "please", "could you", "can you always", "from now on please" (the opener of a request).
_ASK = (
    r"^(?:(?:ok(?:ay)?|so|and|also|oh|hey|hi)[, ]+)?(?:please[, ]+)?"
    r"(?:(?:could|can|would|will) you(?: please)?[, ]+)?(?:please[, ]+)?"
    r"(?:(?:always|generally|usually|just|try to)[, ]+)?"
)
# What a response is called; the adjectives a request asks of it.
_RESPONSES = (
    r"(?:answers?|responses?|replies|reply|explanations?|messages?|summaries|summary|"
    r"emails?|suggestions?|recipes?|instructions)"
)
_STYLE = (
    r"(?P<style>short|shorter|brief|briefer|concise|succinct|simple|simpler|detailed|"
    r"thorough|formal|informal|casual|friendly|professional|technical|non-technical|"
    r"plain|clear|direct|to the point|under \d+ words|in bullet points|in bullets|"
    r"in (?:plain )?english|light|upbeat)"
)
_TAIL = r"(?: for me| please| from now on| going forward| if you can| if possible)*[.!?]*$"


def _noun(raw: str) -> str:
    noun = raw.lower()
    if noun in ("reply",):
        return "replies"
    if noun in ("summary",):
        return "summaries"
    return noun if noun.endswith("s") else noun + "s"


@rule(
    "preference.request_style",
    _ASK + rf"(?:keep|make) (?:your |the |all |all your )?(?P<noun>{_RESPONSES}) "
    rf"(?:(?:really|very|a bit|a little|nice and|fairly|pretty) )?{_STYLE}{_TAIL}",
)
def _keep(m: re.Match[str]) -> list[Found]:
    statement = _styled_answers(m)
    # The slot the prefer rule gives the same words ("answer style"): a later "I prefer
    # detailed answers" supersedes "keep answers short".
    return [found("preference.request_style", statement, PREF, preference_subject(statement))]


def _styled_answers(m: re.Match[str]) -> str:
    """ "User prefers short replies" / "User prefers answers in bullet points" from a
    match's ``style`` and ``noun``."""
    style = _comparative(m["style"].lower())
    noun = _noun(m["noun"])
    if style.startswith(("in ", "under ", "to ")):
        return f"User prefers {noun} {style}"
    return f"User prefers {style} {noun}"


def _comparative(style: str) -> str:
    return {"shorter": "short", "briefer": "brief", "simpler": "simple"}.get(style, style)


@rule(
    "preference.request_language",
    _ASK + r"(?:answer|respond|reply|write|talk|speak|explain things|text) "
    r"(?:to me |back )?(?:only )?in (?P<lang>(?-i:[A-Z][a-z]+)|bullet points|"
    r"plain (?:english|language)|simple (?:english|terms|language)|short sentences)" + _TAIL,
)
def _language(m: re.Match[str]) -> list[Found]:
    lang = m["lang"]
    statement = f"User prefers answers in {lang}"
    # A language is its own slot; "in bullet points" is the answer style's.
    slot = "answer language" if lang[:1].isupper() else preference_subject(statement)
    return [found("preference.request_language", statement, PREF, slot)]


@rule(
    "preference.request_use",
    _ASK + r"use (?P<o>(?:metric|imperial|us|british|american|celsius|fahrenheit|"
    r"kilometers|miles|kilograms|pounds|24-hour|12-hour|european|iso|plain|simple|"
    r"bullet|numbered|short|more|fewer|less)\b[\w' -]{0,40}?)" + _TAIL,
)
def _use(m: re.Match[str]) -> list[Found]:
    o = tidy(m["o"])
    if not o:
        return []
    o = o.lower()
    return [found("preference.request_use", f"User prefers {o}", PREF, preference_subject(o))]


@rule(
    "preference.request_avoid",
    _ASK + r"(?:do not|don't|dont|never|stop|avoid)(?: using| use| to use)? "
    r"(?P<o>emojis?|jargon|slang|acronyms|abbreviations|exclamation (?:marks|points)|"
    r"technical (?:terms|language|jargon)|long (?:answers|responses|paragraphs)|"
    r"bullet points|tables|markdown|emoticons)" + _TAIL,
)
def _avoid(m: re.Match[str]) -> list[Found]:
    o = m["o"].lower()
    return [found("preference.request_avoid", f"User prefers answers without {o}", PREF, o)]


# A wish about the answers said without a verb: "Short replies please", "Going forward,
# shorter answers would be great", "Concise answers work best for me" (the clause reader
# has trimmed a closing "please" already: the style and the answers' noun alone say it).
_WISH_OPENER = (
    r"^(?:(?:going forward|from now on|in (?:the )?future|for now|generally|ideally|"
    r"if possible|if you can)[, ]+)?(?:please[, ]+)?"
)
_WISH_TAIL = (
    r"(?:,? please|,? thanks| would be (?:great|nice|good|better|ideal|appreciated|perfect|"
    r"lovely|helpful)| (?:are|is) (?:better|best|preferred|ideal|great)| work(?:s)? "
    r"(?:best|better) for me| (?:suit|suits) me (?:best|better)| for me)*"
    r"(?: going forward| from now on)?[.!]*$"
)


@rule(
    "preference.request_wish",
    _WISH_OPENER + rf"(?:(?:really|very|nice and|much|a bit) )?{_STYLE} "
    rf"(?P<noun>{_RESPONSES}){_WISH_TAIL}",
)
def _wish(m: re.Match[str]) -> list[Found]:
    statement = _styled_answers(m)
    return [found("preference.request_wish", statement, PREF, preference_subject(statement))]


@rule(
    "preference.request_without",
    _WISH_OPENER + r"(?:no|fewer|less) (?P<o>emojis?|jargon|slang|acronyms|abbreviations|"
    r"exclamation (?:marks|points)|technical (?:terms|language|jargon)|small talk|"
    r"pleasantries|filler|fluff|disclaimers|caveats|bullet points|tables|markdown|"
    r"emoticons)(?: in (?:your|the) (?:answers|replies|responses|messages))?" + _WISH_TAIL,
)
def _without(m: re.Match[str]) -> list[Found]:
    o = m["o"].lower()
    return [found("preference.request_without", f"User prefers answers without {o}", PREF, o)]


# "Leave out the cilantro", "skip the onions please": what the user asks to be left out
# of what they are served; with "I can't stand it" beside it, the pronoun is this
# (patterns/clauses.py reads the dislike of it).
_LEAVE_OUT = r"(?P<v>leave out|skip|omit|cut out)"
_LEFT_OUT = r"(?P<o>(?:the |any |all (?:the )?)?[a-z][a-z-]+(?: [a-z][a-z-]+)?)"


@rule("preference.request_leave_out", _ASK + rf"{_LEAVE_OUT} {_LEFT_OUT}" + _TAIL)
def _leave_out(m: re.Match[str]) -> list[Found]:
    return _left_out(m["v"], m["o"])


@rule("preference.request_leave_out", _ASK + rf"(?P<v>leave) {_LEFT_OUT} out" + _TAIL)
def _leave_it_out(m: re.Match[str]) -> list[Found]:
    return _left_out("leave out", m["o"])


def _left_out(verb: str, obj: str) -> list[Found]:
    thing = re.sub(r"(?i)^(?:the|any|all|all the) ", "", obj.strip())
    if re.match(r"(?i)^(?:it|them|that|this|me|us|you|for|to|out|up)\b", thing):
        return []
    first, _, rest = verb.lower().partition(" ")
    doing = " ".join(p for p in (gerund(first), rest) if p)
    # Against the thing, as a dislike is (a later "I love cilantro" is a change of
    # mind), in a slot of its own beside the dislike said with it.
    statement = f"User prefers {doing} {obj}"
    return [
        found(
            "preference.request_leave_out",
            statement,
            PREF,
            thing,
            polarity=False,
            key=f"left out/{thing.lower()}",
        )
    ]


_SERVICE_VERBS = (
    r"explain|answer|keep|use|write|give|reply|respond|talk|speak|show|list|summari[sz]e|"
    r"walk me through|check|ask|remind|suggest|recommend|include|avoid|stick to|skip|"
    r"leave out|drop|cut|keep"
)


@rule(
    "preference.request_manner",
    rf"^I (?:would |'d |really |do )?(?:prefer|like|want|need|rather) (?:it )?"
    rf"(?:if |when |that |for )?you (?:to )?(?:always |just |only )?"
    rf"(?P<v>{_SERVICE_VERBS})\b(?P<rest>[^.!?]*)[.!?]*$",
)
def _manner(m: re.Match[str]) -> list[Found]:
    """ "I prefer you explain things step by step": how they want to be served."""
    rest = tidy(m["rest"])
    if not rest or len(rest.split()) > 12:
        return []
    verb = m["v"].lower()
    statement = f"User prefers that the assistant {verb} {third(rest)}"
    return [found("preference.request_manner", statement, PREF, "answer style")]


RULES: tuple[Rule, ...] = (
    _keep,
    _language,
    _use,
    _avoid,
    _wish,
    _without,
    _leave_out,
    _leave_it_out,
    _manner,
)


def asked_for(sentence: str) -> list[Found]:
    """What a polite question asks of the service ("Could you keep answers brief?"):
    questions form nothing else, so this family reads them before they are skipped."""
    text = sentence.strip().rstrip("\"') ")
    for entry in RULES:
        m = entry.pattern.match(text)
        if m:
            got = entry.read(m)
            if isinstance(got, list) and got:
                return got
    return []
