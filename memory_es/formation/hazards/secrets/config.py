"""Command-line and configuration shapes: ``name=value`` and ``name: value`` whose
name names a secret (env files, config, connection strings), and flags that take one."""

from __future__ import annotations

import re
from collections.abc import Iterator

from memory_es.formation.hazards.secrets.cache import Span, patterns
from memory_es.formation.hazards.secrets.values import (
    looks_secret,
    plausible_value,
    random_looking,
    words,
)


def _command_line_p(m: re.Match[str], text: str) -> bool:
    line_start = text.rfind("\n", 0, m.start()) + 1
    before = text[max(line_start, m.start() - 200) : m.start()]
    return bool(re.search(r"(?i)\b(?:mysql\w*|mariadb|sshpass|login|psql|mongo\w*)\b|-u\s", before))


def _command_line_p_rule(text: str) -> Iterator[Span]:
    for m in _DASH_P.finditer(text):
        if _command_line_p(m, text):
            yield m.start("s"), m.end("s"), "command_line"


_DASH_P = patterns.compile(r"(?<![\w-])-p\s{0,3}(?P<s>[^\s\"'-][^\s\"']{0,499})")


# -- name=value: env files, config, connection strings, command-line flags -------------------

# Parts of a name that say it holds a secret; ``pass`` and ``key`` only as a whole part
# (``compass``, ``monkey``), the longer words anywhere (``PGPASSWORD``).
_STRONG_PART = patterns.compile(
    r"(?i)passw(?:or)?d|passphrase|passcode|secret|token|apikey|api_key|credential|"
    r"private_?key|access_?key|signing_?key|cookie|session_?id|webhook|dsn"
)
_WEAK_PARTS = words("pass pw pwd pin otp key auth creds cred sid sig signature conn connstr")


def _names_secret(name: str) -> bool:
    if _STRONG_PART.search(name):
        return True
    parts = re.split(r"[_.\-]+|(?<=[a-z0-9])(?=[A-Z])", name)
    return any(p.casefold() in _WEAK_PARTS for p in parts if p)


_NAME_VALUE = patterns.compile(
    r"(?<![\w.-])(?P<name>[A-Za-z_][\w.-]{0,100})[\"']?\s{0,5}(?P<sep>=>|=|:)\s{0,5}"
    r"(?P<s>\"[^\"\n]{1,500}\"|'[^'\n]{1,500}'|[^\s,;\"']{1,1000})"
)
_FLAG = patterns.compile(
    r"(?i)(?<![\w-])--?[\w-]{0,40}(?:password|passwd|pass|pwd|secret|token|api-?key|apikey|"
    r"auth|credentials?|passphrase|access-key|secret-key|private-key)(?:=|\s{1,3})"
    r"(?P<s>\"[^\"\n]{1,500}\"|'[^'\n]{1,500}'|[^\s\"'-][^\s\"']{0,499})"
)
_USER_PASS_FLAG = patterns.compile(
    r"(?<![\w-])(?:-u|--user(?:name)?|--basic|-U)(?:=|\s{1,3})[\"']?[^\s:\"']{1,100}:"
    r"(?P<s>[^\s\"']{1,500})"
)


def name_values(text: str) -> Iterator[Span]:
    for m in _NAME_VALUE.finditer(text):
        name, sep, value = m.group("name"), m.group("sep"), m.group("s")
        bare = value.strip("\"'")
        if not bare or bare.startswith("[redacted") or bare.startswith("//"):
            continue
        if _names_secret(name):
            # In prose a colon follows ordinary words ("Key: the meeting moved"): a
            # plain word after one is a value only when the name is a password word.
            prose = sep == ":" and name.isalpha() and not name.isupper()
            if prose and not (
                looks_secret(bare) or (_STRONG_PART.search(name) and plausible_value(bare))
            ):
                continue
            yield m.start("s"), m.end("s"), "credential"
        elif sep == "=" and random_looking(bare.rstrip("="), 20):
            yield m.start("s"), m.end("s"), "token"
    for m in _FLAG.finditer(text):
        yield m.start("s"), m.end("s"), "command_line"
    for m in _USER_PASS_FLAG.finditer(text):
        yield m.start("s"), m.end("s"), "command_line"
    yield from _command_line_p_rule(text)
