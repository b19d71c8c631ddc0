"""Rule family: team decisions and team tools (type ``fact``, local to the project they
were made in), keyed on what was decided.
"""

from __future__ import annotations

import re

from memory_es.domain.values import SUBJECT_KEY_SEPARATOR
from memory_es.formation.patterns.lexicon import ADV, PROJECT_DECISION, F
from memory_es.formation.patterns.phrases import head, third, tidy, usable
from memory_es.formation.patterns.rule import Found, Rule, found, rule

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


RULES: tuple[Rule, ...] = (
    _team_decision,
    _team_chose,
    _decision_is,
    _team_uses,
)
