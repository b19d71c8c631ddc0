"""`memory-es --help` starts light (issue 13): the parser is built from light modules only.

Every ``memory_es/cli/*_cmds.py`` module registers its parser without importing the
store, the recall stack, numpy or pydantic; a command's implementation imports what it
needs when it runs. A new command that imports a heavy module at the top fails here.
"""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = (
    "numpy",
    "pydantic",
    "yaml",
    "eventsourcing",
    "psycopg",
    "memory_es.app",
    "memory_es.retrieval.recall",
    "memory_es.profiles",
    "projections",
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
    heavy = sorted(m for m in loaded if m in HEAVY or m.split(".")[0] in {"numpy", "pydantic"})
    assert heavy == []


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
    assert not [m for m in HEAVY if m in loaded]


def test_the_probe_would_see_a_heavy_import() -> None:
    # The check itself works: a heavy import before building the parser shows up.
    loaded = _modules_after("import memory_es.retrieval.recall\n" + PROBE)
    assert {"numpy", "memory_es.retrieval.recall"} <= loaded
