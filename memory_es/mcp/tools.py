"""What the MCP server's tools and resources do, without the SDK: each takes the principal
the server resolved (from its configuration or the caller's bearer token, never from a
tool argument) and refuses a session or belief of anyone else.

Every method returns the text (or JSON-ready data) a model reads, or raises a
``MemoryEsError`` that names the problem; the server turns that into a tool result with
``isError`` set. Validation happens before anything is written, so a refused call leaves
the log as it was. Calls are serialized: one store, one writer at a time.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar

from memory_es.app import Memory
from memory_es.context.pack import pack_text
from memory_es.domain.values import DEFAULT_TENANT, LIVE_STATUSES
from memory_es.errors import InvalidInput, UnknownSession
from memory_es.formation.consolidation import ConsolidationResult
from memory_es.history import source_turns
from memory_es.projections.records import BeliefRecord, principal_key
from memory_es.retrieval.render import formation_lines, render_line

T = TypeVar("T")

MAX_RECALL_LIMIT = 50


class MemoryTools:
    """The tools over one open store; ``principal`` is always the server's, not the model's."""

    def __init__(self, memory: Memory, *, tenant: str = DEFAULT_TENANT) -> None:
        self.memory = memory
        self.tenant = tenant
        self._lock = threading.Lock()

    def _serial(self, call: Callable[[], T]) -> T:
        with self._lock:
            return call()

    # -- sessions ------------------------------------------------------------------------

    def open_session(self, principal: str, project: str | None = None) -> str:
        return self._serial(
            lambda: self.memory.open_session(principal, project=project, tenant=self.tenant)
        )

    def record_turn(self, principal: str, session_id: str, text: str, role: str = "user") -> str:
        def call() -> str:
            self._own_session(principal, session_id)
            receipt = self.memory.say(session_id, text, role=role)
            line = f"recorded turn {receipt.seq} ({role})"
            if not receipt.trusted and role == "user":
                line += "; untrusted (it reads as an instruction to memory): it will not form"
            if receipt.redactions:
                line += "; redacted before storage: " + ", ".join(receipt.redactions)
            if receipt.cleaned_characters:
                line += f"; {receipt.cleaned_characters} control characters replaced or dropped"
            return line

        return self._serial(call)

    def record_source_turn(self, principal: str, session_id: str, source: str, text: str) -> str:
        def call() -> str:
            self._own_session(principal, session_id)
            receipt = self.memory.sources.say(session_id, text, source=source)
            declared = self.memory.sources.declaration(source, tenant=self.tenant)
            line = f"recorded turn {receipt.seq} through source {declared.source or source!r}"
            if declared.valid:
                line += f" ({declared.authority.value}, {declared.verification.value})"
            else:
                line += " (never declared: unknown / untrusted)"
            if not declared.valid or declared.authority.rank == 0:
                line += "; kept as evidence only: an untrusted source's content never forms"
            elif not receipt.trusted:
                line += "; untrusted (it reads as an instruction to memory): it will not form"
            if receipt.redactions:
                line += "; redacted before storage: " + ", ".join(receipt.redactions)
            return line

        return self._serial(call)

    def close_session(self, principal: str, session_id: str) -> str:
        def call() -> str:
            self._own_session(principal, session_id)
            return self._formation_text(self.memory.close_session(session_id))

        return self._serial(call)

    def context_pack(self, principal: str, session_id: str, text: str) -> str:
        def call() -> str:
            self._own_session(principal, session_id)
            if not text or not text.strip():
                raise InvalidInput("context_pack needs the user turn's text")
            return pack_text(self.memory.context(session_id, text))

        return self._serial(call)

    # -- recall and governance -----------------------------------------------------------

    def recall(
        self, principal: str, query: str, project: str | None = None, limit: int = 10
    ) -> str:
        if not query or not query.strip():
            raise InvalidInput("recall needs a non-empty query")
        if not 1 <= limit <= MAX_RECALL_LIMIT:
            raise InvalidInput(f"limit must be between 1 and {MAX_RECALL_LIMIT}, not {limit}")
        result = self._serial(
            lambda: self.memory.recall(
                principal, query, project=project, limit=limit, tenant=self.tenant
            )
        )
        return "\n".join(result.lines()) or "no memory matches this query"

    def remember(self, principal: str, text: str) -> str:
        return self._serial(
            lambda: self._formation_text(self.memory.remember(principal, text, tenant=self.tenant))
        )

    def reject(self, principal: str, belief_id: str) -> str:
        def call() -> str:
            record = self.memory.reject(self._own_belief(principal, belief_id).belief_id)
            return f"{render_line(record.belief_id, record.statement)}  ({record.status})"

        return self._serial(call)

    def forget(
        self,
        principal: str,
        scope: str = "session",
        session_id: str | None = None,
        turn: int | None = None,
        confirm: bool = False,
        reason: str = "",
    ) -> str:
        """Forget one turn of a session, a whole session, or everything of the principal
        (the server's own, never another) by crypto-shredding; a dry run unless
        ``confirm``. Ids and counts only, the forgotten text never."""

        def call() -> str:
            target = self._forget_target(principal, scope, session_id, turn)
            report = self.memory.forget(
                **target, tenant=self.tenant, confirm=confirm, reason=reason or ""
            )
            counts = (
                f"{len(report.turn_ids)} turns, {len(report.session_ids)} whole sessions,"
                f" {len(report.retracted)} memories retracted,"
                f" {len(report.kept)} kept (other evidence)"
            )
            if not confirm:
                return f"dry run, nothing forgotten yet: {counts}; call again with confirm"
            return f"forgotten: {counts}"

        return self._serial(call)

    def _forget_target(
        self, principal: str, scope: str, session_id: str | None, turn: int | None
    ) -> dict[str, str]:
        """``Memory.forget``'s target for a scope, checked to be the principal's own."""
        if scope == "principal":
            if session_id is not None or turn is not None:
                raise InvalidInput(
                    "forget with scope principal takes no session or turn: it forgets"
                    " every session and memory of this user"
                )
            return {"principal": principal}
        if scope not in ("session", "turn"):
            raise InvalidInput(f"forget's scope is turn, session or principal, not {scope!r}")
        if not session_id:
            raise InvalidInput(f"forget with scope {scope} needs the session id")
        self._own_session(principal, session_id)
        if scope == "session":
            if turn is not None:
                raise InvalidInput("forget with scope session takes no turn (scope turn does)")
            return {"session": session_id}
        if turn is None:
            raise InvalidInput("forget with scope turn needs the turn's number (record_turn's)")
        found = [t.turn_id for t in self.memory.session_turns(session_id) if t.seq == turn]
        if not found:
            raise InvalidInput(f"no turn {turn} in session {session_id} (or forgotten already)")
        return {"turn": found[0]}

    def record_usage(self, principal: str, session_id: str, run_id: str, final_message: str) -> str:
        def call() -> str:
            self._own_session(principal, session_id)
            if not run_id or not run_id.strip():
                raise InvalidInput("record_usage needs a run id (one per model call)")
            if not final_message or not final_message.strip():
                raise InvalidInput("record_usage needs the model's final message")
            result = self.memory.record_usage(session_id, run_id, final_message)
            return _describe(result)

        return self._serial(call)

    def list_conflicts(self, principal: str) -> str:
        def call() -> str:
            result = self.memory.conflicts(principal, tenant=self.tenant)
            return _describe(result) or "no conflicts await confirmation"

        return self._serial(call)

    def confirm_conflict(self, principal: str, belief_id: str) -> str:
        def call() -> str:
            record = self._own_belief(principal, belief_id)
            return _describe(self.memory.confirm(record.belief_id))

        return self._serial(call)

    # -- L2 review (memory_es/review/): always on the server's principal --------------------

    def review_list(self, principal: str) -> list[dict[str, Any]]:
        return self._serial(
            lambda: [p.as_dict() for p in self.memory.review.list(principal, tenant=self.tenant)]
        )

    def review_show(self, principal: str, proposal_id: str) -> dict[str, Any]:
        return self._serial(
            lambda: self.memory.review.show(
                proposal_id, principal=principal, tenant=self.tenant
            ).as_dict()
        )

    def review_approve(self, principal: str, proposal_id: str) -> dict[str, Any]:
        return self._serial(
            lambda: self.memory.review.approve(
                proposal_id, principal=principal, tenant=self.tenant
            ).as_dict()
        )

    def review_decline(self, principal: str, proposal_id: str, reason: str = "") -> dict[str, Any]:
        return self._serial(
            lambda: self.memory.review.decline(
                proposal_id, reason=reason, principal=principal, tenant=self.tenant
            ).as_dict()
        )

    # -- resources -----------------------------------------------------------------------

    def current_beliefs(self, principal: str) -> list[dict[str, Any]]:
        records = self._serial(lambda: self.memory.list_beliefs(principal, tenant=self.tenant))
        return [_belief_json(r) for r in records if r.status in LIVE_STATUSES]

    def provenance(self, principal: str, belief_id: str) -> dict[str, Any]:
        """The belief and its source turns, as stored (secrets were redacted before the
        turn's event was written)."""

        def call() -> dict[str, Any]:
            record = self._own_belief(principal, belief_id)
            sources = set(record.source_event_ids)
            by_event = source_turns(self.memory, self.memory.belief_history(record.belief_id))
            turns: dict[str, dict[str, Any]] = {}
            for named in by_event.values():
                for t in named:
                    if t.turn.turn_id in sources:
                        turns.setdefault(t.turn.turn_id, t.as_dict())
            return {"belief": _belief_json(record), "source_turns": list(turns.values())}

        return self._serial(call)

    def history(self, principal: str, belief_id: str) -> dict[str, Any]:
        def call() -> dict[str, Any]:
            record = self._own_belief(principal, belief_id)
            events = self.memory.belief_history(record.belief_id)
            return {"belief": _belief_json(record), "events": [e.as_dict() for e in events]}

        return self._serial(call)

    # -- ownership -----------------------------------------------------------------------

    def _own_session(self, principal: str, session_id: str) -> None:
        """Refuse a session of another principal exactly as an unknown one: its existence
        is not the caller's to learn."""
        session = self.memory.session(session_id)
        owner = principal_key(self.tenant, principal)
        if principal_key(session.tenant, session.principal) != owner:
            raise UnknownSession(session_id)

    def _own_belief(self, principal: str, ref: str) -> BeliefRecord:
        """One of the principal's own beliefs, by full or short id; anyone else's is unknown
        (a short id another principal's belief shares is neither found nor ambiguous)."""
        from memory_es.services.handlers import find_belief  # the one short-id resolver

        return find_belief(self.memory.index, ref, principal_key(self.tenant, principal))

    def _formation_text(self, result: ConsolidationResult) -> str:
        """What formation did: each belief formed or superseded as a line, then the counts."""
        lines = formation_lines(result, self.memory.index.get)
        counts = {k: v for k, v in result.counts.as_dict().items() if v}
        lines.append("counts: " + (", ".join(f"{k}={v}" for k, v in counts.items()) or "none"))
        return "\n".join(lines)


def _belief_json(record: BeliefRecord) -> dict[str, Any]:
    return {
        "belief_id": record.belief_id,
        "short_id": record.short_id,
        "line": render_line(record.belief_id, record.statement, record.conflicts_with),
        "statement": record.statement,
        "belief_type": record.belief_type,
        "status": record.status,
        "authority": record.authority,
        "confidence": record.confidence,
        "project": record.project,
        "valid_from": record.valid_from,
        "valid_to": record.valid_to,
        "successor_id": record.successor_id,
        "conflicts_with": list(record.conflicts_with),
        "position": record.position,
        "source_session_id": record.source_session_id,
        "source_event_ids": list(record.source_event_ids),
    }


def _describe(value: Any) -> str:
    """Text for a lifecycle method's result: a belief as its memory line, a pending
    conflict as its belief's line naming its partners, anything else as its fields."""
    if isinstance(value, BeliefRecord):
        line = render_line(value.belief_id, value.statement, value.conflicts_with)
        return f"{line}  ({value.status})"
    belief, partners = getattr(value, "belief", None), getattr(value, "partners", None)
    if isinstance(belief, BeliefRecord) and isinstance(partners, tuple | list):
        return render_line(belief.belief_id, belief.statement, [p.belief_id for p in partners])
    if isinstance(value, list | tuple):
        return "\n".join(_describe(item) for item in value)
    as_dict = getattr(value, "as_dict", None)
    if callable(as_dict):
        value = as_dict()
    if isinstance(value, dict):
        return "\n".join(f"{k}: {v}" for k, v in value.items())
    return str(value)
