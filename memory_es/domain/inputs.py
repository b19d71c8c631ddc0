"""What the log accepts: text and names validated and normalized at the edge.

Every write path — ``say``, ingest, ``remember``, established facts, the MCP tools — goes
through the same commands, and each command's handler cleans its text here before an
event exists, so the log holds only what every read model can apply (an append-only log
cannot be cleaned later).

- A turn (``clean_turn``) is kept whatever it holds, because dropping it drops what the
  user said (a pasted terminal log's escape codes, a form feed): what no store can hold —
  NUL (PostgreSQL's text type has no room for it) and lone surrogates (what undecodable
  bytes become) — becomes U+FFFD, every other control character but tab and newline is
  dropped, and the turn's event records how many characters were changed.
- Other text (``clean_text``: a statement to remember, an established fact) is
  NFC-normalized. NUL, the other C0 control characters but tab, newline and
  carriage return, DEL, the C1 controls (U+0080 to U+009F) and lone surrogates (what
  undecodable bytes become) are refused with ``InvalidInput``, never escaped: an escape
  would change what the user said, silently, and PostgreSQL's text type cannot hold a
  NUL at all.
- A name (tenant, principal, project) is NFC-normalized and stripped of surrounding
  white space (``normalize_name``, the form every read keys it by too); an empty name
  or one holding any control character is refused.
"""

from __future__ import annotations

import re
import unicodedata

from memory_es.domain.values import normalize_name
from memory_es.errors import InvalidInput

# Refused in text: C0 but \t \n \r, DEL, C1, lone surrogates.
_TEXT_REFUSED = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")
# In a turn: replaced by U+FFFD (no store can hold them), and dropped (every other
# control character but tab and newline).
_TURN_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
_TURN_DROPPED = re.compile("[\x01-\x08\x0b-\x1f\x7f-\x9f]")
# Refused in a name: every control character (tab and newlines included).
_NAME_REFUSED = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")


def _refusal(what: str, text: str, at: int, allowed: str) -> InvalidInput:
    return InvalidInput(
        f"{what} holds U+{ord(text[at]):04X} at character {at}: NUL and control"
        f" characters{allowed} are refused"
    )


def clean_text(text: str, *, what: str = "text") -> str:
    """``text`` NFC-normalized, or ``InvalidInput`` naming the first refused character."""
    found = _TEXT_REFUSED.search(text)
    if found is not None:
        raise _refusal(what, text, found.start(), " other than tab, newline and carriage return")
    return unicodedata.normalize("NFC", text)


def clean_turn(text: str) -> tuple[str, int]:
    """A turn's text as the log keeps it, NFC-normalized, and how many characters were
    replaced or dropped to get there (two linear passes: any length screens alike)."""
    stored, replaced = _TURN_UNSTORABLE.subn("\ufffd", text)
    stored, dropped = _TURN_DROPPED.subn("", stored)
    return unicodedata.normalize("NFC", stored), replaced + dropped


def clean_name(name: str, *, what: str = "a principal") -> str:
    """A name as it is keyed (``normalize_name``), or ``InvalidInput``."""
    found = _NAME_REFUSED.search(name)
    if found is not None:
        raise _refusal(f"the name of {what}", name, found.start(), "")
    cleaned = normalize_name(name)
    if not cleaned:
        raise InvalidInput(f"{what} needs a non-empty name")
    return cleaned


def check_position(position: int, head: int) -> None:
    """The one rule for a log position a caller names (``--as-of-position``, ``log export
    --until``): an integer from 0 up to the log's head; past the head is refused, never
    quietly read as the head."""
    if isinstance(position, bool) or not isinstance(position, int) or position < 0:
        raise InvalidInput(f"a log position is an integer from 0, not {position!r}")
    if position > head:
        raise InvalidInput(f"position {position} is past the log head ({head})")
