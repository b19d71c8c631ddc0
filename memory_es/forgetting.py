"""Forgetting by crypto-shredding: ``memory forget (--turn | --session | --principal)``.

The log stays append-only. What is forgotten was sealed under its own keys
(memory_es/sealing.py); forgetting

1. plans, from ids in the clear: the forgotten turns; the beliefs whose every source is
   among them (retracted, their statement's key destroyed); the beliefs other evidence
   supports (kept, the forgotten turns dropped from their sources); the rejections whose
   evidence is forgotten (kept whole: a rejected statement must never form again);
2. with ``confirm``: saves a ``BeliefRetired`` (reason ``forgotten``) per live retracted
   belief and one ``MemoryForgotten`` record (ids, scope, reason; no text), destroys the
   keys (a principal's: every key it owns, its key encryption key too), deletes the
   aggregate snapshots that held the text, evicts the aggregate cache and rebuilds the
   read model from position 0 — every forgotten payload now opens to its placeholder —
   and on SQLite rewrites the file (``VACUUM``, WAL truncated) so no free page keeps a
   copy of the old read model's rows.

Without ``confirm`` nothing is written: the report says what would happen.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any
from uuid import UUID

from memory_es.domain.values import DEFAULT_TENANT, LIVE_STATUSES, Status, principal_aggregate_id
from memory_es.errors import InvalidInput, UsageError
from memory_es.es_internals import delete_snapshots, evict_cache
from memory_es.ports import iso
from memory_es.projections.records import principal_key
from memory_es.sealing import (
    belief_key,
    facts_key,
    session_snapshot_key,
    state_key,
    turn_key,
)
from memory_es.store_errors import event_store_errors

if TYPE_CHECKING:
    from memory_es.app import Memory

FORGOTTEN_REASON = "forgotten"  # BeliefRetired.reason of a belief whose evidence is forgotten
_SESSION = "memory_es.domain.session:Session."
_PAGE = 1000


@dataclass(frozen=True)
class ForgetReport:
    """What a forgetting did (``confirmed``) or would do (a dry run). Ids only: the
    statements are shown by a dry run's ``statements`` alone, before anything is gone."""

    scope: str
    target: str
    principal: str
    confirmed: bool
    turn_ids: list[str]
    session_ids: list[str]
    retracted: list[str]
    kept: list[str]
    rejections_kept: list[str]
    keys_destroyed: int = 0
    reason: str = ""
    statements: dict[str, str] = field(default_factory=dict)  # dry run: belief id -> text

    def as_dict(self) -> dict[str, Any]:
        out = {
            "scope": self.scope,
            "target": self.target,
            "principal": self.principal,
            "confirmed": self.confirmed,
            "turns": self.turn_ids,
            "sessions": self.session_ids,
            "retracted": self.retracted,
            "kept": self.kept,
            "rejections_kept": self.rejections_kept,
            "keys_destroyed": self.keys_destroyed,
            "reason": self.reason,
        }
        if self.statements:
            out["statements"] = self.statements
        return out


@dataclass
class _Plan:
    tenant: str
    principal: str
    sessions: list[UUID]  # forgotten whole
    turns: set[str]
    retracted: list[str] = field(default_factory=list)
    live_retracted: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    rejections_kept: list[str] = field(default_factory=list)
    keys: set[str] = field(default_factory=set)
    stale_snapshots: set[UUID] = field(default_factory=set)
    statements: dict[str, str] = field(default_factory=dict)


def forget(
    memory: Memory,
    *,
    turn: str | None = None,
    session: str | None = None,
    principal: str | None = None,
    tenant: str = DEFAULT_TENANT,
    confirm: bool = False,
    reason: str = "",
) -> ForgetReport:
    """Forget one turn, one session or one principal (module doc)."""
    named = (("turn", turn), ("session", session), ("principal", principal))
    chosen = [(kind, value) for kind, value in named if value is not None]
    if len(chosen) != 1:
        raise UsageError("forget exactly one of: a turn, a session, a principal")
    scope, target = chosen[0]
    if not str(target).strip():
        raise InvalidInput(f"forget --{scope} needs a non-empty id")
    if memory.app.keys is None:
        raise UsageError(
            "this store was opened without sealing: its text is not encrypted, so it cannot"
            " be shredded (see `log compact` in docs/operations.md)"
        )
    with memory.services.adapters.lock:
        memory.runner.catch_up()
        with event_store_errors():
            plan = _plan(memory, scope, str(target), tenant)
        report = ForgetReport(
            scope=scope,
            target=str(target),
            principal=principal_key(plan.tenant, plan.principal),
            confirmed=confirm,
            turn_ids=sorted(plan.turns),
            session_ids=sorted(str(s) for s in plan.sessions),
            retracted=plan.retracted,
            kept=plan.kept,
            rejections_kept=plan.rejections_kept,
            reason=reason,
            statements={} if confirm else plan.statements,
        )
        if not confirm:
            return report
        destroyed = _execute(memory, plan, scope, str(target), reason)
    return replace(report, keys_destroyed=destroyed)


def _plan(memory: Memory, scope: str, target: str, tenant: str) -> _Plan:
    if scope == "principal":
        sessions = _principal_sessions(memory, tenant, target)
        if not sessions:
            raise InvalidInput(f"no sessions of principal {target!r} in this store")
        plan = _Plan(tenant, target, sessions, set())
        for session_id in sessions:
            plan.turns |= {e.turn_id for e in _events(memory, session_id, "TurnRecorded")}
    else:
        session_id = _session_of_turn(memory, target) if scope == "turn" else _uuid(target)
        owner = memory.session(str(session_id))
        whole = [session_id] if scope == "session" else []
        plan = _Plan(owner.tenant, owner.principal, whole, set())
        turns = {e.turn_id for e in _events(memory, session_id, "TurnRecorded")}
        plan.turns = turns if scope == "session" else {target}
        for facts in _events(memory, session_id, "FactsEstablished"):
            cited = {str(i) for fact in facts.facts for i in fact.get("source_event_ids", [])}
            if scope == "session" or cited & plan.turns:
                plan.keys.add(facts_key(str(session_id), facts.originator_version))
        plan.keys |= {turn_key(t) for t in plan.turns}
        for whole_session in whole:
            plan.keys |= {session_snapshot_key(str(whole_session)), state_key(str(whole_session))}
        plan.stale_snapshots |= set(whole) | {session_id}
    _classify(memory, plan, everything=scope == "principal")
    if scope != "principal":
        _stale_session_snapshots(memory, plan)
    plan.stale_snapshots.add(principal_aggregate_id(principal=plan.principal, tenant=plan.tenant))
    return plan


def _classify(memory: Memory, plan: _Plan, *, everything: bool) -> None:
    """Sort the principal's beliefs by what forgetting does to each (module doc)."""
    for record in memory.index.beliefs(principal_key(plan.tenant, plan.principal)):
        sources = set(record.source_event_ids)
        touched = sources & plan.turns
        if not everything and not touched:
            continue
        if everything or touched == sources:
            if record.status == Status.REJECTED and not everything:
                plan.rejections_kept.append(record.belief_id)
                continue
            plan.retracted.append(record.belief_id)
            plan.statements[record.belief_id] = record.statement
            plan.keys.add(belief_key(record.belief_id))
            if record.status in LIVE_STATUSES:
                plan.live_retracted.append(record.belief_id)
        else:
            plan.kept.append(record.belief_id)


def _stale_session_snapshots(memory: Memory, plan: _Plan) -> None:
    """The principal's sessions whose session snapshot rendered a retracted belief: its
    rendering is shredded (a forgetting is the one change a frozen prefix takes)."""
    shredded = set(plan.retracted)
    if not shredded:
        return
    for session_id in _principal_sessions(memory, plan.tenant, plan.principal):
        for taken in _events(memory, session_id, "SessionSnapshotTaken"):
            if shredded & set(taken.belief_ids):
                plan.keys.add(session_snapshot_key(str(session_id)))
                plan.stale_snapshots.add(session_id)


def _execute(memory: Memory, plan: _Plan, scope: str, target: str, reason: str) -> int:
    from memory_es.domain.principal import PrincipalMemory
    from memory_es.policy import formation_policy

    app = memory.app
    keys = app.keys
    assert keys is not None  # checked by forget()
    at = iso(memory.clock.now())
    with event_store_errors():
        aggregate: Any = app.repository.get(
            principal_aggregate_id(principal=plan.principal, tenant=plan.tenant)
        )
        if not isinstance(aggregate, PrincipalMemory):
            raise InvalidInput(f"no memory for principal {plan.principal!r}")
        records = {
            r.belief_id: r for r in memory.index.beliefs(principal_key(plan.tenant, plan.principal))
        }
        for belief_id in plan.live_retracted:
            aggregate.retire_belief(
                belief_id=belief_id,
                confidence=records[belief_id].confidence,
                valid_to=at,
                reason=FORGOTTEN_REASON,
                policy=formation_policy(),
            )
        aggregate.record_forgetting(
            scope=scope,
            target=target,
            turn_ids=sorted(plan.turns),
            session_ids=sorted(str(s) for s in plan.sessions),
            retracted=plan.retracted,
            kept=plan.kept,
            reason=reason,
            at=at,
        )
        app.save(aggregate)
        if scope == "principal":
            destroyed = keys.destroy_owner(principal_key(plan.tenant, plan.principal))
        else:
            destroyed = keys.destroy(sorted(plan.keys))
        # Texts this process sealed and its projector has not read back: gone with their
        # keys (the handoff takes none whose key is destroyed; this drops them all).
        forget_handoff = getattr(app.mapper, "forget_handoff", None)
        if forget_handoff is not None:
            forget_handoff()
        delete_snapshots(app, plan.stale_snapshots)
        evict_cache(app)
    memory.rebuild_projections(resume=False)
    if memory.spec.kind == "sqlite":
        compact_sqlite_file(memory.spec.sqlite_path)
    return destroyed


def compact_sqlite_file(path: str) -> None:
    """Rewrite the SQLite file without free pages and empty its WAL: the read model's old
    rows (dropped by the rebuild) and deleted snapshots leave no bytes behind."""
    db = sqlite3.connect(path, timeout=30, isolation_level=None)
    try:
        db.execute("PRAGMA secure_delete = ON")
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        db.execute("VACUUM")
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        db.close()


def _uuid(text: str) -> UUID:
    try:
        return UUID(text)
    except ValueError:
        raise InvalidInput(f"not a session id: {text!r}") from None


def _events(memory: Memory, session_id: UUID, kind: str) -> Iterator[Any]:
    for event in memory.session_events(session_id):
        if type(event).__qualname__ == f"Session.{kind}":
            yield event


def _clear_states(memory: Memory, topic: str) -> Iterator[tuple[UUID, dict[str, Any]]]:
    """(originator, clear fields) of every stored event of the topic, in log order: ids
    and names are never sealed, so nothing is decrypted."""
    recorder = memory.app.recorder
    decode = memory.app.mapper.transcoder.decode
    after = 0
    while True:
        page = recorder.select_notifications(
            start=after, limit=_PAGE, topics=[topic], inclusive_of_start=False
        )
        if not page:
            return
        for n in page:
            yield UUID(str(n.originator_id)), decode(bytes(n.state))
        after = page[-1].id


def _session_of_turn(memory: Memory, turn_id: str) -> UUID:
    for session_id, state in _clear_states(memory, _SESSION + "TurnRecorded"):
        if state.get("turn_id") == turn_id:
            return session_id
    raise InvalidInput(f"no turn {turn_id!r} in this store")


def _principal_sessions(memory: Memory, tenant: str, principal: str) -> list[UUID]:
    found = [
        session_id
        for session_id, state in _clear_states(memory, _SESSION + "Opened")
        if state.get("tenant") == tenant and state.get("principal") == principal
    ]
    return found
