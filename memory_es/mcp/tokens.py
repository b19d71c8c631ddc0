"""Bearer tokens for the HTTP transport: a file maps each token to the principal it serves.

The file is JSON or YAML, one mapping ``token: principal``. A presented token is compared
with every configured one in constant time (over their SHA-256 digests, so neither the
position of the first differing byte nor a token's length shows in the timing), and the
loop never stops early. Importable without the SDK: the command validates the file before
the server starts.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from pathlib import Path

import yaml

from memory_es.errors import UsageError

MIN_TOKEN_CHARS = 16


@dataclass(frozen=True)
class TokenTable:
    """Digests of the configured tokens, each with its principal."""

    entries: tuple[tuple[bytes, str], ...]

    @classmethod
    def from_mapping(cls, mapping: object, *, source: str = "the token file") -> TokenTable:
        if not isinstance(mapping, dict) or not mapping:
            raise UsageError(f"{source} must be a non-empty mapping of token to principal")
        entries: list[tuple[bytes, str]] = []
        for token, principal in mapping.items():
            if not isinstance(token, str) or len(token.strip()) < MIN_TOKEN_CHARS:
                raise UsageError(
                    f"{source}: every token must be a string of at least {MIN_TOKEN_CHARS}"
                    " characters"
                )
            if not isinstance(principal, str) or not principal.strip():
                raise UsageError(f"{source}: every token must map to a non-empty principal name")
            entries.append((_digest(token.strip()), principal.strip()))
        return cls(tuple(entries))

    def principal_for(self, presented: str) -> str | None:
        """The principal a presented token serves, or None; constant time in the table."""
        digest = _digest(presented)
        found: str | None = None
        for expected, principal in self.entries:
            if hmac.compare_digest(digest, expected):
                found = principal
        return found


def load_tokens(path: str | Path) -> TokenTable:
    """Read a JSON or YAML token file (JSON is YAML, so one parser reads both)."""
    source = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise UsageError(f"cannot read the token file {source}: {error.strerror}") from None
    try:
        mapping = yaml.safe_load(text)
    except yaml.YAMLError:
        raise UsageError(f"the token file {source} is neither JSON nor YAML") from None
    return TokenTable.from_mapping(mapping, source=f"the token file {source}")


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8")).digest()
