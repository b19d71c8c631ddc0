"""Rule family: employment, role and work arrangement ("I work at Acme as a data
engineer", "I'm a nurse", "I work remotely").
"""

from __future__ import annotations

import re

from memory_es.formation.patterns.lexicon import ADV, ATTR, DET, NAME, OCCUPATIONS
from memory_es.formation.patterns.phrases import article, proper, third, tidy, usable
from memory_es.formation.patterns.rule import Found, Rule, found, rule


# Employment and role.
def _employment(name: str, org: str, role: str | None) -> list[Found]:
    org = tidy(org, cut=re.compile(r"\s+(?:for|since|in|on|and|where)\b.*$", re.I))
    if not usable(org):
        return []
    org = proper(org)
    if role:
        role = tidy(role)
        if not re.match(rf"(?i)^(?:{DET}|their|his|her|its)\b", role):
            role = article(role)
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
        role = article(role)
    return [found("attr.role", f"User works as {third(role)}", ATTR, "role")]


@rule(
    "attr.employment",
    rf"^I {ADV}am (?P<role>(?:a|an|the) (?:[\w-]+ ){{0,3}}{OCCUPATIONS}s?)"
    r"(?: (?P<prep>at|for|with|in|on) (?P<org>.+)| (?:there|here))?$",
)
def _am_role(m: re.Match[str]) -> list[Found]:
    if m["org"] and re.match(r"^[A-Z]", m["org"]):
        return _employment("attr.employment", m["org"], m["role"])
    if m["prep"] and m["prep"].lower() == "on":
        # "I'm a platform engineer on the data team": the role, on its team.
        role = tidy(f"{m['role']} on {m['org']}")
        return [found("attr.role", f"User is {third(role)}", ATTR, "role")]
    role = tidy(m["role"] + (f" in {m['org']}" if m["org"] else ""))
    return [found("attr.role", f"User is {third(role)}", ATTR, "role")]


@rule(
    "attr.employment",
    rf"^I {ADV}(?:have )?(?:joined|started at|started working at|started working for|"
    rf"started a new job at|got a (?:new )?job at|got a (?:new )?job with|got hired at|"
    rf"got hired by|accepted an offer from|accepted a job at|am starting at|am starting a new "
    rf"job at|will be starting at|start at)"
    rf" (?P<org>{NAME})(?:\s+as\s+(?P<role>.+))?(?P<rest>.*)$",
)
def _joined(m: re.Match[str]) -> list[Found]:
    if m["rest"].strip() and not re.match(
        r"(?i)^\s*(?:last|this|in|a|on|recently|two|three|next|soon|tomorrow)", m["rest"]
    ):
        return []
    return _employment("attr.employment", m["org"], m["role"])


# "I'm a student at NYU", "I'm a PhD student at ETH": where the user studies, not an
# employer.
@rule(
    "attr.school",
    rf"^I {ADV}am (?:a|an) (?:[\w-]+ ){{0,2}}?(?:student|undergrad|undergraduate|grad student|"
    rf"freshman|sophomore|phd student|phd candidate|postgrad) (?:at|in) (?P<org>{NAME})"
    r"(?P<rest>.*)$",
    needs=("student", "undergrad", "freshman", "sophomore", "postgrad", "phd"),
)
def _student_at(m: re.Match[str]) -> list[Found]:
    org = tidy(m["org"])
    if not usable(org):
        return []
    return [found("attr.school", f"User studies at {org}", ATTR, ("school", "education"))]


# "I teach third grade at Lincoln Elementary": the role, where it is held.
@rule(
    "attr.teaches",
    rf"^I {ADV}teach (?P<what>(?:[\w-]+ ){{0,3}}?[\w-]+) at (?P<org>{NAME})$",
    needs=("teach",),
)
def _teaches_at(m: re.Match[str]) -> list[Found]:
    org = tidy(m["org"])
    if not usable(org) or re.match(r"(?i)^(?:it|that|this|them|you|him|her)\b", m["what"]):
        return []
    return [found("attr.teaches", f"User teaches {m['what']} at {org}", ATTR, "role")]


RULES: tuple[Rule, ...] = (
    _student_at,
    _teaches_at,
    _work_remote,
    _works_at,
    _works_at_lower,
    _work_as,
    _am_role,
    _joined,
)
