"""Command handlers: each takes its command and a unit of work, and commits once.

Sessions (open, say) and formation (close and consolidate, established facts, the
remember tool's turn, durable rejection, governed replay, one principal's
re-derivation), and the one table of every command's handler (``handler_for``). A
handler reads aggregates from ``uow.sessions`` / ``uow.principals``, calls the pure
domain, adds what it changed and calls ``uow.commit()``; it reads the clock, ids,
extractor and read model from the unit of work, never from the ``Memory`` facade.
Commands made of other commands (the remember tool, the idle sweep, the whole
re-derivation) are in ``memory_es/services/composites.py``, the lifecycle's handlers
and sweeps in ``memory_es/lifecycle/``; all are rows of the table.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from functools import partial
from typing import TYPE_CHECKING, Any
from uuid import UUID

from memory_es.domain.inputs import clean_name, clean_text, clean_turn
from memory_es.domain.session import Session
from memory_es.domain.values import (
    GENERAL_SCOPE,
    SHORT_ID_REF,
    Authority,
    Role,
    Status,
    normalize_name,
    split_principal_identity,
)
from memory_es.errors import InvalidInput, UnknownBelief, UnknownSession, UsageError
from memory_es.formation.hazards import Screened, screen
from memory_es.ports import iso
from memory_es.projections.records import BeliefRecord, principal_key
from memory_es.services import commands
from memory_es.services.results import TurnReceipt
from memory_es.services.unit_of_work import UnitOfWork, parse_session_id

if TYPE_CHECKING:
    from memory_es.domain.principal import PrincipalMemory
    from memory_es.formation.consolidation import ConsolidationResult
    from memory_es.formation.corrections import CorrectionTarget
    from memory_es.formation.extractor import SourceTurn
    from memory_es.formation.rederive import Rederivation, SessionInput
    from memory_es.projections.base import RecallIndex
    from memory_es.services.formation_results import FactsReceipt
    from memory_es.services.messagebus import CommandBus

# Formation, the session snapshot (the recall stack) and the policy are imported by the
# handlers that use them: `say` records a turn without loading them.

# -- sessions ------------------------------------------------------------------------------


def open_session(cmd: commands.OpenSession, uow: UnitOfWork) -> str:
    # Names as every read keys them (memory_es/domain/inputs.py).
    principal = clean_name(cmd.principal or "", what="a principal")
    tenant = clean_name(cmd.tenant or "", what="a tenant")
    project = normalize_name(cmd.project or "")
    project = clean_name(project, what="a project") if project else GENERAL_SCOPE
    now = uow.clock.now()
    session = Session(
        id=UUID(cmd.session_id or uow.ids.new_id()),
        tenant=tenant,
        principal=principal,
        project=project,
        opened_at=iso(now),
    )
    if cmd.snapshot:
        from memory_es.context.snapshot import take_session_snapshot

        uow.catch_up()  # another process may have written since
        frozen = take_session_snapshot(
            uow.retriever,
            principal_key(tenant, principal),
            project=session.project,
            session_id=str(session.id),
            now=now,
        )
        session.take_session_snapshot(frozen)
    uow.sessions.add(session)
    uow.commit()
    return str(session.id)


# How much of each turn formation reads (characters; docs/formation.md).
FORMATION_PREFIX_CHARS = 65_536


def say(cmd: commands.Say, uow: UnitOfWork) -> TurnReceipt:
    receipt = record_turn(cmd, uow)
    uow.commit()
    return receipt


def record_turn(cmd: commands.Say, uow: UnitOfWork, *, may_form: bool = True) -> TurnReceipt:
    """``say`` without its commit: a command that records a turn with more in the same
    transaction (a turn through a declared source: memory_es/evidence/handlers.py).
    ``may_form`` False records the turn untrusted (content of an untrusted source)."""
    if not cmd.text or not cmd.text.strip():
        raise InvalidInput("a turn needs non-empty text")
    # Secrets are redacted before the event exists: the log can never be scrubbed. What
    # no store could hold is replaced or dropped before that (memory_es/domain/inputs.py).
    text, cleaned = clean_turn(cmd.text)
    session = uow.sessions.get(cmd.session_id)
    # A credential an earlier turn named screens this turn's bare values (the context
    # is the session's own, rebuilt from its turn events); so does the injection context,
    # the last words of the latest trusted user turn (an injection split over two turns).
    preceding = session.injection_context if cmd.role is Role.USER else ""
    screened = screen(text, context=session.screening_context, preceding=preceding)
    trusted = cmd.role is Role.USER and not screened.injection and may_form
    turn_id = uow.ids.new_id()
    _record_turn(
        session,
        turn_id,
        cmd.role,
        screened,
        trusted=trusted,
        at=iso(uow.clock.now()),
        cleaned_characters=cleaned,
    )
    uow.sessions.add(session)
    return TurnReceipt(
        session_id=str(session.id),
        turn_id=turn_id,
        seq=session.turn_count,
        trusted=trusted,
        redactions=screened.redactions,
        cleaned_characters=cleaned,
    )


def _record_turn(
    session: Session,
    turn_id: str,
    role: Role,
    screened: Screened,
    *,
    trusted: bool,
    at: str,
    cleaned_characters: int = 0,
) -> None:
    session.record_turn(
        turn_id=turn_id,
        role=role.value,
        text=screened.text,
        trusted=trusted,
        at=at,
        redactions=list(screened.redactions),
        hazards=list(screened.hazards),
        opens_screening=list(screened.opens),
        cleaned_characters=cleaned_characters,
    )


# -- formation -----------------------------------------------------------------------------


def session_input(uow: UnitOfWork, session: Session, principal: PrincipalMemory) -> SessionInput:
    """What formation reads of a session, from its original events: its trusted turns,
    the extractor's proposals under the current policy (corrections resolved against
    what the session can see) and the admitted established facts."""
    return events_input(
        uow,
        str(session.id),
        session.project,
        uow.sessions.events(session.id),
        targets=lambda: correction_targets(
            uow, principal, session.tenant, session.principal, session.project
        ),
    )


def events_input(
    uow: UnitOfWork,
    session_id: str,
    project: str,
    stored: Iterable[Any],
    *,
    targets: Callable[[], list[CorrectionTarget]] | None = None,
) -> SessionInput:
    """``session_input`` from the session's events, read once (re-derivation reads
    many sessions: it does not load each aggregate as well); ``targets`` gives the live
    beliefs a correction may correct, read only when one is said."""
    from memory_es.formation.corrections import resolve_corrections
    from memory_es.formation.established import EstablishedFact, established_proposals
    from memory_es.formation.rederive import SessionInput

    events = list(stored)
    turn_events = [e for e in events if isinstance(e, Session.TurnRecorded)]
    turns = source_turns(turn_events)
    facts = [
        EstablishedFact(
            statement=str(f.get("statement", "")),
            source_event_ids=tuple(str(i) for i in _as_list(f.get("source_event_ids"))),
            # Only remember --from-user records one (a fact recorded before has none).
            authority=Authority.USER if f.get("authority") == "user" else Authority.AFFIRMED,
        )
        for e in events
        if isinstance(e, Session.FactsEstablished)
        for f in e.facts
    ]
    admitted, refused_facts = established_proposals(
        facts, turns, read=lambda turn: uow.extractor.extract([turn])
    )
    # The extractor reads a bounded prefix of each turn: a megabyte pasted into one turn
    # is kept whole in the log, but the beliefs a turn states come in its opening text.
    proposals = uow.extractor.extract(
        [replace(t, text=t.text[:FORMATION_PREFIX_CHARS]) for t in turns]
    )
    if targets is not None:
        proposals = resolve_corrections(proposals, targets)
        # The remember tool's readings correct as the user's own words would; a text
        # whose only reading was a correction that found nothing to correct still forms
        # word for word, as a text no rule reads does.
        if any(p.corrects is not None for p in admitted):
            remembered = {p.source.turn_id for p in admitted}
            admitted = resolve_corrections(admitted, targets)
            kept = {p.source.turn_id for p in admitted}
            verbatim, _ = established_proposals(facts, turns)
            admitted += [
                p for p in verbatim if p.source.turn_id in remembered - kept and not p.more_sources
            ]
    return SessionInput(
        session_id=session_id,
        project=project,
        turns=tuple(turns),
        redactions=sum(len(e.redactions) for e in turn_events),
        refused=sum(1 for e in turn_events if e.hazards),
        proposals=tuple(proposals),
        established=tuple(admitted),
        established_refused=refused_facts,
    )


def consolidate_session(
    uow: UnitOfWork,
    session: Session,
    principal: PrincipalMemory,
    *,
    trigger: str,
    now: str,
) -> ConsolidationResult:
    """Formation over the session's original events, at the session's own project."""
    from memory_es.formation.rederive import consolidate_input

    return consolidate_input(
        principal,
        uow.beliefs(principal),
        session_input(uow, session, principal),
        now=now,
        ids=uow.ids,
        trigger=trigger,
        extractor=uow.extractor.name,
    )


def correction_targets(
    uow: UnitOfWork, principal: PrincipalMemory, tenant: str, name: str, project: str
) -> list[CorrectionTarget]:
    """The live beliefs the session can see, newest first: what a correction said without
    its subject may correct (memory_es/formation/corrections.py)."""
    from memory_es.formation.corrections import CorrectionTarget

    # The aggregate's status, not the read model's: within one batch the read model may
    # not yet show what an earlier session of the batch superseded.
    live = (Status.ACTIVE, Status.PROVISIONAL)
    reads = uow.beliefs(principal)
    records = [
        r
        for r in uow.index.beliefs(principal_key(tenant, name))
        if reads.status_of(r.belief_id) in live and (r.project == project or r.portable)
    ]
    records.sort(key=lambda r: (r.valid_from, r.position), reverse=True)
    return [
        CorrectionTarget(
            statement=r.statement,
            belief_type=r.belief_type,
            subjects=tuple(r.subjects),
            key=reads.type_and_key(r.belief_id)[1],
            authority=r.authority,
            polarity=r.polarity,
        )
        for r in records
    ]


def close_session(cmd: commands.CloseSession, uow: UnitOfWork) -> ConsolidationResult:
    session = uow.sessions.get(cmd.session_id)
    now = iso(uow.clock.now())
    session.close(at=now, trigger=cmd.trigger)
    principal = uow.principals.get_or_create(session.tenant, session.principal)
    result = consolidate_session(uow, session, principal, trigger=cmd.trigger, now=now)
    uow.sessions.add(session)
    uow.principals.add(principal)
    # The source declaration each formed belief is written under, in the same save
    # (only for a session with evidence through a declared source: memory_es/evidence/).
    snapshot_formed_sources(uow, session, principal, result, now)
    uow.commit()
    return result


def snapshot_formed_sources(
    uow: UnitOfWork,
    session: Session,
    principal: PrincipalMemory,
    result: ConsolidationResult,
    now: str,
) -> None:
    if not result.formed:
        return
    from memory_es.evidence.handlers import snapshot_formed

    snapshot_formed(uow, session, principal, result, at=now)


def establish_facts(cmd: commands.EstablishFacts, uow: UnitOfWork) -> FactsReceipt:
    """Record facts established in an open session; formation admits them at close."""
    from memory_es.formation.established import EstablishedFact, established_proposals

    if not cmd.facts:
        raise InvalidInput("establish at least one fact")
    recorded: list[dict[str, Any]] = []
    for fact in cmd.facts:
        screened = screen(clean_text(fact.statement, what="an established fact"))
        if screened.injection:
            continue  # an instruction is not a fact; it never reaches formation
        recorded.append(
            {"statement": screened.text, "source_event_ids": list(fact.source_event_ids)}
        )
    session = uow.sessions.get(cmd.session_id)
    if recorded:
        session.establish_facts(facts=recorded, at=iso(uow.clock.now()))
        uow.sessions.add(session)
        uow.commit()
    turns = source_turns(uow.sessions.events(session.id))
    admissible, _ = established_proposals(
        [EstablishedFact(str(f["statement"]), tuple(f["source_event_ids"])) for f in recorded],
        turns,
    )
    from memory_es.services.formation_results import FactsReceipt

    return FactsReceipt(str(session.id), len(recorded), len(admissible))


def record_remembered(cmd: commands.RecordRemembered, uow: UnitOfWork) -> str:
    """The remember tool's turn: a tool turn that is its own established fact."""
    session = uow.sessions.get(cmd.session_id)
    turn_id = uow.ids.new_id()
    screened = cmd.screened
    _record_turn(
        session,
        turn_id,
        Role.TOOL,
        screened,
        trusted=not screened.injection,
        at=iso(uow.clock.now()),
    )
    fact: dict[str, object] = {"statement": screened.text, "source_event_ids": [turn_id]}
    if cmd.from_user:
        fact["authority"] = Authority.USER.name.lower()
    session.establish_facts(facts=[fact], at=iso(uow.clock.now()))
    uow.sessions.add(session)
    uow.commit()
    return turn_id


def find_belief(index: RecallIndex, ref: str, owner: str | None = None) -> BeliefRecord:
    """The one resolver of a belief reference: a full belief id, anyone's unless
    ``owner`` (a ``principal_key``) is given; or an eight-hex short id (``[m:xxxxxxxx]``
    accepted), which resolves only within ``owner``: short ids are unique per principal
    at best, so without one a short id could name another principal's belief. Another
    principal's belief is unknown, exactly as one that does not exist."""
    text = (ref or "").strip().lower()
    m = SHORT_ID_REF.match(text)
    if m is not None:
        if owner is None:
            raise UsageError(
                f"short id {m.group(1)} resolves only within a principal: pass its principal"
                " (--principal P) or the full belief id"
            )
        rows = [r for r in index.find_by_short_id(m.group(1)) if r.principal == owner]
        if len(rows) > 1:
            raise UsageError(
                f"short id {m.group(1)} is ambiguous ({len(rows)} beliefs): use the full id"
            )
        if not rows:
            raise UnknownBelief(ref)
        return rows[0]
    try:
        belief_id = str(UUID(text))
    except ValueError:
        raise UnknownBelief(ref) from None
    record = index.get(belief_id)
    if record is None or (owner is not None and record.principal != owner):
        raise UnknownBelief(ref)
    return record


def reject(cmd: commands.Reject, uow: UnitOfWork) -> BeliefRecord:
    """Durable user rejection: out of recall now, and never formed again."""
    record = find_belief(uow.index, cmd.belief_ref, cmd.owner)
    tenant, name = split_principal_identity(record.principal)
    principal = uow.principals.get_or_create(tenant, name)
    if uow.beliefs(principal).status_of(record.belief_id) is not Status.REJECTED:
        from memory_es.policy import formation_policy

        principal.reject_belief(
            belief_id=record.belief_id,
            at=iso(uow.clock.now()),
            policy=formation_policy(),
        )
        uow.principals.add(principal)
        uow.commit()
    current = uow.index.get(record.belief_id)
    assert current is not None
    return current


def replay(cmd: commands.ReplaySession, uow: UnitOfWork) -> ConsolidationResult:
    """Re-consolidate a closed session from its original turns under today's policy.

    Opt-in: refused without ``confirm``. Rejections are consulted before anything
    commits, so nothing the user rejected returns; evidence no newer than the belief
    standing in its place conflicts with it rather than reverting it."""
    if not cmd.confirm:
        raise UsageError(
            "replay re-runs formation over the session's original turns under the current"
            " policy; it is opt-in: pass --confirm (confirm=True) to do it"
        )
    session = uow.sessions.get(cmd.session_id)
    if not session.is_closed:
        raise UsageError(f"session {cmd.session_id} is open: close it, which runs formation")
    principal = uow.principals.get_or_create(session.tenant, session.principal)
    now = iso(uow.clock.now())
    result = consolidate_session(uow, session, principal, trigger="replay", now=now)
    uow.principals.add(principal)
    uow.commit()
    return result


def rederive_principal(cmd: commands.RederivePrincipal, uow: UnitOfWork) -> Rederivation:
    """One principal's stale sessions re-derived in order under the current policy, in
    one transaction with their ``SessionsRederived`` record; a dry run decides the same
    events and discards them (nothing is written: the unit of work leaves uncommitted)."""
    from memory_es.formation.rederive import rederive
    from memory_es.policy import formation_key
    from memory_es.services.ledger import consolidated_since

    principal = uow.principals.get_or_create(cmd.tenant, cmd.principal)
    # Never twice: what was consolidated under the current policy since the ledger was
    # read (a concurrent run, or this one's attempt that lost a race) is left alone.
    current = formation_key(uow.extractor.name)
    since = consolidated_since(uow.principals.events_since(principal, cmd.seen_version))
    done = [s for s in cmd.session_ids if since.get(s) == current]
    sessions = []
    for session_id in cmd.session_ids:
        if session_id in done:
            continue
        events = list(uow.sessions.events(parse_session_id(session_id)))
        opened = events[0] if events else None
        if not isinstance(opened, Session.Opened):
            raise UnknownSession(session_id)
        # The ledger lists consolidated sessions, which are closed ones.
        if any(isinstance(e, Session.Closed) for e in events):
            targets = partial(
                correction_targets, uow, principal, cmd.tenant, cmd.principal, opened.project
            )
            sessions.append(events_input(uow, session_id, opened.project, events, targets=targets))
    uow.catch_up()  # the rows the retirements read (confidence, statement) are current
    records = {r.belief_id: r for r in uow.index.beliefs(principal_key(cmd.tenant, cmd.principal))}
    result = rederive(
        principal,
        uow.beliefs(principal),
        sessions,
        records=records,
        now=iso(uow.clock.now()),
        ids=uow.ids,
        extractor=uow.extractor.name,
        skipped=cmd.skipped + len(done),
    )
    if not result.sessions_examined:
        return result  # nothing was decided, nothing changed
    # Added either way: a dry run leaves the unit of work with it uncommitted, which
    # discards its events and evicts the mutated aggregate from the cache.
    uow.principals.add(principal)
    if cmd.confirm:
        uow.commit()
    return result


def source_turns(events: Iterable[Any]) -> list[SourceTurn]:
    """The turns among a session's events, as formation reads them; a forgotten turn
    (its text shredded: memory_es/sealing.py) is no evidence for anything."""
    from memory_es.formation.extractor import SourceTurn
    from memory_es.sealing import FORGOTTEN

    return [
        SourceTurn(
            turn_id=e.turn_id, seq=e.seq, role=e.role, text=e.text, trusted=e.trusted, at=e.at
        )
        for e in events
        if isinstance(e, Session.TurnRecorded) and e.text != FORGOTTEN
    ]


def _as_list(value: object) -> list[object]:
    return list(value) if isinstance(value, list | tuple) else []


Handler = Callable[[Any, UnitOfWork], Any]


@dataclass(frozen=True)
class Composite:
    """A command made of commands: ``run(command, bus)`` hands each step to the bus."""

    run: Callable[[Any, CommandBus], Any]


# The one handler table, command class -> its handler. A session's own commands (open,
# say) are in it from the start; every other command joins it on the first lookup of
# one, so a turn imports no formation command, no lifecycle module and no profile.
_TABLE: dict[type[Any], Handler | Composite] = {
    commands.OpenSession: open_session,
    commands.Say: say,
}
_COMPLETE = False


def _every_handler() -> dict[type[Any], Handler | Composite]:
    """The table's full form. To add a command: its class (a commands module), its
    handler (a function of (command, uow), or of (command, bus) wrapped in Composite),
    and its row here (docs/architecture.md, "Adding a command")."""
    # The lifecycle builds on this package (its handlers take this unit of work): read
    # here, at run time, not at import.
    from memory_es.evidence.handlers import HANDLERS as EVIDENCE_HANDLERS
    from memory_es.lifecycle import commands as lifecycle
    from memory_es.lifecycle import handlers as lifecycle_handlers
    from memory_es.lifecycle import sweeps
    from memory_es.review.handlers import HANDLERS as REVIEW_HANDLERS
    from memory_es.services import composites
    from memory_es.services import formation_commands as formation

    return {
        commands.OpenSession: open_session,
        commands.Say: say,
        formation.CloseSession: close_session,
        formation.EstablishFacts: establish_facts,
        formation.RecordRemembered: record_remembered,
        formation.Reject: reject,
        formation.ReplaySession: replay,
        formation.RederivePrincipal: rederive_principal,
        formation.Remember: Composite(composites.remember),
        formation.SweepIdle: Composite(composites.sweep_idle),
        formation.Rederive: Composite(composites.rederive),
        lifecycle.ApplyDecay: lifecycle_handlers.apply_decay,
        lifecycle.Deactivate: lifecycle_handlers.deactivate,
        lifecycle.EndSession: lifecycle_handlers.end_session,
        lifecycle.Reactivate: lifecycle_handlers.reactivate,
        lifecycle.SetPinned: lifecycle_handlers.set_pinned,
        lifecycle.Confirm: lifecycle_handlers.confirm,
        lifecycle.RecordUsage: lifecycle_handlers.record_usage,
        lifecycle.SweepDecay: Composite(sweeps.sweep_decay),
        lifecycle.SweepL1: Composite(sweeps.sweep_l1),
        **REVIEW_HANDLERS,  # L2 review (memory_es/review/handlers.py)
        **EVIDENCE_HANDLERS,  # source declarations (memory_es/evidence/handlers.py)
    }


def handler_table() -> dict[type[Any], Handler | Composite]:
    """The whole table (built whole, then published: a thread never sees part of it)."""
    global _TABLE, _COMPLETE
    if not _COMPLETE:
        _TABLE = _every_handler()
        _COMPLETE = True
    return _TABLE


def handler_for(command_type: type[Any]) -> Handler | Composite:
    handler = _TABLE.get(command_type) or handler_table().get(command_type)
    if handler is None:
        raise LookupError(f"no handler for the command {command_type.__name__}")
    return handler


def handle_in(command: commands.Command[Any], uow: UnitOfWork) -> Any:
    """Run one command's handler in a unit of work the caller manages (a batch)."""
    handler = handler_for(type(command))
    if isinstance(handler, Composite):
        raise TypeError(f"{type(command).__name__} is made of commands: hand it to the bus")
    return handler(command, uow)
