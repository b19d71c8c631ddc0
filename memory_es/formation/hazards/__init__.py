"""The automatic-hazard check, run on a turn's text before its event is written.

Secrets are replaced by ``[redacted:<kind>]`` because an append-only log can never be
scrubbed later (:mod:`.secrets`); a prompt injection — typed, or smuggled inside pasted
content, in any of several languages and disguises — marks the turn untrusted so it never
forms (:mod:`.injection`). Both are counted on the consolidation record. A turn longer
than :data:`MAX_TURN_CHARS` is refused. Formation refuses a candidate whose statement
carries a key-like token or orders the assistant (:func:`candidate_hazard`).
docs/hazards.md lists the kinds, the steps and the measured figures.
"""

from __future__ import annotations

from dataclasses import dataclass

from memory_es.domain.session import INJECTION_CONTEXT_WORDS
from memory_es.errors import InvalidInput
from memory_es.formation.hazards.injection import (
    addresses_the_assistant,
    is_injection,
    is_instruction,
    matches_a_pattern,
    obfuscated,
    speaks_to_the_assistant,
    untranslated,
)
from memory_es.formation.hazards.secrets import (
    credentials_named,
    has_high_entropy_token,
    redact,
)

__all__ = [
    "MAX_TURN_CHARS",
    "Screened",
    "addresses_the_assistant",
    "candidate_hazard",
    "check_turn_size",
    "completes_injection",
    "has_high_entropy_token",
    "is_injection",
    "is_instruction",
    "screen",
    "speaks_to_the_assistant",
]

# The largest turn accepted (characters): a pasted document or log of a megabyte is kept.
# Screening is linear, so this bounds the time one turn can take (docs/hazards.md).
MAX_TURN_CHARS = 1_048_576


@dataclass(frozen=True)
class Screened:
    text: str
    redactions: tuple[str, ...]
    injection: bool
    # The credential kinds this turn names: the next turns of its session are screened
    # for their bare values (recorded on the turn's event as ``opens_screening``).
    opens: tuple[str, ...] = ()

    @property
    def hazards(self) -> tuple[str, ...]:
        return ("prompt_injection",) if self.injection else ()


def check_turn_size(text: str) -> str:
    if len(text) > MAX_TURN_CHARS:
        raise InvalidInput(
            f"a turn is at most {MAX_TURN_CHARS:,} characters (this one has {len(text):,}); "
            "split it into several turns"
        )
    return text


def screen(text: str, *, context: tuple[str, ...] = (), preceding: str = "") -> Screened:
    """Redact the secrets of ``text`` and say whether it carries an injection.

    ``context``: the credential kinds an earlier turn of the same session named
    (``Session.screening_context``), whose bare values this turn may carry.
    ``preceding``: the last words of the session's latest trusted user turn
    (``Session.injection_context``): an injection split over two turns is flagged on
    the turn that completes it.
    """
    check_turn_size(text)
    redacted, kinds = redact(text, context=context)
    return Screened(
        text=redacted,
        redactions=kinds,
        injection=is_injection(text) or completes_injection(preceding, text),
        opens=credentials_named(text),
    )


def completes_injection(preceding: str, text: str) -> bool:
    """Whether ``text`` completes an injection the preceding turn's last words opened:
    those words and this turn's first as many, read as one text by the phrase patterns
    (the model learnt whole texts: two chat fragments joined are no one's), are an
    injection the preceding words alone are not (so a turn after a mere mention of rules
    is not flagged for it). One short window: the cost does not grow with the turn."""
    if not preceding.strip():
        return False
    head = " ".join(text.split()[:INJECTION_CONTEXT_WORDS])
    return matches_a_pattern(preceding + "\n" + head) and not matches_a_pattern(preceding)


def candidate_hazard(statement: str, *, told: bool = False) -> str | None:
    """Why a candidate belief built from this statement must not form, or None.

    A belief is information about the user: never a key-like token (the redaction may
    have missed it, and a belief renders everywhere), never an instruction to the
    assistant, never text typed to slip past a reader (look-alike letters of mixed
    scripts, styled letters), and never a sentence in a language the English extractor
    cannot read (what it would keep is a misreading, or an order it could not see).
    Formation calls this on every statement it builds from sentence text; ``told``
    when the turn it built it from is the speaker's own declarative
    (:func:`.speech.speaks_for_oneself`: the statement's first person is formation's
    rewrite, "User said: they ...").
    """
    if "[redacted:" in statement or has_high_entropy_token(statement):
        return "secret"
    if obfuscated(statement):
        return "obfuscated"
    if is_instruction(statement, told=told):
        return "instruction"
    if untranslated(statement):
        return "untranslated"
    return None
