"""The service layer: units of work, the one retry loop, the one retriever."""

from __future__ import annotations

import ast
import threading
from pathlib import Path
from typing import Any

import pytest
from eventsourcing.persistence import IntegrityError, RecordConflictError

import memory_es
from memory_es.errors import MemoryEsError, WriteConflict
from memory_es.ports import FixedClock
from memory_es.services import unit_of_work
from tests.test_vector_arm import HYBRID, ConceptEmbedder

ROOT = Path(__file__).resolve().parents[1]
WRITERS = 8
WRITES_PER_WRITER = 3


def _form(memory: memory_es.Memory, principal: str, *texts: str) -> None:
    session = memory.open_session(principal)
    for text in texts:
        memory.say(session, text)
    memory.close_session(session)


# -- one retriever --------------------------------------------------------------------------


def test_the_context_packs_recall_is_memory_recall_with_the_vector_arm_on(
    clock: FixedClock,
) -> None:
    with memory_es.open(
        "memory://", clock=clock, profile=HYBRID, embedder=ConceptEmbedder()
    ) as memory:
        _form(memory, "alice", "My wife is Morgan. I live in Oslo.", "I like green tea.")
        session = memory.open_session("alice")
        query = "Who is my husband?"  # no lexeme matches: only the vector arm finds it
        pack = memory.context(session, query)
        recalled = memory.recall("alice", query, limit=memory.profile.context.recall_max_items)
        assert [s.record.statement for s in recalled.items][:1] == ["User's wife is Morgan."]
        assert [i.belief_id for i in pack.recall] == [s.record.belief_id for s in recalled.items]


# -- the one retry loop ------------------------------------------------------------------------


def _always_losing(memory: memory_es.Memory, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    saves: list[int] = []

    def losing_save(*aggregates: Any) -> None:
        saves.append(len(aggregates))
        raise RecordConflictError("another writer saved this principal first")

    monkeypatch.setattr(memory.app, "save", losing_save)
    monkeypatch.setattr(unit_of_work.time, "sleep", lambda seconds: None)
    return saves


def test_a_command_that_keeps_losing_the_race_raises_the_librarys_error_naming_the_principal(
    clock: FixedClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    with memory_es.open("memory://", clock=clock) as memory:
        session = memory.open_session("alice")
        head = memory.projection_status().log_head
        saves = _always_losing(memory, monkeypatch)
        with pytest.raises(WriteConflict, match=r"principal default/alice.*retry") as raised:
            memory.say(session, "I live in Oslo.")
        assert isinstance(raised.value, MemoryEsError)
        assert not isinstance(raised.value, RecordConflictError)
        assert len(saves) == raised.value.attempts == unit_of_work.MAX_ATTEMPTS
        monkeypatch.undo()
        assert memory.projection_status().log_head == head  # nothing was written
        assert memory.session_turns(session) == []


def test_an_ingest_batch_that_keeps_losing_raises_the_librarys_error(
    clock: FixedClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memory_es import ingest as ingest_module

    with memory_es.open("memory://", clock=clock) as memory:

        def losing(*args: object) -> None:
            raise RecordConflictError("another writer saved first")

        monkeypatch.setattr(ingest_module, "save_collected", losing)
        monkeypatch.setattr(unit_of_work.time, "sleep", lambda seconds: None)
        line = '{"principal": "bo", "session": "s", "at": "2026-03-02T09:00:00Z", "text": "Hi."}'
        with pytest.raises(WriteConflict, match="default/bo"):
            memory.ingest([line])
        assert memory.projection_status().log_head == 0


def test_the_retry_gives_up_when_its_time_budget_is_spent(
    clock: FixedClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    with memory_es.open("memory://", clock=clock) as memory:
        session = memory.open_session("alice")
        saves = _always_losing(memory, monkeypatch)
        instants = iter(float(n) * unit_of_work.RETRY_BUDGET_SECONDS / 2 for n in range(100))
        monkeypatch.setattr(unit_of_work.time, "monotonic", lambda: next(instants))
        with pytest.raises(WriteConflict):
            memory.say(session, "I live in Oslo.")
        assert len(saves) == 2


def test_sqlites_integrity_error_on_a_version_race_is_retried(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two processes appending one aggregate's next version on SQLite collide on the
    (originator_id, originator_version) key: sqlite3.IntegrityError, which eventsourcing
    raises as its IntegrityError (a RecordConflictError). The loser is re-run."""
    with memory_es.open(f"sqlite:///{tmp_path / 'r.db'}") as memory:
        session = memory.open_session("alice")
        real_save = memory.app.save
        calls: list[int] = []

        def racing_save(*aggregates: Any) -> Any:
            calls.append(1)
            if len(calls) == 1:
                raise IntegrityError("UNIQUE constraint failed: stored_events.originator_id")
            return real_save(*aggregates)

        monkeypatch.setattr(memory.app, "save", racing_save)
        receipt = memory.say(session, "I live in Oslo.")
        assert len(calls) == 2 and receipt.seq == 1
        assert [t.text for t in memory.session_turns(session)] == ["I live in Oslo."]


def test_eight_writers_on_one_principal_lose_nothing(persistent_store_url: str) -> None:
    """Eight stores open on one database, each writing the same principal at once."""
    memory_es.open(persistent_store_url).close()  # create the tables before the race
    stores = [memory_es.open(persistent_store_url) for _ in range(WRITERS)]
    barrier = threading.Barrier(WRITERS)
    failures: list[BaseException] = []

    def write(writer: int, memory: memory_es.Memory) -> None:
        try:
            barrier.wait(timeout=60)
            for n in range(WRITES_PER_WRITER):
                _form(memory, "shared", f"I live in City{writer}x{n}.")
        except BaseException as error:
            failures.append(error)

    threads = [threading.Thread(target=write, args=(w, m)) for w, m in enumerate(stores)]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=300)
    finally:
        for memory in stores:
            memory.close()
    assert failures == []
    with memory_es.open(persistent_store_url) as memory:
        statements = {b.statement for b in memory.list_beliefs("shared")}
        assert statements == {
            f"User lives in City{w}x{n}." for w in range(WRITERS) for n in range(WRITES_PER_WRITER)
        }
        status = memory.projection_status()
        assert status.tracked_position == status.log_head


# -- the shape: a thin facade, no reach into it ------------------------------------------------


def _memory_private_members() -> set[str]:
    """The facade's private members as memory_es/app.py defines them now: its methods and
    class attributes, and what its methods assign to ``self`` (read from the source, so
    the guard follows the class instead of a list of names it once had)."""
    tree = ast.parse((ROOT / "memory_es" / "app.py").read_text())
    facade = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Memory")
    names = {
        target.id if isinstance(target, ast.Name) else node.name
        for node in facade.body
        for target in (
            node.targets
            if isinstance(node, ast.Assign)
            else [node.target]
            if isinstance(node, ast.AnnAssign)
            else [node]
            if isinstance(node, ast.FunctionDef)
            else []
        )
        if isinstance(target, ast.Name | ast.FunctionDef)
    }
    names |= {
        node.attr
        for node in ast.walk(facade)
        if isinstance(node, ast.Attribute)
        and isinstance(node.ctx, ast.Store)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
    }
    return {n for n in names if n.startswith("_") and not n.startswith("__")}


def _python_files() -> list[Path]:
    return [
        p
        for folder in ("memory_es", "projections", "benchmarks", "migrations")
        if (ROOT / folder).is_dir()
        for p in (ROOT / folder).rglob("*.py")
    ]


def test_no_module_reaches_into_the_facades_private_members() -> None:
    private = _memory_private_members()
    assert "_traces" in private  # the guard reads the members the facade has
    facade = ROOT / "memory_es" / "app.py"
    reaches = [
        f"{path.relative_to(ROOT)}:{node.lineno} .{node.attr}"
        for path in _python_files()
        if path.resolve() != facade.resolve()
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Attribute) and node.attr in private
    ]
    assert reaches == []


def test_the_services_never_import_the_facade() -> None:
    importers = []
    for path in (ROOT / "memory_es" / "services").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = (
                [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else []
            )
            importers += [f"{path.name}: {n}" for n in names if n.startswith("memory_es.app")]
    assert importers == []


def test_every_command_is_a_row_of_the_one_handler_table() -> None:
    # One way in: every Command subclass the library defines has exactly one handler, in
    # the one table the bus reads; a command made of commands is a Composite row.
    from memory_es.evidence import handlers as evidence
    from memory_es.lifecycle import commands as lifecycle
    from memory_es.review import commands as review
    from memory_es.services import commands, formation_commands, handlers

    defined = {
        value
        for module in (commands, formation_commands, lifecycle, review, evidence)
        for value in vars(module).values()
        if isinstance(value, type)
        and issubclass(value, commands.Command)
        and value is not commands.Command
    }
    table = handlers.handler_table()
    assert set(table) == defined
    composite = {c.__name__ for c, h in table.items() if isinstance(h, handlers.Composite)}
    assert composite == {"Remember", "SweepIdle", "Rederive", "SweepDecay", "SweepL1"}
    assert all(callable(h) for h in table.values() if not isinstance(h, handlers.Composite))


def test_a_composite_command_refuses_to_run_inside_another_unit_of_work() -> None:
    from memory_es.services import commands, handlers

    with pytest.raises(TypeError, match="made of commands"):
        handlers.handle_in(commands.SweepIdle(dry_run=True), None)  # type: ignore[arg-type]


def test_the_maintenance_sweeps_run_through_the_bus(monkeypatch: pytest.MonkeyPatch) -> None:
    from memory_es.services import CommandBus

    seen: list[str] = []
    real = CommandBus.handle

    def spy(bus: CommandBus, command: Any) -> Any:
        seen.append(type(command).__name__)
        return real(bus, command)

    monkeypatch.setattr(CommandBus, "handle", spy)
    with memory_es.open("memory://") as memory:
        report = memory.run_maintenance(dry_run=True)
    assert {"SweepIdle", "SweepDecay", "SweepL1"} <= set(seen)
    assert report.decay.dry_run and report.l1.dry_run
