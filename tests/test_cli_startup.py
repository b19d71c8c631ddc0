"""Light commands start light: the one rule, memory_es/startup.py, held command by command.

Each probe runs a command in a fresh interpreter and lists what it loaded; a module the
rule names for that command fails it (a new command that imports a heavy module at the
top of its ``memory_es/cli/*_cmds.py`` fails the parser's probe).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import memory_es
from memory_es.profile_document import PROFILE_ENV, SHIPPED_SEMANTIC_ENABLED
from memory_es.profiles import resolve_profile, shipped_document
from memory_es.startup import (
    PARSER_MUST_NOT_IMPORT,
    RECALL_MUST_NOT_IMPORT,
    SAY_MUST_NOT_IMPORT,
    breaks_rule,
)

PROBE = """
import json, sys
import memory_es.cli
memory_es.cli.build_parser()
print(json.dumps(sorted(sys.modules)))
"""


def _modules_after(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    return set(json.loads(out))


def test_building_the_parser_imports_nothing_heavy() -> None:
    loaded = _modules_after(PROBE)
    assert "memory_es.cli" in loaded  # the probe ran
    assert breaks_rule(loaded, PARSER_MUST_NOT_IMPORT) == []


def test_help_prints_and_imports_nothing_heavy() -> None:
    code = (
        "import json, sys, contextlib, io\n"
        "import memory_es.cli\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out):\n"
        "    try:\n"
        "        memory_es.cli.main(['--help'])\n"
        "    except SystemExit:\n"
        "        pass\n"
        "assert 'session' in out.getvalue()\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    loaded = _modules_after(code)
    assert breaks_rule(loaded, PARSER_MUST_NOT_IMPORT) == []


def test_the_probe_would_see_a_heavy_import() -> None:
    # The check itself works: a heavy import before building the parser shows up.
    loaded = _modules_after("import numpy, memory_es.retrieval.recall\n" + PROBE)
    assert {"numpy", "memory_es.retrieval.recall"} <= loaded


# `memory-es session say` is the call an agent hook makes on every turn (the bench's
# `cli.say_cpu_ratio` measures it).
SAY_PROBE = """
import json, sys, contextlib, io
import memory_es.cli
out = io.StringIO()
with contextlib.redirect_stdout(out):
    code = memory_es.cli.main(sys.argv[1:])
assert code == 0 and "recorded" in out.getvalue(), out.getvalue()
print(json.dumps(sorted(sys.modules)))
"""


def _cli(store: str, *argv: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "memory_es", "--store", store, *argv],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def test_session_say_imports_nothing_heavy(tmp_path: Path) -> None:
    store = f"sqlite:///{tmp_path / 'memory.db'}"
    session_id = _cli(store, "session", "open", "--principal", "alice")
    env = {k: v for k, v in os.environ.items() if k != PROFILE_ENV}
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            SAY_PROBE,
            "--store",
            store,
            "session",
            "say",
            session_id,
            "I prefer green tea",
        ],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    ).stdout
    loaded = set(json.loads(out))
    # The probe ran the whole command: the store, its read model and the service layer.
    assert {
        "memory_es.projections.sqlite",
        "memory_es.projections.projector",
        "memory_es.services.handlers",
    } <= loaded
    assert breaks_rule(loaded, SAY_MUST_NOT_IMPORT) == []
    # The hazard screen runs (its patterns come from the cache, memory_es/pattern_cache.py).
    assert {"memory_es.formation.hazards", "memory_es.pattern_cache"} <= loaded
    # The turn was recorded and projected (the read model caught up in the same command).
    with memory_es.open(store) as memory:
        assert [t.text for t in memory.session_turns(session_id)] == ["I prefer green tea"]
        status = memory.projection_status()
        assert status.lag == 0 and status.tracked_position == status.log_head


def test_the_shipped_profiles_vector_arm_is_what_open_assumes() -> None:
    # memory_es.open decides the vector arm from this constant (no yaml, no pydantic) when
    # no overlay is given: it must be the shipped file's value.
    retrieval = shipped_document()["retrieval"]
    assert retrieval["semantic_enabled"] is SHIPPED_SEMANTIC_ENABLED
    assert resolve_profile().retrieval.semantic_enabled is SHIPPED_SEMANTIC_ENABLED


ARGVS = (
    ["session", "say", "0b1c2d3e-0000-4000-8000-000000000000", "hello", "--role", "assistant"],
    [
        "--store",
        "sqlite:///x.db",
        "--now",
        "2026-01-01T00:00:00Z",
        "recall",
        "--principal",
        "a",
        "q",
    ],
    ["--sto=sqlite:///x.db", "memory", "list", "--principal", "a"],
    ["--profile", "p.yaml", "eval", "formation", "--json"],
    ["eval", "memory-benchmark"],
    ["stats", "--principal", "a"],
    ["projections", "status"],
    ["--store", "recall", "session", "open", "--principal", "a"],  # --store's value is "recall"
)


def test_a_command_parses_as_the_full_parser_parses_it() -> None:
    # A command's own parser (cli/COMMANDS) reads its arguments as the parser of every
    # command does; what names no command cleanly gets the full parser.
    from memory_es.cli import COMMANDS, build_parser, command_named

    full = build_parser()
    for argv in ARGVS:
        command = command_named(argv)
        assert command in COMMANDS, argv
        own = build_parser(command).parse_args(argv)
        assert vars(own) == vars(full.parse_args(argv)), argv
    for argv in (["--help"], [], ["-h", "session"], ["bogus"], ["--store"], ["--bogus", "recall"]):
        assert command_named(argv) is None, argv
    # Every command the full parser knows is in the table, in the order --help lists them.
    subparsers = next(a for a in full._actions if a.dest == "command")
    assert list(subparsers.choices) == list(COMMANDS)  # type: ignore[attr-defined]


RECALL_PROBE = """
import json, sys, contextlib, io
import memory_es.cli
out = io.StringIO()
with contextlib.redirect_stdout(out):
    code = memory_es.cli.main(sys.argv[1:])
assert code == 0 and "green tea" in out.getvalue(), out.getvalue()
print(json.dumps(sorted(sys.modules)))
"""


def test_recall_imports_no_other_language_and_no_profile_validation(tmp_path: Path) -> None:
    store = f"sqlite:///{tmp_path / 'memory.db'}"
    _cli(store, "memory", "remember", "--principal", "alice", "I prefer green tea")
    env = {k: v for k, v in os.environ.items() if k != PROFILE_ENV}
    probe = [sys.executable, "-c", RECALL_PROBE, "--store", store]
    argv = ["recall", "--principal", "alice", "which tea do I like"]
    out = subprocess.run(
        [*probe, *argv], capture_output=True, text=True, check=True, env=env
    ).stdout
    loaded = set(json.loads(out))
    assert {"memory_es.retrieval.recall", "memory_es.retrieval.tokenizer"} <= loaded
    assert breaks_rule(loaded, RECALL_MUST_NOT_IMPORT) == []
    # An overlay is read and validated as before (pydantic, yaml), and still ranks.
    overlay = tmp_path / "operator.yaml"
    overlay.write_text("retrieval:\n  ranking_weights:\n    confidence: 0.7\n")
    out = subprocess.run(
        [*probe, "--profile", str(overlay), *argv],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    ).stdout
    assert {"pydantic", "yaml", "memory_es.profiles"} <= set(json.loads(out))
