"""Secrets: found by shape, by checksum, by entropy, and by the words said around them.

Every rule reports spans of the original text; overlapping spans merge, so a value two
rules both see is redacted once, under the kind of the rule listed first. Every pattern
is linear: a quantifier over unbounded input is either bounded or starts only where the
previous character cannot continue it (a lookbehind on the same class), so no two match
attempts rescan the same run. docs/hazards.md lists the kinds and the phrasings.
"""

from __future__ import annotations

import base64
import binascii
import math
import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import pairwise
from typing import NamedTuple

from memory_es.pattern_cache import PatternCache

Span = tuple[int, int, str]  # start, end, kind

# Every pattern is compiled at import, through the cache (memory_es/pattern_cache.py:
# compiling them is most of a short command's start-up otherwise); saved at the end.
_patterns = PatternCache(__file__)


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# -- value tests ---------------------------------------------------------------------------


def luhn(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def iban_valid(candidate: str) -> bool:
    """ISO 13616: move the first four characters to the end, letters to numbers, mod 97."""
    s = candidate.replace(" ", "").upper()
    if not 15 <= len(s) <= 34 or not s[:2].isalpha() or not s[2:4].isdigit():
        return False
    numeric = "".join(str(int(c, 36)) for c in s[4:] + s[:4])
    return int(numeric) % 97 == 1


_DNI_LETTERS = "TRWAGMYFPDXBNJZSQVHLCKE"


def _class(ch: str) -> int:
    if ch.isdigit():
        return 0
    if ch.isupper():
        return 1
    if ch.islower():
        return 2
    return 3


def random_looking(token: str, min_len: int) -> bool:
    """High entropy: long, letters and digits (or both cases) thoroughly mixed, many
    distinct characters. Random keys switch character class at about half their
    positions; words, camelCase names and version strings rarely do."""
    n = len(token)
    if n < min_len:
        return False
    classes = {_class(c) for c in token}
    if not ({0, 1} <= classes or {0, 2} <= classes or {1, 2} <= classes):
        return False
    alnum = [c for c in token if c.isalnum()]
    switches = sum(1 for a, b in pairwise(alnum) if _class(a) != _class(b))
    if len(alnum) < min_len * 2 // 3 or switches < 0.3 * (len(alnum) - 1):
        return False
    distinct = len(set(token))
    if distinct < min(12, n // 2):
        return False
    # Shannon entropy of the characters themselves, bits per character.
    counts: dict[str, int] = {}
    for c in token:
        counts[c] = counts.get(c, 0) + 1
    entropy = -sum(k / n * math.log2(k / n) for k in counts.values())
    return entropy >= min(3.0, math.log2(n) - 0.5)


_ENTROPY_TOKEN = _patterns.compile(r"(?<![A-Za-z0-9+/_~-])[A-Za-z0-9+/_~-]{12,}={0,2}")
HIGH_ENTROPY_MIN = 12  # a sentence-level belief with such a token is refused
CONTEXT_FREE_MIN = 24  # redacted anywhere
NEAR_CONTEXT_MIN = 12  # redacted near a word that names a secret


def has_high_entropy_token(text: str) -> bool:
    """Whether ``text`` carries a token that looks like a key (see :func:`random_looking`)."""
    return any(
        random_looking(m.group(0).rstrip("="), HIGH_ENTROPY_MIN)
        for m in _ENTROPY_TOKEN.finditer(text)
    )


def looks_secret(value: str) -> bool:
    """A value someone chose to be hard to guess: digits with letters, a symbol among
    them, or case mixed inside the word — not a plain word or a plain number."""
    if len(value) < 4:
        return False
    letters = any(c.isalpha() for c in value)
    digits = any(c.isdigit() for c in value)
    symbols = any(not c.isalnum() and c not in "'’-.,/" for c in value)  # not "don't", "and/or"
    inner_case = any(c.isupper() for c in value[1:]) and any(c.islower() for c in value)
    return (letters and digits) or (letters and symbols) or inner_case


# Words that describe a password rather than being one ("my password is too short").
_NOT_A_VALUE = _words(
    "the a an my your his her our their its this that these those same not no none "
    "too very so really also in on at for of with what which who where when how "
    "something nothing anything everything easy hard long short weak strong secure "
    "simple complicated different new old wrong right correct incorrect required "
    "needed necessary expired stolen changed reset saved stored written hidden "
    "encrypted case still now just and or but if because protected forgotten lost "
    "blank empty unknown it it's is was be been being ready there here mine yours "
    "theirs ours then than as all any some every each both only exactly kind sort "
    "written somewhere safe changing working fine ok okay yes yeah set going gonna "
    "about like literally actually probably maybe always never one two three four "
    "five six seven eight"
)


def plausible_value(value: str) -> bool:
    core = value.strip("\"'`“”‘’()[]{}<>")
    if len(core) < 3 or core.casefold() in _NOT_A_VALUE or core.startswith("[redacted"):
        return False
    # "my password is changing", "...is hardly secure": a word, not a value.
    return not (
        core.isalpha() and core.islower() and len(core) > 5 and core.endswith(("ing", "ly"))
    )


# -- shape rules (no context needed) ---------------------------------------------------------


_KEY_BEGIN = _patterns.compile(r"-----BEGIN (?:[A-Z0-9]{1,20} ){0,4}PRIVATE KEY(?: BLOCK)?-----")
_KEY_END = _patterns.compile(r"-----END (?:[A-Z0-9]{1,20} ){0,4}PRIVATE KEY(?: BLOCK)?-----")


def _private_keys(text: str) -> Iterator[Span]:
    pos = 0
    while (m := _KEY_BEGIN.search(text, pos)) is not None:
        e = _KEY_END.search(text, m.end())
        stop = e.end() if e else len(text)
        yield m.start(), stop, "private_key"
        pos = stop


def _regex_rule(
    kind: str,
    pattern: str,
    *,
    flags: int = 0,
    groups: tuple[str, ...] = (),
    check: Callable[[re.Match[str]], bool] | None = None,
) -> Callable[[str], Iterator[Span]]:
    compiled = _patterns.compile(pattern, flags)

    def rule(text: str) -> Iterator[Span]:
        for m in compiled.finditer(text):
            if check is not None and not check(m):
                continue
            g = next((name for name in groups if m.group(name) is not None), 0)
            yield m.start(g), m.end(g), kind

    return rule


def _digits_of(s: str) -> str:
    return "".join(c for c in s if c.isdigit())


def _card_check(m: re.Match[str]) -> bool:
    digits = _digits_of(m.group(0))
    return 13 <= len(digits) <= 19 and luhn(digits)


def _iban_check(m: re.Match[str]) -> bool:
    return iban_valid(m.group(0))


def _ssn_check(m: re.Match[str]) -> bool:
    area, group, serial = m.group("a"), m.group("g"), m.group("n")
    return area not in ("000", "666") and area[0] != "9" and group != "00" and serial != "0000"


def _dni_check(m: re.Match[str]) -> bool:
    return _DNI_LETTERS[int(m.group("d")) % 23] == m.group("l").upper()


def _base64_credential(m: re.Match[str]) -> bool:
    raw = m.group(0)
    if len(raw) % 4 or len(raw) < 12:
        return False
    try:
        decoded = base64.b64decode(raw, validate=True).decode("ascii")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return False
    if not decoded.isprintable() or len(decoded) < 6:
        return False
    user, sep, secret = decoded.partition(":")
    if sep and user and secret and " " not in user and " " not in secret:
        return True
    return bool(_SECRET_WORD.search(decoded))


_SECRET_WORD = _patterns.compile(
    r"(?i)(?:passw(?:or)?d|passphrase|secret|token|api[_-]?key|credential|private[_-]?key)"
)


def _command_line_p(m: re.Match[str], text: str) -> bool:
    line_start = text.rfind("\n", 0, m.start()) + 1
    before = text[max(line_start, m.start() - 200) : m.start()]
    return bool(re.search(r"(?i)\b(?:mysql\w*|mariadb|sshpass|login|psql|mongo\w*)\b|-u\s", before))


def _command_line_p_rule(text: str) -> Iterator[Span]:
    for m in _DASH_P.finditer(text):
        if _command_line_p(m, text):
            yield m.start("s"), m.end("s"), "command_line"


_DASH_P = _patterns.compile(r"(?<![\w-])-p\s{0,3}(?P<s>[^\s\"'-][^\s\"']{0,499})")


def _url_secrets(text: str) -> Iterator[Span]:
    """Webhook URLs (the path carries the secret) and secret-named query parameters."""
    for m in _URL.finditer(text):
        url = m.group(0)
        host_path = url.split("://", 1)[-1]
        host, slash, path = host_path.partition("/")
        if not slash:
            continue
        path_start = m.start() + (len(url) - len(host_path)) + len(host) + 1
        lowered = host_path.casefold()
        hooky = "hook" in lowered or "/trigger/" in lowered or "/bot" in lowered
        if hooky and any(len(seg) >= 8 for seg in re.split(r"[/?&=]", path)):
            yield path_start, m.end(), "webhook"
            continue
        for q in _SECRET_PARAM.finditer(url):
            yield m.start() + q.start("s"), m.start() + q.end("s"), "url_credentials"


_URL = _patterns.compile(
    r"(?i)(?<![\w.+-])(?:[a-z][a-z0-9+.-]{0,15}://|(?=(?:hooks|discord(?:app)?|outlook|"
    r"maker)\.))[^\s\"'<>()\[\]]{1,2048}"
)
_SECRET_PARAM = _patterns.compile(
    r"(?i)[?&;](?:[\w.-]{0,40}(?:token|key|secret|sig|signature|password|passwd|pwd|auth|"
    r"code|credential)s?)=(?P<s>[^&#\s]{4,})"
)

_SEED_RUN = _patterns.compile(r"(?<![\w-])(?:[a-z]{3,10}[ ,]{1,3}){11,23}[a-z]{3,10}(?![\w-])")


def _seed_run(m: re.Match[str]) -> bool:
    words = re.findall(r"[a-z]+", m.group(0))
    return not any(w in _FUNCTION_WORDS for w in words)


_FUNCTION_WORDS = _words(
    "the a an in at on my is it to of for and or but with by from this that are was "
    "be i you he she we they me him her us them his its our your their not no so as "
    "if then than just very too also all any some what which who when where how do "
    "did done has have had will would can could should may might must shall about "
    "into over out up down off again here there more most such only own same other "
    "each few both"
)


def _bearer_value(m: re.Match[str]) -> bool:
    """ "Bearer abc123…", "Basic dXNlcjpw…", "token 4f9…": not "basic techniques"."""
    if m.group("t") is not None:
        return any(c.isdigit() for c in m.group("t"))
    if m.group(0)[:1] in "bB" and m.group(0)[:6].casefold() == "bearer":
        return True
    value = m.group("s").rstrip(".")
    return any(c.isdigit() or c in "+/=" for c in value) or looks_secret(value)


_SHAPES: tuple[Callable[[str], Iterator[Span]], ...] = (
    _private_keys,
    _regex_rule("jwt", r"(?<![\w.-])eyJ[\w-]{5,4096}\.[\w-]{5,8192}(?:\.[\w-]{0,8192})?"),
    _regex_rule(
        "url_credentials",
        r"(?i)(?<![\w+.-])[a-z][a-z0-9+.-]{0,20}://[^\s:/@\"'<>]{1,200}:"
        r"(?P<s>[^\s@/\"'<>]{1,500})@",
        groups=("s",),
    ),
    _url_secrets,
    _regex_rule(
        "cloud_key",
        r"(?<![A-Z0-9])(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16}(?![0-9A-Z])"
        r"|(?<![\w-])AIza[0-9A-Za-z_-]{30,200}|(?<![\w.-])ya29\.[0-9A-Za-z_-]{20,4096}",
    ),
    _regex_rule(
        "bearer_token",
        r"(?i)(?<![\w-])(?:bearer|basic)\s{1,5}(?P<s>[A-Za-z0-9._~+/=-]{8,8192})"
        r"|(?<![\w-])token\s{1,5}(?P<t>[A-Za-z0-9._~+/=-]{12,8192})",
        groups=("s", "t"),
        check=_bearer_value,
    ),
)


# -- name=value: env files, config, connection strings, command-line flags -------------------

# Parts of a name that say it holds a secret; ``pass`` and ``key`` only as a whole part
# (``compass``, ``monkey``), the longer words anywhere (``PGPASSWORD``).
_STRONG_PART = _patterns.compile(
    r"(?i)passw(?:or)?d|passphrase|passcode|secret|token|apikey|api_key|credential|"
    r"private_?key|access_?key|signing_?key|cookie|session_?id|webhook|dsn"
)
_WEAK_PARTS = _words("pass pw pwd pin otp key auth creds cred sid sig signature conn connstr")


def _names_secret(name: str) -> bool:
    if _STRONG_PART.search(name):
        return True
    parts = re.split(r"[_.\-]+|(?<=[a-z0-9])(?=[A-Z])", name)
    return any(p.casefold() in _WEAK_PARTS for p in parts if p)


_NAME_VALUE = _patterns.compile(
    r"(?<![\w.-])(?P<name>[A-Za-z_][\w.-]{0,100})[\"']?\s{0,5}(?P<sep>=>|=|:)\s{0,5}"
    r"(?P<s>\"[^\"\n]{1,500}\"|'[^'\n]{1,500}'|[^\s,;\"']{1,1000})"
)
_FLAG = _patterns.compile(
    r"(?i)(?<![\w-])--?[\w-]{0,40}(?:password|passwd|pass|pwd|secret|token|api-?key|apikey|"
    r"auth|credentials?|passphrase|access-key|secret-key|private-key)(?:=|\s{1,3})"
    r"(?P<s>\"[^\"\n]{1,500}\"|'[^'\n]{1,500}'|[^\s\"'-][^\s\"']{0,499})"
)
_USER_PASS_FLAG = _patterns.compile(
    r"(?<![\w-])(?:-u|--user(?:name)?|--basic|-U)(?:=|\s{1,3})[\"']?[^\s:\"']{1,100}:"
    r"(?P<s>[^\s\"']{1,500})"
)


def _name_values(text: str) -> Iterator[Span]:
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


_VENDOR = _regex_rule(
    "api_token",
    r"(?<![\w-])(?:gh[pousr]_[A-Za-z0-9]{20,255}|github_pat_[A-Za-z0-9_]{20,255}"
    r"|xox[abposr]-[A-Za-z0-9-]{10,255}|(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{10,255}"
    r"|sk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,255}|npm_[A-Za-z0-9]{30,255}"
    r"|glpat-[A-Za-z0-9_-]{16,255}|hf_[A-Za-z0-9]{30,255}|SG\.[\w-]{16,255}\.[\w-]{16,255}"
    r"|\d{8,10}:[A-Za-z0-9_-]{35})(?![\w-])",
)

_CHECKSUMS: tuple[Callable[[str], Iterator[Span]], ...] = (
    _regex_rule(
        "iban",
        r"(?i)(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?"
        r"(?![A-Za-z0-9])",
        check=_iban_check,
    ),
    _regex_rule("card_number", r"(?<![\d-])(?:\d[ -]?){12,18}\d(?![\d-])", check=_card_check),
    _regex_rule(
        "national_id",
        r"(?<![\d-])(?P<a>\d{3})([- ])(?P<g>\d{2})\2(?P<n>\d{4})(?![\d-])",
        check=_ssn_check,
    ),
    _regex_rule(
        "national_id",
        r"(?<![A-Za-z0-9])[A-CEGHJ-PR-TW-Z]{2} ?\d{2} ?\d{2} ?\d{2} ?[A-D](?![A-Za-z0-9])"
        r"|(?<![A-Za-z0-9])\d{3}\.\d{3}\.\d{3}-\d{2}(?![\d])",  # UK NINO, Brazilian CPF
    ),
    _regex_rule(
        "national_id",
        r"(?<![A-Za-z0-9])(?P<d>\d{8})-?(?P<l>[A-Za-z])(?![A-Za-z0-9])",
        check=_dni_check,
    ),
    _regex_rule(
        "base64_credential",
        r"(?<![A-Za-z0-9+/=])[A-Za-z0-9+/]{12,8192}={0,2}(?![A-Za-z0-9+/=])",
        check=_base64_credential,
    ),
    _regex_rule("seed_phrase", _SEED_RUN.pattern, check=_seed_run),
)


def _entropy(text: str) -> Iterator[Span]:
    for m in _ENTROPY_TOKEN.finditer(text):
        if m.start() and text[m.start() - 1] in ".:@":
            continue  # a host name, a URL or an address: the URL rules read those
        if random_looking(m.group(0).rstrip("="), CONTEXT_FREE_MIN):
            yield m.start(), m.end(), "token"


# -- context: a word that names the secret, and the value said near it -------------------------


class _Token(NamedTuple):
    start: int
    end: int
    core: str  # without surrounding quotes and punctuation
    core_start: int
    ends_sentence: bool


_TOKEN = _patterns.compile(r"\S+")
_LEAD = "\"'`“”‘’([{<#*"
_TRAIL = "\"'`“”‘’)]}>.,;:!?*"
_ABBREVIATIONS = _words("no nr num acct tel dr mr mrs ms st e.g i.e etc vs")


class _Tokens:
    """The whitespace-separated tokens of a text: spans found in one pass, each token's
    core built only when a rule reads it."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts: list[int] = []
        self.ends: list[int] = []
        for m in _TOKEN.finditer(text):
            self.starts.append(m.start())
            self.ends.append(m.end())
        self._built: dict[int, _Token] = {}

    def __len__(self) -> int:
        return len(self.starts)

    def __getitem__(self, i: int) -> _Token:
        token = self._built.get(i)
        if token is None:
            start, end = self.starts[i], self.ends[i]
            raw = self.text[start:end]
            lead = len(raw) - len(raw.lstrip(_LEAD))
            core = raw[lead:].rstrip(_TRAIL)
            ends = raw[-1] in ".!?" and core.casefold() not in _ABBREVIATIONS
            token = self._built[i] = _Token(start, end, core, start + lead, ends)
        return token

    def after(self, pos: int) -> int:
        """The index of the first token starting at or after ``pos``."""
        return bisect_left(self.starts, pos)

    def containing(self, pos: int) -> int:
        """The index of the token that holds ``pos`` (or the next one)."""
        i = bisect_right(self.starts, pos) - 1
        return i if i >= 0 and self.ends[i] > pos else i + 1


_CONNECTORS = _words(
    "is was are were = : - — – -> => → ⇒ to as equals reads es est ist é è lautet it's "
    "its becomes became remains"
)
_DETERMINERS = _words("the my our your his her their this that a an")
_FUTURE = _words("will would should shall gonna going")
_PREPOSITIONS = _words("for to of on at in with from")


def _digit_group(core: str) -> bool:
    return (
        bool(core)
        and all(c.isdigit() or c in "-." for c in core)
        and any(c.isdigit() for c in core)
    )


def _value_span(tokens: _Tokens, i: int, numeric: bool, *, quoted: bool = False) -> tuple[int, int]:
    """The span of the value starting at token ``i``; grouped digits ("553 201",
    "4111 1111 1111 1111") continue over the following digit groups."""
    t = tokens[i]
    start, end = t.core_start, t.core_start + len(t.core)
    opening = tokens.text[t.start]
    if quoted and opening in _QUOTES:
        # A quoted value runs to its closing quote: "my passphrase is 'purple monkey'".
        close = tokens.text.find(_QUOTES[opening], t.start + 1, t.start + 200)
        if close > t.start + 1:
            return t.start + 1, close
    if numeric and _digit_group(t.core):
        j = i + 1
        while (
            j < len(tokens)
            and j <= i + 6
            and not tokens[j - 1].ends_sentence
            and _digit_group(tokens[j].core)
            and len(_digits_of(tokens[j].core)) <= 6
            and tokens[j].start - tokens[j - 1].end == 1
        ):
            end = tokens[j].core_start + len(tokens[j].core)
            j += 1
    return start, end


_QUOTES = {"'": "'", '"': '"', "“": "”", "‘": "’", "`": "`"}

Predicate = Callable[[str], bool]


def _min_digits(n: int, *, alnum: bool = False, max_len: int = 34) -> Predicate:
    def test(core: str) -> bool:
        if not core or len(core) > max_len:
            return False
        shaped = all((c.isalnum() if alnum else c.isdigit()) or c in "-." for c in core)
        return shaped and len(_digits_of(core)) >= n

    return test


@dataclass(frozen=True)
class _Context:
    kind: str
    pattern: re.Pattern[str]
    value: Predicate  # what the value looks like
    numeric: bool  # grouped digits continue the value
    strong: bool  # any plausible word after a connector is the value (a password word)
    window: int = 6
    self_evident: bool = False  # the value's shape alone is evidence (a random key)
    # What the neighbourhood must hold for a value to be there at all: a cheap scan
    # that spares the token-by-token reading around most context words.
    needs: re.Pattern[str] | None = None


_CTX_HEAD, _CTX_TAIL = r"(?i)(?<![\w-])(?=\w)(?:", r")(?![\w-])"


def _ctx(words: str) -> re.Pattern[str]:
    return _patterns.compile(_CTX_HEAD + words + _CTX_TAIL)


def _any_of(patterns: Iterable[re.Pattern[str]]) -> re.Pattern[str]:
    """One scan for where any of the context patterns starts."""
    words = (p.pattern[len(_CTX_HEAD) : -len(_CTX_TAIL)] for p in patterns)
    return _ctx("|".join(f"(?:{w})" for w in words))


_CODE_EXCLUDED = _patterns.compile(
    r"(?i)(?:zip|postal|post|area|dress|country|source|error|status|exit|return|promo|"
    r"discount|coupon|qr|bar|morse|tax|color|colour|genetic|moral|honou?r|penal|civil|"
    r"html|css|python|java|js|cheat)[\s-]*$"
)


_THREE_DIGITS = _patterns.compile(r"\d[-. ]?\d[-. ]?\d")
_KEYISH = _patterns.compile(r"[A-Za-z0-9+/_~-]{12}")
_PW_WORDS = (
    r"pass(?:word|wd|code|key|phrase)s?|pass\s+word|pwd|pw|p/w|pword|"
    r"secret\s+(?:word|phrase|answer)|safe\s?word|code\s?word|security\s+answer|"
    r"answer\s+to\s+(?:my|the)\s+security\s+question|"
    r"contrase[nñ]a|clave|mot\s+de\s+passe|mdp|passwort|kennwort|senha|parola\s+d'ordine|"
    r"пароль|密码|パスワード|暗証番号"
)
_CONTEXTS: tuple[_Context, ...] = (
    _Context(
        "password",
        _ctx(
            r"(?:wi-?fi|router|network|wpa2?|hotspot|laptop|computer|phone|email|e-mail)"
            r"\s+(?:code|key)|code\s+(?:for|to)\s+(?:the\s+|my\s+|our\s+)?(?:wi-?fi|router|"
            r"network|internet|laptop|computer)|to\s+(?:get\s+in(?:to\s+(?:my|the|our)\s+\w+)?|log\s?in|sign\s?in|"
            r"unlock\s+(?:it|the\s+\w+|my\s+\w+))|" + _PW_WORDS
        ),
        plausible_value,
        numeric=True,
        strong=True,
    ),
    _Context(
        "pin",
        _ctx(
            r"(?:door|gate|alarm|lock|lockbox|locker|safe|garage|entry|access|keypad|building|"
            r"house|front\s+door|unlock|padlock|combination)\s+(?:code|combo|combination)|"
            r"code\s+(?:for|to)\s+(?:the\s+|my\s+|our\s+)?(?:[a-z]{2,12}\s+)?(?:door|gate|alarm|lock|lockbox|"
            r"locker|safe|garage|keypad|building|house|front\s+door)|cvv2?|cvc|security\s+code|"
            r"code\s+to\s+(?:get\s+in(?:to)?|open|unlock|enter)(?:\s+(?:the|my|our)\s+\w+)?|"
            r"pins?(?:\s+(?:code|number))?"
        ),
        plausible_value,
        numeric=True,
        strong=True,
    ),
    _Context(
        "one_time_code",
        _ctx(
            r"(?:one[- ]time|verification|confirmation|login|log-?in|sign-?in|auth|"
            r"authentication|2fa|mfa|two[- ]factor|sms|text|otp|backup|recovery|reset|"
            r"\d-digit|six-digit|access|security)\s+(?:code|pin|number|passcode)s?|otp|totp|"
            r"2fa|mfa|code|codes"
        ),
        _min_digits(4, alnum=True, max_len=12),  # "G-482913" too
        numeric=True,
        strong=False,
        needs=_THREE_DIGITS,
    ),
    _Context(
        "routing_number",
        _ctx(r"routing(?:\s+(?:number|no|num|#))?|aba|transit\s+number|sort\s+code|bsb"),
        _min_digits(6, max_len=12),
        numeric=True,
        strong=False,
        needs=_THREE_DIGITS,
    ),
    _Context(
        "bank_account",
        _ctx(
            r"(?:bank|checking|chequing|savings|current|deposit)\s+account|account|acct|a/c|"
            r"iban|bank\s+details|konto|cuenta|compte|conta|conto"
        ),
        _min_digits(6, alnum=True),
        numeric=True,
        strong=False,
        needs=_THREE_DIGITS,
    ),
    _Context(
        "card_number",
        _ctx(
            r"(?:(?:credit|debit|bank|company|corporate)\s{1,3})?card(?:\s+(?:number|no|#))?|visa|"
            r"mastercard|amex|cc"
        ),
        _min_digits(12, max_len=23),
        numeric=True,
        strong=False,
        needs=_THREE_DIGITS,
    ),
    _Context(
        "national_id",
        _ctx(
            r"ssn|social\s+security(?:\s+(?:number|no|#))?|social|national\s+(?:id|identity|"
            r"insurance)(?:\s+(?:number|no|card))?|id\s+number|identity\s+number|tax\s+(?:id|"
            r"number|file\s+number|code)|tin|itin|ein|sin|nino|ni\s+number|personnummer|dni|"
            r"nie|nif|cpf|curp|aadhaar|pesel|bsn|codice\s+fiscale|steuer-?id|"
            r"driver'?s\s+licen[cs]e(?:\s+(?:number|no))?|licen[cs]e\s+(?:number|no)|"
            r"medicare(?:\s+(?:number|no))?|nhs\s+number|insurance\s+number|"
            r"member(?:ship)?\s+(?:id|number)|patient\s+id"
        ),
        _min_digits(5, alnum=True, max_len=20),
        numeric=True,
        strong=False,
        needs=_THREE_DIGITS,
    ),
    _Context(
        "passport",
        _ctx(
            r"passport(?:\s+(?:number|no|num|nr|#|id))?|pasaporte|passeport|reisepass|"
            r"passaporto"
        ),
        _min_digits(5, alnum=True, max_len=12),
        numeric=False,
        strong=False,
        window=8,
        needs=_THREE_DIGITS,
    ),
    # Weaker words: the value must look chosen ("the key is 4f8a9c2e1b", "log in as admin
    # with Qw3rty!9"), and a lock combination is digits ("the combination is 12-34-56").
    _Context(
        "password",
        _ctx(r"key|pass|login|log\s?in|logged\s+in|sign\s?in|signed\s+in|credentials?|creds"),
        looks_secret,
        numeric=False,
        strong=False,
        needs=_patterns.compile(r"[0-9!@#$%^&*?]"),
    ),
    _Context(
        "pin",
        _ctx(r"combo|combination|lock\s+code"),
        _min_digits(3, max_len=12),
        numeric=True,
        strong=False,
        needs=_THREE_DIGITS,
    ),
    _Context(
        "token",
        _ctx(
            r"(?:api|access|secret|signing|private|license|licence|product|activation|"
            r"auth|session|refresh|id|bearer|personal|client|app|master|encryption|"
            r"deploy|webhook|aws|iam|s3)\s*(?:key|token|secret)s?|key|token|secret|"
            r"credentials?|creds|cookie|api"
        ),
        # name=value is the credential rule's (it keeps the name readable)
        lambda core: "=" not in core.rstrip("=") and random_looking(core, NEAR_CONTEXT_MIN),
        numeric=False,
        strong=False,
        window=8,
        self_evident=True,
        needs=_KEYISH,
    ),
)

_LOGIN = _ctx(r"login|log-?in|sign-?in|credentials?|creds|user(?:name)?|account")
_USE_VERBS = _words(
    "use using used enter entered type typed try tried put paste pasted input give "
    "gave pick picked chose choose set"
)
_BACKWARD_CONNECTORS = _words("is was = : are will be")


_FILLERS = _words("now still just actually currently simply literally set changed also")


def _candidate(tokens: _Tokens, j: int, ctx: _Context) -> tuple[int, int] | None:
    """The value's span if token ``j`` starts one of the context's shape."""
    start, end = _value_span(tokens, j, ctx.numeric)
    if start >= end:
        return None
    return (start, end) if ctx.value(_squeeze(tokens, j, end)) else None


def _squeeze(tokens: _Tokens, j: int, end: int) -> str:
    """Grouped digits read as one value ("553 201" -> "553201")."""
    parts = [tokens[j].core]
    k = j + 1
    while k < len(tokens) and tokens[k].core_start < end:
        parts.append(tokens[k].core)
        k += 1
    return "".join(parts)


def _direct(core: str) -> bool:
    """A value right after a password word, with no connector: "PIN 4821", "with
    password Xk9!q"."""
    return looks_secret(core) or (_digit_group(core) and len(_digits_of(core)) >= 3)


def _apostrophe(core: str) -> str:
    return core.casefold().replace("’", "'")


def _forward(
    text: str, tokens: _Tokens, i: int, at: int, ctx: _Context, own: int = 0
) -> int | None:
    """The index of the value said after the context word ending at ``at`` (whose own
    first token is ``own``)."""
    tail = text[at : tokens[i].start] if i < len(tokens) else text[at:]
    seen_connector = bool(re.search(r"[:=#]|^['’]s\b|^\s*[-—–]", tail))
    # "passport no. is X": the stop of an abbreviation the context ends with is no end.
    ends = "?" in tail or "!" in tail or ("." in tail and (i == 0 or tokens[i - 1].ends_sentence))
    # "My email password? It's X." - the answer after its own question; "the gym locker
    # pin? 3131" - the answer alone.
    if ends and i < len(tokens) and "?" in tail and ctx.strong and _direct(tokens[i].core):
        return i
    if ends and (i >= len(tokens) or _apostrophe(tokens[i].core) not in ("it's", "its", "it")):
        return None
    qualified = False  # "password for the netflix account is X"
    limit = min(len(tokens), i + ctx.window)
    j = i
    while j < limit:
        t = tokens[j]
        low = _apostrophe(t.core)
        if low in _FUTURE and j + 1 < limit and tokens[j + 1].core.casefold() == "be":
            seen_connector = True
            j += 2
            continue
        if low == "to" and j + 1 < limit and tokens[j + 1].core.casefold() in _DETERMINERS:
            qualified = True  # "the password to the shared account is X"
        elif low in _CONNECTORS or low == "":
            seen_connector = True
        elif seen_connector and low in _FILLERS:
            pass
        elif j == i and ctx.strong and low in _FILLERS and j + 1 < limit:
            # "is my wifi password still X?": a filler, then the value
            if _direct(tokens[j + 1].core):
                return j + 1
        elif seen_connector and ctx.strong and low in _DETERMINERS:
            # "the passcode is my birthday, 0412": what it is, then the value itself
            k = j + 1
            while k < min(limit, j + 4) and tokens.text[tokens[k].end - 1] != ",":
                k += 1
            comma = k + 1 < len(tokens) and tokens.text[tokens[k].end - 1] == ","
            return k + 1 if comma and _direct(tokens[k + 1].core) else None
        elif ctx.strong:
            if seen_connector:
                end = _value_span(tokens, j, ctx.numeric, quoted=True)[1]
                return j if plausible_value(tokens.text[t.core_start : end]) else None
            if j == i and _direct(t.core):
                return j
            # "ssh root@host with password toor": a plain word closing "with password".
            introduced = own > 0 and _apostrophe(tokens[own - 1].core) in ("with", "using")
            last = t.ends_sentence or j + 1 == len(tokens)
            if j == i and introduced and last and plausible_value(t.core):
                return j
            if j == i and low in _PREPOSITIONS:
                qualified = True
            elif not qualified:
                return None  # "password manager is 1Password": not the password
        elif _candidate(tokens, j, ctx) is not None:
            return j
        if t.ends_sentence:
            # "The PIN for my debit card? 0917.": the answer right after its question.
            asked = tokens.text[t.end - 1] == "?" and j + 1 < len(tokens)
            return j + 1 if asked and _direct(tokens[j + 1].core) else None
        if tokens.text[t.end - 1] in ":=":
            seen_connector = True  # "the password for the nas: X"
        j += 1
    return None


def _backward(tokens: _Tokens, i: int, ctx: _Context) -> int | None:
    """A value said before its context word: "X is the password", "use X as the
    password", "482913 is your login code", "Enter X when it asks for the code"."""
    lo = max(0, i - 9)
    for j in range(i - 1, lo - 1, -1):
        if tokens[j].ends_sentence:
            lo = j + 1
            break
    for j in range(lo, i):
        t = tokens[j]
        ok = _direct(t.core) if ctx.strong else _candidate(tokens, j, ctx) is not None
        if not ok:
            continue
        if ctx.self_evident:
            return j
        nxt = tokens[j + 1].core.casefold() if j + 1 < len(tokens) else ""
        prev = _apostrophe(tokens[j - 1].core) if j > lo else ""
        if (nxt in _BACKWARD_CONNECTORS and j + 1 >= i - 5) or prev in _USE_VERBS:
            return j
        # "it's 8841, the code for the front door": the value, then the word naming it.
        appositive = tokens.text[t.end - 1] in ",:—-" or nxt in ("—", "-")
        between = {tokens[k].core.casefold() for k in range(j + 1, i)} - {"—", "-", ""}
        if (appositive or prev in ("it's", "its", "is", "was")) and between <= _DETERMINERS:
            return j
    return None


_AHEAD_CHARS = 200  # how far a value may follow its context word, at most
_BEHIND_CHARS = 120


def _around(tokens: _Tokens, m: re.Match[str]) -> tuple[int, int]:
    """(the index of the first token after a context match, the index of its own first
    token)."""
    own = tokens.containing(m.start())
    last = tokens.containing(max(m.start(), m.end() - 1))
    return max(own, last + 1), own


def _login_pairs(text: str, tokens: _Tokens) -> Iterator[Span]:
    """ "login: bob / X", "credentials are bob/X": the part after the slash."""
    for m in _LOGIN.finditer(text):
        i, _ = _around(tokens, m)
        for j in range(i, min(len(tokens), i + 5)):
            core = tokens[j].core
            if core == "/" and j + 1 < len(tokens) and plausible_value(tokens[j + 1].core):
                t = tokens[j + 1]
                yield t.core_start, t.core_start + len(t.core), "password"
                break
            if "/" in core and "://" not in core:
                user, _, secret = core.partition("/")
                if user and secret and plausible_value(secret):
                    at = tokens[j].core_start + len(user) + 1
                    yield at, at + len(secret), "password"
                    break
            if tokens[j].ends_sentence:
                break


def _seed_phrases(text: str, tokens: _Tokens) -> Iterator[Span]:
    for m in _SEED_CONTEXT.finditer(text):
        i, _ = _around(tokens, m)
        j = i
        while j < min(len(tokens), i + 5) and (
            not _seed_word(tokens[j]) or tokens[j].core.casefold() in _SEED_LEAD
        ):
            if tokens[j].ends_sentence and j > i:
                break
            j += 1
        k = j
        while k < len(tokens) and k < j + 30 and _seed_word(tokens[k]):
            k += 1
            if tokens[k - 1].ends_sentence:
                break
        words = [tokens[n].core.casefold() for n in range(j, k)]
        functional = sum(w in _FUNCTION_WORDS for w in words)
        if len(words) >= 12 or (len(words) >= 6 and functional <= 1):
            last = tokens[k - 1]
            yield tokens[j].core_start, last.core_start + len(last.core), "seed_phrase"


def _seed_word(t: _Token) -> bool:
    core = t.core.casefold()
    return core.isalpha() and core == t.core.lower() and 2 <= len(core) <= 10


_SEED_LEAD = _words("is are was were it's its they them these those my the our be")
_SEED_CONTEXT = _ctx(
    r"seed(?:\s+(?:phrase|words))?|recovery\s+(?:phrase|words|seed|key)|mnemonic(?:\s+phrase)?|"
    r"backup\s+(?:phrase|words)|secret\s+(?:phrase|words|recovery\s+phrase)|"
    r"(?:twelve|12|24|twenty-four|18)\s+words|wallet\s+words|passphrase"
)


_ANY_CONTEXT = _any_of(ctx.pattern for ctx in _CONTEXTS)


def _context_matches(text: str) -> Iterator[tuple[_Context, re.Match[str]]]:
    """Every (context, match) in the text: one scan finds where some context word starts,
    then each context is tried there."""
    pos = 0
    while (hit := _ANY_CONTEXT.search(text, pos)) is not None:
        for ctx in _CONTEXTS:
            m = ctx.pattern.match(text, hit.start())
            if m is not None:
                yield ctx, m
        pos = hit.start() + 1


def _contextual(text: str) -> Iterator[Span]:
    tokens = _Tokens(text)
    for ctx, m in _context_matches(text):
        bare_code = ctx.kind == "one_time_code" and m.group(0).casefold() in ("code", "codes")
        if bare_code and _CODE_EXCLUDED.search(text, max(0, m.start() - 20), m.start()):
            continue  # a zip code, a dress code, an error code
        if ctx.needs is not None and not ctx.needs.search(
            text, max(0, m.start() - _BEHIND_CHARS), m.end() + _AHEAD_CHARS
        ):
            continue
        after, own = _around(tokens, m)
        found = _forward(text, tokens, after, m.end(), ctx, own)
        if found is None:
            found = _backward(tokens, own, ctx)
        if found is not None:
            start, end = _value_span(tokens, found, ctx.numeric, quoted=ctx.strong)
            if start < end:
                yield start, end, ctx.kind
    yield from _login_pairs(text, tokens)
    yield from _seed_phrases(text, tokens)


# -- the screen --------------------------------------------------------------------------------

RULES: tuple[Callable[[str], Iterator[Span]], ...] = (
    *_SHAPES,
    *_CHECKSUMS,
    _contextual,
    _name_values,
    _VENDOR,
    _entropy,
)


def redact(text: str) -> tuple[str, tuple[str, ...]]:
    """The text with every secret replaced by ``[redacted:<kind>]``, and the kinds."""
    # The rule listed first names a merged span; within a rule, the first it reports.
    spans: list[tuple[int, int, int, str]] = []  # start, end, priority, kind
    for start, end, kind in (span for rule in RULES for span in rule(text)):
        if start < end:
            spans.append((start, end, len(spans), kind))
    if not spans:
        return text, ()
    spans.sort()
    merged: list[tuple[int, int, int, str]] = []
    for start, end, priority, kind in spans:
        if merged and start < merged[-1][1]:
            s0, e0, p0, k0 = merged[-1]
            merged[-1] = (s0, max(e0, end), min(p0, priority), k0 if p0 <= priority else kind)
        else:
            merged.append((start, end, priority, kind))
    out: list[str] = []
    kinds: list[str] = []
    pos = 0
    for start, end, _, kind in merged:
        out.append(text[pos:start])
        out.append(f"[redacted:{kind}]")
        kinds.append(kind)
        pos = end
    out.append(text[pos:])
    return "".join(out), tuple(kinds)


_patterns.save()
