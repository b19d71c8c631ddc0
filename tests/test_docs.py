"""The README and docs never rot: their snippets run here.

``python`` blocks are executed; ``console`` blocks run as one bash script in a fresh
folder, and the output lines they show must be what the commands print (``xxxxxxxx``
stands for any eight hex digits: a short id).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```(\w+)\n(.*?)^```", re.S | re.M)


def blocks(kind: str) -> list[tuple[str, str]]:
    found = []
    for path in DOCS:
        for number, match in enumerate(FENCE.finditer(path.read_text()), start=1):
            if match.group(1) == kind:
                found.append((f"{path.name}#{number}", match.group(2)))
    return found


def test_the_docs_have_runnable_snippets() -> None:
    assert blocks("python") and blocks("console")


@pytest.mark.parametrize("name, code", blocks("python"), ids=[n for n, _ in blocks("python")])
def test_python_snippet_runs(
    name: str, code: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    exec(compile(code, name, "exec"), {"__name__": "__snippet__"})


@pytest.mark.parametrize("name, block", blocks("console"), ids=[n for n, _ in blocks("console")])
def test_console_snippet_prints_what_it_shows(name: str, block: str, tmp_path: Path) -> None:
    commands, expected = [], []
    for line in block.splitlines():
        if line.startswith("$ "):
            commands.append(line[2:])
        elif line.strip():
            expected.append(line)
    script = "set -euo pipefail\n" + "\n".join(commands) + "\n"
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env.pop("MEMORY_ES_STORE", None)
    done = subprocess.run(
        ["bash", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    printed = done.stdout.splitlines()
    assert len(printed) == len(expected), done.stdout
    for shown, got in zip(expected, printed, strict=True):
        pattern = re.escape(shown).replace("xxxxxxxx", "[0-9a-f]{8}")
        assert re.fullmatch(pattern, got), (shown, got)
