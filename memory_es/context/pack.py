"""The context pack for the next model call.

Messages, in order:

1. ``system`` — the stable prefix: system preamble and the frozen session snapshot block.
   Byte-identical for every turn of a session (its sha256 is the prefix digest).
2. ``memory/recall`` — the in-turn recall for the turn text at the session's project.
3. ``memory/delta`` — the recall delta: beliefs at positions past the snapshot watermark,
   no query text, sharing what the base recall left of the item and token allowances,
   never repeating a belief the base returned.
4. ``memory/corrections`` — one line per snapshot member that no longer holds.
5. ``user`` — the turn.

Only the recall and delta blocks yield under budget pressure; the prefix, the correction
lines and the turn are the fixed body, and a fixed body that overflows the window is an
error (``FixedBodyOverflow``), never a silently dropped correction.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from memory_es.context.budget import (
    estimate_tokens,
    fit_lines,
    render_block,
)
from memory_es.context.corrections import Correction, corrections
from memory_es.context.snapshot import (
    SnapshotTrace,
    prefix_digest,
    read_snapshot_trace,
    render_prefix,
)
from memory_es.domain.session import Session
from memory_es.domain.values import short_id
from memory_es.errors import FixedBodyOverflow, InvalidInput, SessionClosed
from memory_es.projections.records import principal_key
from memory_es.retrieval.ranking import Scored
from memory_es.retrieval.recall import RecallQuery, Retriever
from memory_es.retrieval.render import render_line

RECALL_HEADER = "Memory relevant to this turn:"
DELTA_HEADER = "Memory formed or changed since this session started:"


@dataclass(frozen=True)
class PackItem:
    belief_id: str
    short_id: str
    position: int | None  # None for snapshot members: their position then is not kept
    line: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "belief_id": self.belief_id,
            "short_id": self.short_id,
            "position": self.position,
            "line": self.line,
        }


@dataclass(frozen=True)
class Message:
    role: str  # "system" | "user"
    trust: str  # "system" | "memory" | "user"
    kind: str  # "prefix" | "recall" | "delta" | "corrections" | "turn"
    content: str
    tokens: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "role": self.role,
            "trust": self.trust,
            "kind": self.kind,
            "content": self.content,
            "tokens": self.tokens,
        }


@dataclass(frozen=True)
class ContextPack:
    session_id: str
    principal: str
    project: str
    prefix: str
    prefix_digest: str
    snapshot_trace_id: str | None
    watermark: int | None
    # "recorded", "expired" or "missing": only a recorded trace yields delta and corrections.
    snapshot_state: str
    snapshot: tuple[PackItem, ...]
    recall: tuple[PackItem, ...]
    delta: tuple[PackItem, ...]
    delta_issued: bool
    corrections: tuple[Correction, ...]
    dropped_for_budget: tuple[str, ...]
    messages: tuple[Message, ...]
    window_tokens: int

    @property
    def tokens(self) -> int:
        return sum(m.tokens for m in self.messages)

    def as_dict(self) -> dict[str, Any]:
        return {
            "session_id": self.session_id,
            "principal": self.principal,
            "project": self.project,
            "prefix_digest": self.prefix_digest,
            "snapshot_trace_id": self.snapshot_trace_id,
            "snapshot_state": self.snapshot_state,
            "watermark": self.watermark,
            "snapshot": [i.as_dict() for i in self.snapshot],
            "recall": [i.as_dict() for i in self.recall],
            "delta": [i.as_dict() for i in self.delta],
            "delta_issued": self.delta_issued,
            "corrections": [
                {
                    "belief_id": c.belief_id,
                    "status": c.status,
                    "valid_to": c.valid_to,
                    "successor_id": c.successor_id,
                    "position": c.position,
                    "line": c.line,
                }
                for c in self.corrections
            ],
            "dropped_for_budget": list(self.dropped_for_budget),
            "messages": [m.as_dict() for m in self.messages],
            "tokens": self.tokens,
            "window_tokens": self.window_tokens,
        }


def _items(scored: tuple[Scored, ...]) -> list[PackItem]:
    return [
        PackItem(
            belief_id=s.record.belief_id,
            short_id=s.record.short_id,
            position=s.record.position,
            line=render_line(s.record.belief_id, s.record.statement, s.record.conflicts_with),
        )
        for s in scored
    ]


def _message(role: str, trust: str, kind: str, content: str) -> Message:
    return Message(role, trust, kind, content, estimate_tokens(content))


def build_context_pack(
    retriever: Retriever,
    session: Session,
    text: str,
    *,
    now: datetime,
    window_tokens: int | None = None,
    recall_items: int | None = None,
    recall_tokens: int | None = None,
) -> ContextPack:
    """The pack at ``now``; both recall blocks go through the store's one ``retriever``
    (its profile, its vector arm), so the base recall is ``Memory.recall``'s."""
    if not text or not text.strip():
        raise InvalidInput("a context pack needs the turn's text")
    index = retriever.index
    budgets = retriever.profile.context
    window_tokens = budgets.window_tokens if window_tokens is None else window_tokens
    recall_items = budgets.recall_max_items if recall_items is None else recall_items
    recall_tokens = budgets.recall_max_tokens if recall_tokens is None else recall_tokens
    if window_tokens < 1 or recall_items < 0 or recall_tokens < 0:
        raise InvalidInput("budgets must be positive")
    if session.is_closed:
        raise SessionClosed(str(session.id))
    principal = principal_key(session.tenant, session.principal)

    # The prefix: the recorded one, byte for byte; a session without a recorded snapshot
    # gets the preamble and an empty block (still the same for each of its turns).
    trace = read_snapshot_trace(getattr(session, "session_snapshot", None))
    prefix = trace.prefix if trace is not None else render_prefix([])
    usable: SnapshotTrace | None = None
    if trace is None:
        state = "missing"
    elif trace.expired(now):
        state = "expired"
    else:
        state, usable = "recorded", trace

    # The fixed body: never yields.
    fixed_corrections = (
        corrections(index, usable.belief_ids, watermark=usable.watermark, now=now)
        if usable is not None
        else []
    )
    prefix_message = _message("system", "system", "prefix", prefix)
    correction_message = _message(
        "user", "memory", "corrections", "\n".join(c.line for c in fixed_corrections)
    )
    turn_message = _message("user", "user", "turn", text)
    fixed = prefix_message.tokens + correction_message.tokens + turn_message.tokens
    if fixed > window_tokens:
        raise FixedBodyOverflow(
            prefix=prefix_message.tokens,
            corrections=correction_message.tokens,
            turn=turn_message.tokens,
            window=window_tokens,
        )

    # The in-turn recall class: base recall first, the delta gets what it left.
    token_allowance = min(recall_tokens, window_tokens - fixed)
    dropped: list[str] = []
    base_items: list[PackItem] = []
    base_tokens = 0
    if recall_items > 0:
        # Run even with no tokens left, so what budget pressure dropped is on record.
        base = retriever.recall(
            RecallQuery(
                principal=principal, text=text, project=session.project, limit=recall_items
            ),
            now=now,
            traced=False,
        )
        ranked = _items(base.items)
        kept, base_tokens = fit_lines(
            RECALL_HEADER,
            [i.line for i in ranked],
            max_items=recall_items,
            max_tokens=token_allowance,
        )
        base_items, dropped = ranked[:kept], [i.belief_id for i in ranked[kept:]]

    items_left = recall_items - len(base_items)
    tokens_left = token_allowance - base_tokens
    delta_items: list[PackItem] = []
    delta_issued = usable is not None and items_left > 0 and tokens_left > 0
    if usable is not None and delta_issued:
        delta = retriever.recall_without_text(
            principal,
            project=session.project,
            limit=items_left,
            min_position=usable.watermark,
            exclude=[i.belief_id for i in base_items],
            now=now,
        )
        ranked = _items(delta.items)
        kept, _ = fit_lines(
            DELTA_HEADER, [i.line for i in ranked], max_items=items_left, max_tokens=tokens_left
        )
        delta_items = ranked[:kept]
        dropped += [i.belief_id for i in ranked[kept:]]

    messages = [prefix_message]
    if base_items:
        content = render_block(RECALL_HEADER, [i.line for i in base_items])
        messages.append(_message("user", "memory", "recall", content))
    if delta_items:
        content = render_block(DELTA_HEADER, [i.line for i in delta_items])
        messages.append(_message("user", "memory", "delta", content))
    if fixed_corrections:
        messages.append(correction_message)
    messages.append(turn_message)

    snapshot_items = (
        tuple(
            PackItem(belief_id=b, short_id=short_id(b), position=None, line=line)
            for b, line in zip(trace.belief_ids, trace.lines, strict=True)
        )
        if trace is not None
        else ()
    )
    return ContextPack(
        session_id=str(session.id),
        principal=principal,
        project=session.project,
        prefix=prefix,
        prefix_digest=prefix_digest(prefix),
        snapshot_trace_id=trace.trace_id if trace is not None else None,
        watermark=trace.watermark if trace is not None else None,
        snapshot_state=state,
        snapshot=snapshot_items,
        recall=tuple(base_items),
        delta=tuple(delta_items),
        delta_issued=delta_issued,
        corrections=tuple(fixed_corrections),
        dropped_for_budget=tuple(dropped),
        messages=tuple(messages),
        window_tokens=window_tokens,
    )


def pack_text(pack: ContextPack) -> str:
    """The pack as text, one header per message: its trust tier, then its part (a memory
    message is a user-role message whose text came from memory, not from the user)."""
    parts: list[str] = []
    for message in pack.messages:
        header = f"--- {message.trust}: {message.kind}"
        if message.kind == "prefix":
            header += f" sha256:{pack.prefix_digest[:8]}"  # as_dict() has the whole digest
        parts.append(header + " ---")
        parts.append(message.content)
    return "\n".join(parts)
