"""Real conversation for the hazard screen: LoCoMo's and LongMemEval S's turns, read from
a local path (never committed), each session's turns in order.

The screen must leave real conversation alone. LoCoMo (CC BY-NC 4.0) is only ever a
check. LongMemEval S (MIT) is split by a stable hash of each session id: the ``train``
half's user turns are the benign conversation the injection model learns from (the
public injection sets' benign rows are one-line requests, not chat), the ``check`` half
is never trained on and is where its figures are reported.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Literal, TextIO

import orjson

from memory_es.benchmarks.external.jsonstream import iter_json_list

Half = Literal["train", "check"]


def longmemeval_half(session_id: str) -> Half:
    digest = hashlib.sha256(session_id.encode("utf-8")).digest()
    return "train" if digest[0] % 2 == 0 else "check"


Turn = tuple[str, str]  # (role, text)


def longmemeval_sessions(path: Path, half: Half | None = None) -> Iterator[list[Turn]]:
    """Each distinct haystack session's turns, user and assistant, in order (of one half,
    or all): an assistant's question opens the screening context for the user's answer."""
    seen: set[str] = set()
    for record in iter_json_list(path):
        ids = record.get("haystack_session_ids") or []
        for session_id, turns in zip(ids, record.get("haystack_sessions") or [], strict=False):
            key = str(session_id)
            if key in seen or (half is not None and longmemeval_half(key) != half):
                continue
            seen.add(key)
            said = [(str(t.get("role", "user")), str(t.get("content", ""))) for t in turns]
            if said:
                yield said


def locomo_sessions(path: Path) -> Iterator[list[Turn]]:
    """Each LoCoMo session's turns, in order (both speakers: each is a user here)."""
    for sample in orjson.loads(path.read_bytes()):
        conversation = sample["conversation"]
        for key, value in conversation.items():
            if key.startswith("session_") and isinstance(value, list):
                said = [("user", str(turn.get("text", ""))) for turn in value]
                if said:
                    yield said


def redacted_values(original: str, redacted: str) -> list[str]:
    """The original substrings ``redact`` replaced, in order: the redacted text is the
    original with each span replaced by ``[redacted:<kind>]``."""
    pieces = re.split(r"\[redacted:[a-z0-9_]+\]", redacted)
    values: list[str] = []
    pos = len(pieces[0])
    for piece in pieces[1:]:
        end = original.find(piece, pos) if piece else len(original)
        if end < 0:
            end = len(original)
        values.append(original[pos:end])
        pos = end + len(piece)
    return values


def screened_figures(
    sessions: Iterator[list[Turn]], name: str, show: TextIO | None = None
) -> dict[str, float | int]:
    """Each session said turn by turn through ``Memory.say`` (so whatever the screen
    carries from one turn to the next is in force): user turns flagged
    (``trusted=False``), redacted, and either, with the share of user turns.

    ``show``: each redacted or flagged user turn is written there as one JSON line (the session,
    the kinds, the values replaced and the redacted text), for eyeballing only: the
    sets' text is never to be committed."""
    import memory_es
    from memory_es.errors import InvalidInput
    from memory_es.formation.hazards.secrets import redact

    turns = flagged = redacted = either = refused = 0
    with memory_es.open("memory://") as memory:
        for n, said in enumerate(sessions):
            session = memory.open_session(f"{name}-{n}")
            for role, text in said:
                if not text.strip():
                    continue
                context = memory.session(session).screening_context if show else ()
                try:
                    receipt = memory.say(session, text, role=role)
                except InvalidInput:  # what no store may hold: counted, not screened
                    refused += 1
                    continue
                if role != "user":
                    continue
                turns += 1
                flagged += not receipt.trusted
                redacted += bool(receipt.redactions)
                either += (not receipt.trusted) or bool(receipt.redactions)
                if show is not None and (receipt.redactions or not receipt.trusted):
                    redacted_text, kinds = redact(text, context=context)
                    line = {
                        "session": n,
                        "kinds": list(kinds),
                        "values": redacted_values(text, redacted_text),
                        "flagged": not receipt.trusted,
                        "text": redacted_text,
                    }
                    show.write(orjson.dumps(line).decode() + "\n")
    return {
        f"{name}_turns": turns,
        f"{name}_flagged": flagged,
        f"{name}_redacted": redacted,
        f"{name}_flagged_or_redacted": either,
        f"{name}_flagged_or_redacted_rate": round(either / turns, 5) if turns else 0.0,
        f"{name}_refused_as_input": refused,
    }
