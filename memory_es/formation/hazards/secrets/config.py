"""Command-line and configuration shapes: ``name=value`` and ``name: value`` whose
name names a secret (env files, config, connection strings), and flags that take one."""

from __future__ import annotations

import re
from collections.abc import Iterator

from memory_es.formation.hazards.secrets.cache import Span, patterns
from memory_es.formation.hazards.secrets.shapes import in_url
from memory_es.formation.hazards.secrets.values import (
    code_reference,
    looks_secret,
    plausible_value,
    random_looking,
    words,
)

# A flag that takes a password positionally, by the tools that read it so: the flag is a
# secret only on a line that runs one of them (``-p`` is a port to ssh, ``-a`` "all").
_SECRET_FLAGS: dict[str, tuple[str, ...]] = {
    "-p": (
        "mysql",
        "mysqldump",
        "mariadb",
        "sshpass",
        "login",
        "psql",
        "mongo",
        "mongosh",
        "mongodump",
        "7z",
        "7za",
        "rar",
        "unrar",
        "-u",
    ),
    "-P": ("zip", "unzip", "zipcloak", "sqlcmd", "bcp", "osql", "isql"),
    "-N": ("ssh-keygen",),
    "-a": ("redis-cli",),
    "-k": ("openssl",),
    "-pass": ("openssl",),
}
_TOOL = patterns.compile(r"(?i)(?<![\w-])(?:[\w.-]{1,40}(?=\s)|-u(?=\s))")
_POSITIONAL = patterns.compile(
    r"(?<![\w-])(?P<flag>-p|-P|-a|-k|-N|-pass)(?:\s{1,3}(?:pass:)?|(?<=-p)|(?<=-pass)\s?pass:)"
    # quoted or not: "sshpass -p 'X' scp ...", "mysql -u root -pX"
    r"(?P<q>[\"']?)(?P<s>[^\s\"'-][^\s\"']{0,499})(?P=q)"
)


def _positional_flags(text: str) -> Iterator[Span]:
    """``mysql -pX``, ``redis-cli -a X``, ``zip -P X``, ``7z a -pX``, ``openssl -k X``."""
    for m in _POSITIONAL.finditer(text):
        line_start = text.rfind("\n", 0, m.start()) + 1
        before = text[max(line_start, m.start() - 200) : m.start()]
        tools = _SECRET_FLAGS[m.group("flag")]
        if any(t.group(0).casefold() in tools for t in _TOOL.finditer(before)):
            yield m.start("s"), m.end("s"), "command_line"


_PIPED_SUDO = patterns.compile(
    r"(?<![\w-])echo\s{1,3}(?:-n\s{1,3})?(?P<q>[\"']?)(?P<s>[^\s\"'|]{1,500})(?P=q)\s{0,3}\|"
    r"\s{0,3}(?:sudo\s{1,3}-S|passwd\s{1,3}--stdin|chpasswd|sudo\s{1,3}--stdin)"
)
# sudo -S <<< "X", net user NAME X, htpasswd -b FILE USER X, $env:NAME = "X".
_OTHER_POSITIONAL = (
    patterns.compile(
        r"(?<![\w-])sudo\s{1,3}-S\b[^\n<]{0,80}<<<\s{0,3}(?P<q>[\"']?)(?P<s>[^\s\"']{1,500})(?P=q)"
    ),
    patterns.compile(
        r"(?i)(?<![\w-])net\s{1,3}user\s{1,3}[^\s/]{1,100}\s{1,3}(?P<s>[^\s/*\"'][^\s\"']{0,499})"
    ),
    # net use Z: \\host\share X /user:NAME (the password before or after the user)
    patterns.compile(
        r"(?i)(?<![\w-])net\s{1,3}use\s{1,3}(?:[a-z]:\s{1,3}|\*\s{1,3})?\\\\[^\s\\]{1,253}"
        r"\\[^\s]{1,200}\s{1,3}(?:/user:[^\s]{1,100}\s{1,3})?(?P<s>[^\s/*\"'][^\s\"']{0,499})"
    ),
    patterns.compile(
        r"(?<![\w-])htpasswd\s{1,3}-\w{0,4}b\w{0,4}\s{1,3}\S{1,200}\s{1,3}[^\s-]\S{0,100}\s{1,3}"
        r"(?P<s>[^\s\"']{1,500})"
    ),
)
_ENV_ASSIGN = patterns.compile(
    r"(?i)\$env:(?P<name>[\w.]{1,100})\s{0,3}=\s{0,3}(?P<s>\"[^\"\n]{1,500}\"|'[^'\n]{1,500}'|[^\s\"']{1,500})"
)
# A code identifier naming a secret, then its value after a space: "aws configure set
# aws_secret_access_key X", "the db.password X".
_IDENT_VALUE = patterns.compile(
    r"(?<![\w.-])(?P<name>[A-Za-z][A-Za-z0-9]{0,40}(?:[_.][A-Za-z0-9]{1,40}){1,6})\s{1,3}"
    r"(?P<s>[^\s\"'=:]{4,500})"
)
# user:password@host:port/db, no scheme (a DSN, a connection string's tail); the host
# must carry a port or a database path, so "bob:hi@example.com" is left alone.
_BARE_DSN = patterns.compile(
    r"(?<![\w.:/@-])[\w.-]{1,64}:(?P<s>[^\s:@/\"'<>]{1,200})@[\w.-]{1,253}(?::\d{2,5}|/\w)"
)
# .pgpass: host:port:database:user:password, a port or * second.
_PGPASS = patterns.compile(
    # not a MAC address ("D4:35:1D:15:34:C6")
    r"(?<![\w.:*-])(?![0-9A-Fa-f]{2}(?::[0-9A-Fa-f]{2}){4})[\w.*-]{1,253}:(?:\d{1,5}|\*):[\w.*-]{1,100}:[\w.*-]{1,100}:"
    r"(?P<s>[^\s:]{1,200})"
)
# <password>X</password>, <add key="DbPassword" value="X"/>, user%password (smbclient -U).
_XML_ELEMENT = patterns.compile(r"<(?P<tag>[\w:.-]{1,60})>(?P<s>[^<\s]{1,500})</(?P=tag)>")
_KEY_VALUE_ATTRS = patterns.compile(
    r"(?i)key\s{0,3}=\s{0,3}\"(?P<name>[^\"]{1,100})\"\s{1,5}value\s{0,3}=\s{0,3}\"(?P<s>[^\"]{1,500})\""
)
_SMB_USER = patterns.compile(r"(?<![\w-])-U\s{1,3}[\w.-]{1,100}%(?P<s>[^\s\"']{1,500})")


def _positional(text: str) -> Iterator[Span]:
    """Command-line and config shapes whose secret no ``name=`` announces."""
    yield from _positional_flags(text)
    for pattern in (_PIPED_SUDO, _BARE_DSN, _PGPASS, _SMB_USER, *_OTHER_POSITIONAL):
        for m in pattern.finditer(text):
            yield m.start("s"), m.end("s"), "command_line"
    for m in _XML_ELEMENT.finditer(text):
        if _names_secret(m.group("tag")):
            yield m.start("s"), m.end("s"), "credential"
    for m in _KEY_VALUE_ATTRS.finditer(text):
        if _names_secret(m.group("name")):
            yield m.start("s"), m.end("s"), "credential"
    for m in _ENV_ASSIGN.finditer(text):
        if _names_secret(m.group("name")):
            yield m.start("s"), m.end("s"), "credential"
    for m in _IDENT_VALUE.finditer(text):
        value = m.group("s").rstrip(".,;)")
        if _STRONG_PART.search(m.group("name")) and looks_secret(value):
            yield m.start("s"), m.start("s") + len(value), "credential"


# -- name=value: env files, config, connection strings, command-line flags -------------------

# Parts of a name that say it holds a secret; ``pass`` and ``key`` only as a whole part
# (``compass``, ``monkey``), the longer words anywhere (``PGPASSWORD``).
_STRONG_PART = patterns.compile(
    r"(?i)passw(?:or)?d|passphrase|passcode|secret|token(?!i[sz])|apikey|api_key|credential|"
    r"private_?key|access_?key|signing_?key|cookie|session_?id|webhook|dsn"
)
_WEAK_PARTS = words("pass pw pwd psk pin otp key auth creds cred sid sig signature conn connstr")


def _names_secret(name: str) -> bool:
    if _STRONG_PART.search(name):
        return True
    parts = re.split(r"[_.\-]+|(?<=[a-z0-9])(?=[A-Z])", name)
    return any(p.casefold() in _WEAK_PARTS for p in parts if p)


# The separator and its value on the name's own line: "environment:" closing a line
# opens a block ("environment:\n  POSTGRES_PASSWORD: X"), it takes no value of its own.
_NAME_VALUE = patterns.compile(
    r"(?<![\w.-])(?P<name>[A-Za-z_][\w.-]{0,100})[\"']?[^\S\n]{0,5}(?P<sep>=>|=|:)[^\S\n]{0,5}"
    r"(?P<s>\"[^\"\n]{1,500}\"|'[^'\n]{1,500}'|[^\s,;\"']{1,1000})"
)
# A parameter joined to the one before it ("user=etl&password=X", "?user=a;pwd=X"): the
# name=value rule reads the first pair only, its value running over the ampersand.
_JOINED_PARAM = patterns.compile(
    r"(?<=[&;?])(?P<name>[A-Za-z_][\w.-]{0,60})=(?P<s>[^&;#\s\"'<>]{1,500})"
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


def _name_value_matches(text: str) -> Iterator[re.Match[str]]:
    """Every ``name=value`` of the text; a value that holds a pair of its own ("yaml:
    api_key: X", "wpa_supplicant.conf: psk=X") is read again from its start, so the
    outer label does not hide the inner pair."""
    pos = 0
    while (m := _NAME_VALUE.search(text, pos)) is not None:
        yield m
        # a value that is a name and its separator only, the inner value after a quote or
        # a space: read again from the inner name (a bounded re-read, once per pair)
        nested = _INNER_PAIR.fullmatch(m.group("s")) is not None
        pos = m.start("s") if nested else m.end()


_INNER_PAIR = patterns.compile(r"[A-Za-z_][\w.-]{0,100}(?:=|:)")


_GOES_ON = patterns.compile(r"[^\S\n]{1,3}[A-Za-z]")
_PASSPHRASE = patterns.compile(r"(?i)pass(?:phrase|word)")
# What a name is given in code that is no secret: a literal, a type, a call or an index
# ("primary_key=True", "password: str", "token = new Tokenizer()", "key == value").
_CODE_LITERALS = words(
    "true false none null nil undefined new str int string bool boolean number float any "
    "object self this"
)


def _code_value(bare: str, value: str) -> bool:
    if not any(c.isalnum() for c in bare):
        return True  # "Key ==", "Auth-Type :="
    if value[:1] in "\"'":
        return "\\" in bare  # "'\\_price'": a name markdown escaped, in code
    return bare.casefold() in _CODE_LITERALS or code_reference(bare)


def name_values(text: str) -> Iterator[Span]:
    for m in _name_value_matches(text):
        name, sep, value = m.group("name"), m.group("sep"), m.group("s")
        bare = value.strip("\"'")
        if not bare or bare.startswith("[redacted") or bare.startswith("//"):
            continue
        if _names_secret(name) and not _code_value(bare, value):
            # In prose a colon follows ordinary words ("Key: the meeting moved"): a
            # plain word after one is a value only when the name is a password word.
            prose = sep == ":" and name.isalpha() and not name.isupper()
            if prose and not (
                looks_secret(bare) or (_STRONG_PART.search(name) and plausible_value(bare))
            ):
                continue
            # "token: user token to access the api": a plain word going on into a
            # sentence is prose; a value closes its line ("secret: sunshine")
            plain = bare.isalpha() and bare.islower() and value[:1] not in "\"'"
            if prose and plain and _GOES_ON.match(text, m.end()):
                continue
            # "here is a secret: "staff hate long forms"": a quoted saying, not a value
            if prose and len(bare.split()) > 2 and not _PASSPHRASE.search(name):
                continue
            yield m.start("s"), m.end("s"), "credential"
        elif (
            sep == "="
            and random_looking(bare.rstrip("="), 20)
            and not in_url(text, m.start())
            and not code_reference(bare)  # "handler = TimesaleHandler(TimesaleData)"
        ):
            yield m.start("s"), m.end("s"), "token"
    for m in _JOINED_PARAM.finditer(text):
        if _names_secret(m.group("name")) and not m.group("s").startswith("[redacted"):
            yield m.start("s"), m.end("s"), "credential"
    for m in _FLAG.finditer(text):
        yield m.start("s"), m.end("s"), "command_line"
    for m in _USER_PASS_FLAG.finditer(text):
        yield m.start("s"), m.end("s"), "command_line"
    yield from _positional(text)
