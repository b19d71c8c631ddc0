"""Secrets: found by shape, by checksum, by entropy, and by the words said around them.

Every rule reports spans of the original text; overlapping spans merge, so a value two
rules both see is redacted once, under the kind of the rule listed first. Every pattern
is linear: a quantifier over unbounded input is either bounded or starts only where the
previous character cannot continue it (a lookbehind on the same class), so no two match
attempts rescan the same run. docs/hazards.md lists the kinds and the phrasings.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from itertools import chain

from memory_es.formation.hazards.secrets.cache import Span, patterns
from memory_es.formation.hazards.secrets.config import name_values
from memory_es.formation.hazards.secrets.context import contextual
from memory_es.formation.hazards.secrets.follow_up import credentials_named, follow_up_values
from memory_es.formation.hazards.secrets.shapes import CHECKSUMS, SHAPES, VENDOR, entropy
from memory_es.formation.hazards.secrets.values import has_high_entropy_token

__all__ = ["credentials_named", "has_high_entropy_token", "redact"]

# -- the screen --------------------------------------------------------------------------------

RULES: tuple[Callable[[str], Iterator[Span]], ...] = (
    *SHAPES,
    *CHECKSUMS,
    contextual,
    name_values,
    VENDOR,
    entropy,
)


def redact(text: str, *, context: tuple[str, ...] = ()) -> tuple[str, tuple[str, ...]]:
    """The text with every secret replaced by ``[redacted:<kind>]``, and the kinds.

    ``context``: the credential kinds an earlier turn of the session named
    (:func:`credentials_named`); the bare values opening this turn are redacted too.
    """
    # The rule listed first names a merged span; within a rule, the first it reports.
    spans: list[tuple[int, int, int, str]] = []  # start, end, priority, kind
    found = (span for rule in RULES for span in rule(text))
    for start, end, kind in chain(found, follow_up_values(text, context)):
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


patterns.save()
