"""Cross-turn screening: a credential asked for or named in one turn ("what's the wifi
password?", "send me the PIN") opens a short context in which the next turns' bare
values ("it's Pumpkin-Spice-31", "4821") are redacted.

The context is what :func:`credentials_named` reads of a turn; the session records it
on the turn's event (``opens_screening``) and keeps it open for
``memory_es.domain.session.FOLLOW_UP_TURNS`` turns, so a replay rebuilds the same context from
the session's own events. Pure: text in, kinds or spans out.
"""

from __future__ import annotations

from collections.abc import Iterator

from memory_es.formation.hazards.secrets.cache import Span, patterns
from memory_es.formation.hazards.secrets.context import credential_mentions, spelled_run
from memory_es.formation.hazards.secrets.tokens import Tokens, value_span
from memory_es.formation.hazards.secrets.values import (
    digit_group,
    digits_of,
    looks_secret,
    name_or_code,
    words,
)

# Only the opening of a later turn is read as an answer: a bare value comes first.
ANSWER_TOKENS = 20


def credentials_named(text: str) -> tuple[str, ...]:
    """The kinds of credential this turn names (asks for, announces or mentions), each
    once, in order: what the next turns are screened for."""
    kinds: list[str] = []
    for kind in credential_mentions(text):
        if kind not in kinds:
            kinds.append(kind)
    return tuple(kinds)


_NOT_BARE = ("@", "://", ":", "(", ")", "=", "[", "]", "{", "}", "<", ">")


def _bare_value(core: str, kind: str) -> bool:
    """A value said alone: letters with digits or symbols ("Walnut77!", "Pumpkin-Spice-31"),
    or a group of three or more digits ("4821", "36-12-48"). Mixed case alone is a name
    ("Spider-Man", "iPhone"), never enough without a secret word in the same turn; a
    code is letters and digits ("A7K2-9PQ4"), and a password or a PIN no code,
    quantity, model or name ("64GB", "RT-AC68U", "L298N": name_or_code)."""
    if digit_group(core):
        return len(digits_of(core)) >= 3
    if kind == "one_time_code":
        return _CODE.fullmatch(core) is not None and len(digits_of(core)) >= 3
    if any(mark in core for mark in _NOT_BARE):
        return False  # an address, a link, a time, a code identifier or call
    has_digit = any(c.isdigit() for c in core)
    # An underscore joins a code identifier's words ("create_async_engine"): a symbol
    # of a password only beside a digit ("Sparrow_Nest_14").
    has_symbol = any(not c.isalnum() and c not in "'’-.,/_" for c in core)
    return looks_secret(core) and (has_digit or has_symbol) and not name_or_code(core)


# A one-time code of letters and digits, in groups or not: "A7K2-9PQ4", "G-482913".
_CODE = patterns.compile(r"[A-Za-z0-9]{1,8}(?:-[A-Za-z0-9]{1,8}){0,3}")


# A number answers only where an answer stands: among the turn's first words ("4821",
# "I think 0619", "yes, 553201"), or after a mark or a word that gives it ("found it:
# 3307", "it's 418"); not inside a sentence of its own ("I use Bitwarden 2024 edition",
# "In 2020 I moved").
_NUMBER_OPENING = 3
_GIVES = words("is it's its es é è ist est c'est sind are was use try enter type says")
_TIMED = words("in at since until till by before after from around during")


def _answers(tokens: Tokens, i: int) -> bool:
    if i and tokens[i - 1].core.casefold() in _TIMED:
        return False
    if i < _NUMBER_OPENING:
        return True
    prev = tokens[i - 1]
    return tokens.text[prev.end - 1] in ":,=" or prev.core.casefold() in _GIVES


def follow_up_values(text: str, kinds: tuple[str, ...]) -> Iterator[Span]:
    """The bare values at the opening of a turn said while ``kinds`` are screened."""
    if not kinds:
        return
    tokens = Tokens(text)
    i = 0
    while i < min(len(tokens), ANSWER_TOKENS):
        token, past = tokens[i], spelled_run(tokens, i)
        if past > i:  # "two five eight zero"
            last = tokens[past - 1]
            yield token.core_start, last.core_start + len(last.core), kinds[0]
            i = past
            continue
        if digit_group(token.core):
            # "8 8 1 2", "19 27 05": the digit groups said together are one value.
            start, end = value_span(tokens, i, True)
            if len(digits_of(text[start:end])) >= 3 and _answers(tokens, i):
                yield start, end, kinds[0]
            i = tokens.after(end)
            continue
        if _bare_value(token.core, kinds[0]):
            yield token.core_start, token.core_start + len(token.core), kinds[0]
        i += 1
