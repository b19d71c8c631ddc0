"""Shape rules: secrets recognised by their form alone, with no word naming them —
private keys, JWTs, URLs with credentials, webhooks, cloud and vendor tokens, bearer
values, checksummed numbers (IBAN, cards, national ids), base64 credentials, seed
phrases and high-entropy tokens."""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable, Iterator

from memory_es.formation.hazards.secrets.cache import Span, patterns
from memory_es.formation.hazards.secrets.values import (
    CONTEXT_FREE_MIN,
    DNI_LETTERS,
    ENTROPY_TOKEN,
    digits_of,
    iban_valid,
    looks_secret,
    luhn,
    random_looking,
    words,
)

_KEY_BEGIN = patterns.compile(r"-----BEGIN (?:[A-Z0-9]{1,20} ){0,4}PRIVATE KEY(?: BLOCK)?-----")
_KEY_END = patterns.compile(r"-----END (?:[A-Z0-9]{1,20} ){0,4}PRIVATE KEY(?: BLOCK)?-----")


def _private_keys(text: str) -> Iterator[Span]:
    pos = 0
    while (m := _KEY_BEGIN.search(text, pos)) is not None:
        e = _KEY_END.search(text, m.end())
        stop = e.end() if e else len(text)
        yield m.start(), stop, "private_key"
        pos = stop


def regex_rule(
    kind: str,
    pattern: str,
    *,
    flags: int = 0,
    groups: tuple[str, ...] = (),
    check: Callable[[re.Match[str]], bool] | None = None,
) -> Callable[[str], Iterator[Span]]:
    compiled = patterns.compile(pattern, flags)

    def rule(text: str) -> Iterator[Span]:
        for m in compiled.finditer(text):
            if check is not None and not check(m):
                continue
            g = next((name for name in groups if m.group(name) is not None), 0)
            yield m.start(g), m.end(g), kind

    return rule


def _card_check(m: re.Match[str]) -> bool:
    digits = digits_of(m.group(0))
    if not (13 <= len(digits) <= 19 and luhn(digits)):
        return False
    # A card is written whole or in groups of three digits or more ("4111 1111 1111
    # 1111"): a row of small numbers is a table's ("5 10 15 20 25 ..."); thirteen digits
    # after 978 or 979 are a book's number (an ISBN).
    groups = re.split(r"[ -]", m.group(0))
    if any(len(g) < 3 for g in groups[:-1]):
        return False
    return not (len(digits) == 13 and digits.startswith(("978", "979")))


def _iban_check(m: re.Match[str]) -> bool:
    return iban_valid(m.group(0))


def _ssn_check(m: re.Match[str]) -> bool:
    area, group, serial = m.group("a"), m.group("g"), m.group("n")
    return area not in ("000", "666") and area[0] != "9" and group != "00" and serial != "0000"


def _dni_check(m: re.Match[str]) -> bool:
    return DNI_LETTERS[int(m.group("d")) % 23] == m.group("l").upper()


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


_SECRET_WORD = patterns.compile(
    r"(?i)(?:passw(?:or)?d|passphrase|secret|token|api[_-]?key|credential|private[_-]?key)"
)


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


_URL = patterns.compile(
    r"(?i)(?<![\w.+-])(?:[a-z][a-z0-9+.-]{0,15}://|(?=(?:hooks|discord(?:app)?|outlook|"
    r"maker)\.))[^\s\"'<>()\[\]]{1,2048}"
)
_SECRET_PARAM = patterns.compile(
    r"(?i)[?&;](?:[\w.-]{0,40}(?:token|key|secret|sig|signature|password|passwd|pwd|auth|"
    r"code|credential)s?)=(?P<s>[^&#\s]{4,})"
)

# Twelve to twenty-four words of a wallet's list (BIP-39: three to eight letters each),
# spaced only: a list of things has commas, a title or a prompt longer words.
_SEED_RUN = patterns.compile(r"(?<![\w-])(?:[a-z]{3,8} {1,3}){11,23}[a-z]{3,8}(?![\w-])")


def _seed_run(m: re.Match[str]) -> bool:
    words = m.group(0).split()
    return not any(w in FUNCTION_WORDS for w in words) and distinct_words(words)


def distinct_words(words: list[str]) -> bool:
    """Words drawn at random from a long list: at most one of them repeated (a table's
    header repeats "per game", prose its own words)."""
    return len(set(words)) >= len(words) - 1


FUNCTION_WORDS = words(
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


SHAPES: tuple[Callable[[str], Iterator[Span]], ...] = (
    _private_keys,
    regex_rule("jwt", r"(?<![\w.-])eyJ[\w-]{5,4096}\.[\w-]{5,8192}(?:\.[\w-]{0,8192})?"),
    regex_rule(
        "url_credentials",
        r"(?i)(?<![\w+.-])[a-z][a-z0-9+.-]{0,20}://[^\s:/@\"'<>]{1,200}:"
        r"(?P<s>[^\s@/\"'<>]{1,500})@",
        groups=("s",),
    ),
    _url_secrets,
    regex_rule(
        "cloud_key",
        r"(?<![A-Z0-9])(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16}(?![0-9A-Z])"
        r"|(?<![\w-])AIza[0-9A-Za-z_-]{30,200}|(?<![\w.-])ya29\.[0-9A-Za-z_-]{20,4096}",
    ),
    regex_rule(
        "bearer_token",
        r"(?i)(?<![\w-])(?:bearer|basic)\s{1,5}(?P<s>[A-Za-z0-9._~+/=-]{8,8192})"
        r"|(?<![\w-])token\s{1,5}(?P<t>[A-Za-z0-9._~+/=-]{12,8192})",
        groups=("s", "t"),
        check=_bearer_value,
    ),
)


VENDOR = regex_rule(
    "api_token",
    r"(?<![\w-])(?:gh[pousr]_[A-Za-z0-9]{20,255}|github_pat_[A-Za-z0-9_]{20,255}"
    r"|xox[abposr]-[A-Za-z0-9-]{10,255}|(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{10,255}"
    r"|sk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,255}|npm_[A-Za-z0-9]{30,255}"
    r"|glpat-[A-Za-z0-9_-]{16,255}|hf_[A-Za-z0-9]{30,255}|SG\.[\w-]{16,255}\.[\w-]{16,255}"
    r"|\d{8,10}:[A-Za-z0-9_-]{35})(?![\w-])",
)

CHECKSUMS: tuple[Callable[[str], Iterator[Span]], ...] = (
    regex_rule(
        "iban",
        r"(?i)(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?"
        r"(?![A-Za-z0-9])",
        check=_iban_check,
    ),
    regex_rule("card_number", r"(?<![\d-])(?:\d[ -]?){12,18}\d(?![\d-])", check=_card_check),
    regex_rule(
        "national_id",
        r"(?<![\d-])(?P<a>\d{3})([- ])(?P<g>\d{2})\2(?P<n>\d{4})(?![\d-])",
        check=_ssn_check,
    ),
    regex_rule(
        "national_id",
        r"(?<![A-Za-z0-9])[A-CEGHJ-PR-TW-Z]{2} ?\d{2} ?\d{2} ?\d{2} ?[A-D](?![A-Za-z0-9])"
        r"|(?<![A-Za-z0-9])\d{3}\.\d{3}\.\d{3}-\d{2}(?![\d])",  # UK NINO, Brazilian CPF
    ),
    regex_rule(
        "national_id",
        r"(?<![A-Za-z0-9])(?P<d>\d{8})-?(?P<l>[A-Za-z])(?![A-Za-z0-9])",
        check=_dni_check,
    ),
    regex_rule(
        "base64_credential",
        r"(?<![A-Za-z0-9+/=])[A-Za-z0-9+/]{12,8192}={0,2}(?![A-Za-z0-9+/=])",
        check=_base64_credential,
    ),
    regex_rule("seed_phrase", _SEED_RUN.pattern, check=_seed_run),
)


# Identifiers no one keeps secret: a UUID, and a digest or an object id in lower-case
# hex ("5fd74adf58c6fb4e966b24e5", a commit's SHA) said with no word naming a key.
_IDENTIFIER = patterns.compile(
    r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|[0-9a-f]+"
)


def in_url(text: str, at: int) -> bool:
    """Whether position ``at`` is inside a URL (its path or its query): the URL rules
    read a secret there by the parameter naming it or the path of a webhook."""
    start = max(0, at - 2048)
    space = max(text.rfind(c, start, at) for c in " \n\t")
    return "://" in text[max(space + 1, start) : at]


def entropy(text: str) -> Iterator[Span]:
    for m in ENTROPY_TOKEN.finditer(text):
        if m.start() and text[m.start() - 1] in ".:@":
            continue  # a host name, a URL or an address: the URL rules read those
        if _IDENTIFIER.fullmatch(m.group(0)) or in_url(text, m.start()):
            continue
        if random_looking(m.group(0).rstrip("="), CONTEXT_FREE_MIN):
            yield m.start(), m.end(), "token"
