"""The automatic-hazard check, run on a turn's text before its event is written.

Secrets are replaced by ``[redacted:<kind>]`` because an append-only log can never be
scrubbed later; a prompt injection marks the turn untrusted so it never forms.
This is the catalogue's first cut; the formation issue extends it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# (kind, pattern); the whole match is replaced. Order matters: most specific first.
_SECRET_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "private_key",
        re.compile(
            r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)",
            re.DOTALL,
        ),
    ),
    ("jwt", re.compile(r"\beyJ[\w-]{8,}\.[\w-]{8,}\.[\w-]{8,}")),
    ("cloud_key", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    ("bearer_token", re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._~+/=-]{8,}")),
    (
        "credential",
        re.compile(
            r"(?i)\b[\w.-]*(?:api[_-]?key|secret|token|passwd|password|pwd|access[_-]?key)"
            r"[\w.-]*\s*[=:]\s*\S+"
        ),
    ),
    ("password", re.compile(r"(?i)\b(?:password|passphrase|passcode)\s+is\s+\S+")),
    ("pin", re.compile(r"(?i)\bpin(?:\s+(?:code|number))?\s+(?:is\s+)?\d{4,8}\b")),
)

_INJECTION = re.compile(
    r"(?i)\b(?:ignore|disregard|forget)\s+(?:all\s+|any\s+)?(?:the\s+)?"
    r"(?:previous|prior|above|earlier)\s+(?:instructions|prompts|rules|messages)"
)


@dataclass(frozen=True)
class Screened:
    text: str
    redactions: tuple[str, ...]
    injection: bool

    @property
    def hazards(self) -> tuple[str, ...]:
        return ("prompt_injection",) if self.injection else ()


def screen(text: str) -> Screened:
    redactions: list[str] = []
    for kind, pattern in _SECRET_PATTERNS:

        def _sub(_: re.Match[str], kind: str = kind) -> str:
            redactions.append(kind)
            return f"[redacted:{kind}]"

        text = pattern.sub(_sub, text)
    return Screened(
        text=text, redactions=tuple(redactions), injection=bool(_INJECTION.search(text))
    )
