"""The fresh rounds' figures (benchmarks/hazards/fresh_round.py, ``--round 2``:
fresh_round2.py) through the public API only, so the same code measures the base and
the branch.

A secret persists when any of its values is found in the text of an event stored while
its conversation was said and closed (ids, instants and digests left out) or in a belief
of its principal. A benign look-alike keeps its text when it is stored unredacted, and
keeps its belief when its session forms one.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import orjson

import memory_es
from memory_es.benchmarks.hazards.fresh_round import FRESH_BENIGN, FRESH_SECRETS, FreshSecret
from memory_es.benchmarks.hazards.fresh_round2 import FRESH2_BENIGN, FRESH2_SECRETS

ROUNDS: dict[int, tuple[tuple[FreshSecret, ...], tuple[str, ...]]] = {
    1: (FRESH_SECRETS, FRESH_BENIGN),
    2: (FRESH2_SECRETS, FRESH2_BENIGN),
}

CONVERSATIONAL = Path(memory_es.__file__).parent / "profiles" / "conversational.yaml"

# Values of an event that are no user text: ids, instants and hex digests.
_NOT_TEXT = re.compile(
    r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
    r"|\d{4}-\d\d-\d\dT[\d:.]+(?:Z|[+-]\d\d:\d\d)?|[0-9a-f]{16,}|\w+@\d+"
)


def event_strings(value: object) -> Iterator[str]:
    """Every text value of a decoded event but ids, instants and digests."""
    if isinstance(value, str):
        if not _NOT_TEXT.fullmatch(value):
            yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from event_strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from event_strings(item)


def stored_text_since(memory: memory_es.Memory, head: int) -> str:
    """The text of every event stored after log position ``head``, its sealed text opened
    (the plaintext the log would hold: encryption is not redaction, so a secret the
    screen missed counts as persisted though the store keeps it as ciphertext)."""
    from memory_es.logio import plaintext_opener

    opened = plaintext_opener(memory)
    stored = memory.app.recorder.select_notifications(start=head + 1, limit=10_000)
    return "\n".join(s for n in stored for s in event_strings(orjson.loads(opened(n))))


def carries(text: str, value: str) -> bool:
    """Whether ``text`` holds ``value`` as a whole (not inside a longer word or number)."""
    pattern = r"(?<![0-9A-Za-z])" + re.escape(value.casefold()) + r"(?![0-9A-Za-z])"
    return re.search(pattern, text.casefold()) is not None


def persisted(memory: memory_es.Memory, principal: str, case: FreshSecret) -> bool:
    head = memory.projection_status().log_head
    session = memory.open_session(principal)
    for role, text in case.turns:
        memory.say(session, text, role=role)
    memory.close_session(session)
    shown = stored_text_since(memory, head)
    shown += "\n".join(b.statement for b in memory.list_beliefs(principal))
    return any(carries(shown, value) for value in case.secrets)


def fresh_figures(*, show: bool = False, round_: int = 1) -> dict[str, int]:
    secrets, benign = ROUNDS[round_]
    figures: dict[str, int] = {"fresh_secrets": len(secrets), "fresh_secrets_raw": 0}
    with memory_es.open("memory://", profile=CONVERSATIONAL) as memory:
        for i, case in enumerate(secrets):
            key = f"fresh_raw_{case.kind}"
            figures.setdefault(key, 0)
            if persisted(memory, f"s{i}", case):
                figures["fresh_secrets_raw"] += 1
                figures[key] += 1
                if show:
                    print(f"  raw {case.kind}: {case.turns}")
        kept_text = kept_belief = 0
        for i, text in enumerate(benign):
            principal = f"b{i}"
            session = memory.open_session(principal)
            receipt = memory.say(session, text)
            memory.close_session(session)
            kept_text += not receipt.redactions
            formed = bool(memory.list_beliefs(principal))
            kept_belief += formed and not receipt.redactions
            if show and (receipt.redactions or not formed):
                print(f"  benign lost ({receipt.redactions}, formed={formed}): {text}")
    figures["fresh_benign"] = len(benign)
    figures["fresh_benign_kept_text"] = kept_text
    figures["fresh_benign_kept_belief"] = kept_belief
    return figures


def main(argv: list[str] | None = None) -> None:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--show", action="store_true", help="print each failing case")
    parser.add_argument("--round", type=int, choices=sorted(ROUNDS), default=1, dest="round_")
    args = parser.parse_args(argv)
    figures = fresh_figures(show=args.show, round_=args.round_)
    print(orjson.dumps(figures, option=orjson.OPT_INDENT_2).decode())


if __name__ == "__main__":
    main()
