"""The automatic-hazard check, run on a turn's text before its event is written.

Secrets are replaced by ``[redacted:<kind>]`` because an append-only log can never be
scrubbed later; a prompt injection — typed, or smuggled inside pasted content — marks
the turn untrusted so it never forms. Both are counted on the consolidation record.

Kinds: private_key, jwt, url_credentials, cloud_key, api_token, bearer_token,
credential (``key=value`` / ``key: value`` where the key names a secret), password,
pin, card_number, national_id, token (an opaque high-entropy ``name=value``).
docs/formation.md lists the catalogue.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_SECRET_NAME = (
    r"(?:api[_-]?key|apikey|secret|token|passwd|password|passphrase|pwd|access[_-]?key|"
    r"private[_-]?key|client[_-]?secret|auth|credential|creds?|session[_-]?id|cookie|"
    r"account[_-]?key|signing[_-]?key|encryption[_-]?key|master[_-]?key|pass)"
)

# (kind, pattern); the whole match is replaced (or the named group ``s`` when present,
# so the name of what was redacted stays readable). Order matters: most specific first.
_SECRET_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "private_key",
        re.compile(
            r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----.*?"
            r"(?:-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|$)",
            re.DOTALL,
        ),
    ),
    ("jwt", re.compile(r"\beyJ[\w-]{5,}\.[\w-]{5,}\.[\w-]{5,}")),
    (
        "url_credentials",
        re.compile(r"(?i)\b[a-z][a-z0-9+.-]*://[^\s:/@]+:(?P<s>[^\s@/]+)@"),
    ),
    (
        "cloud_key",
        re.compile(
            r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16}\b"  # AWS key ids
            r"|\bAIza[0-9A-Za-z_-]{30,}"  # Google API keys
            r"|\bya29\.[0-9A-Za-z_-]{20,}"  # Google OAuth access tokens
        ),
    ),
    (
        "bearer_token",
        re.compile(
            r"(?i)\b(?:bearer|basic)\s+(?P<s>[A-Za-z0-9._~+/=-]{8,})"
            r"|\btoken\s+(?P<t>(?=[A-Za-z0-9._~+/=-]*\d)[A-Za-z0-9._~+/=-]{12,})"
        ),
    ),
    (
        "credential",
        re.compile(
            rf"(?:\b[\w.-]*?(?<![a-z])(?i:{_SECRET_NAME})|[\w.-]*?[a-z](?-i:Password|Passwd|Secret"
            r"|Token|ApiKey|AccessKey|Key|Pass))(?![a-z])[\w.-]*[\"']?\s*(?:=|:|=>)\s*"
            r"(?P<s>\"[^\"\n]+\"|'[^'\n]+'|[^\s,;\"']+)"
        ),
    ),
    (
        "api_token",
        re.compile(
            r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}"
            r"|xox[abposr]-[A-Za-z0-9-]{10,}|(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{10,}"
            r"|sk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}|npm_[A-Za-z0-9]{30,}"
            r"|glpat-[A-Za-z0-9_-]{16,}|hf_[A-Za-z0-9]{30,}|SG\.[\w-]{16,}\.[\w-]{16,})"
        ),
    ),
    (
        "password",
        re.compile(
            r"(?i)\b(?:password|passphrase|passcode|passwd|pwd|pw)(?:'s|\s+is|\s+was"
            r"|\s+for\s+[\w.@-]+(?:\s+[\w.@-]+)?\s+is|\s+to\s+[\w.@-]+\s+is|\s*[:=])"
            r"\s*(?P<s>(?!is\b|was\b|for\b)\S+?)(?=[,;.!?]?(?:\s|$))"
        ),
    ),
    (
        "pin",
        re.compile(
            r"(?i)\b(?:pin|pin code|pin number|cvv|cvc|security code"
            # A code that opens something: a door, a gate, an alarm, a safe, a lockbox.
            r"|(?:door|gate|alarm|lock|lockbox|safe|garage|entry|access|keypad|building)"
            r"\s+code)"
            r"(?:'s|\s+is|\s*:|\s+was)?\s*(?P<s>\d{3,8})\b"
        ),
    ),
    ("card_number", re.compile(r"\b(?:\d[ -]?){12,18}\d\b")),
    ("national_id", re.compile(r"\b\d{3}-\d{2}-\d{4}\b")),
    (
        "token",
        re.compile(
            r"\b[A-Za-z_][\w.-]*\s*=\s*(?P<s>(?=[A-Za-z0-9+/_-]*\d)(?=[A-Za-z0-9+/_-]*[A-Za-z])"
            r"[A-Za-z0-9+/_-]{20,}={0,2})"
        ),
    ),
)

_INJECTION = re.compile(
    r"(?is)"
    # The classic override, with its variants.
    r"\b(?:ignore|disregard|forget|override|bypass|skip)\s+(?:all\s+|any\s+|every\s+)?"
    r"(?:of\s+)?(?:the\s+|your\s+|my\s+|these\s+|those\s+)?"
    r"(?:previous|prior|above|earlier|preceding|original|system|existing|current)?\s*"
    r"(?:instructions?|prompts?|rules|messages|directions|directives|guidelines|context"
    r"|constraints|programming|guardrails)\b"
    # Role and mode hijacks.
    r"|\byou\s+are\s+now\s+(?:a|an|in|the|DAN|no\s+longer)\b"
    r"|\b(?:enter|enable|activate)\s+(?:developer|debug|god|jailbreak|DAN)\s+mode\b"
    r"|\bfrom\s+now\s+on,?\s+you\s+(?:will|must|shall|are)\b"
    r"|\b(?:reveal|print|show|repeat|output)\s+(?:me\s+)?(?:your|the)\s+"
    r"(?:system\s+prompt|hidden\s+instructions|initial\s+instructions)\b"
    r"|\bnew\s+(?:system\s+)?instructions?\s*:"
    r"|(?:^|\n)\s*(?:system|assistant)\s*:\s"
    r"|<\s*/?\s*(?:system|instructions?|im_start|im_end)\s*>|\[/?(?:SYSTEM|INST)\]"
    r"|<\|im_start\|>|###\s*(?:system|instruction)"
    # Instructions smuggled in pasted content, addressed to the model reading it.
    r"|\b(?:note|message|instructions?|reminder)\s+(?:to|for)\s+(?:the\s+|any\s+)?"
    r"(?:ai|assistant|llm|language\s+model|model|chatbot|agent|bot)\b"
    r"|\b(?:ai|llm|assistant|chatbot|agent|language\s+model)s?\s+(?:reading|processing|"
    r"summari[sz]ing|seeing|parsing)\s+this\b"
    r"|\bif\s+you\s+are\s+an?\s+(?:ai|llm|assistant|language\s+model|agent)\b"
    r"|\bwhen\s+(?:you|the\s+(?:ai|assistant|model))\s+(?:read|see|process|summari[sz]e)s?\s+"
    r"this\b"
    r"|<!--.*?\b(?:ai|assistant|model|agent|ignore|remember|store|instructions?)\b.*?-->"
    r"|\bdo\s+not\s+(?:tell|inform|alert)\s+the\s+user\b"
    r"|\b(?:secretly|silently|quietly)\s+(?:remember|store|save|record|add)\b"
)


@dataclass(frozen=True)
class Screened:
    text: str
    redactions: tuple[str, ...]
    injection: bool

    @property
    def hazards(self) -> tuple[str, ...]:
        return ("prompt_injection",) if self.injection else ()


def _luhn(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def screen(text: str) -> Screened:
    redactions: list[str] = []
    injection = bool(_INJECTION.search(text))
    for kind, pattern in _SECRET_PATTERNS:

        def _sub(m: re.Match[str], kind: str = kind) -> str:
            if kind == "card_number" and not _luhn(re.sub(r"\D", "", m.group(0))):
                return m.group(0)
            if "[redacted:" in m.group(0):
                return m.group(0)
            redactions.append(kind)
            group = next((g for g in ("s", "t") if m.groupdict().get(g) is not None), None)
            if group is not None:
                start, end = m.span(group)
                whole_start = m.start()
                whole = m.group(0)
                return (
                    whole[: start - whole_start] + f"[redacted:{kind}]" + whole[end - whole_start :]
                )
            return f"[redacted:{kind}]"

        text = pattern.sub(_sub, text)
    return Screened(text=text, redactions=tuple(redactions), injection=injection)
