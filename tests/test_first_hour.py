"""A newcomer's first hour: what the command line says when a user gets
something wrong, or gets nothing back — one line, the flag or fix named, the same on
every command."""

from __future__ import annotations

import tomllib
from importlib.metadata import version
from pathlib import Path

import orjson
import pytest

import memory_es
from memory_es.cli import main
from tests.test_cli import run

ROOT = Path(__file__).resolve().parent.parent

# Every command that only reads (or changes what exists), each as a user would type it.
READS = [
    ("recall", "--principal", "ana", "where"),
    ("context", "--session", "6b1c0f7e-0000-4000-8000-000000000001", "hi"),
    ("memory", "list", "--principal", "ana"),
    ("memory", "history", "abcdef12", "--principal", "ana"),
    ("memory", "conflicts", "--principal", "ana"),
    ("stats",),
    ("projections", "status"),
    ("projections", "rebuild"),
    ("log", "export", "out.jsonl"),
    ("maintenance", "run", "--dry-run"),
    ("session", "say", "6b1c0f7e-0000-4000-8000-000000000001", "hi"),
]


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exit_:
        code = int(exit_.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_version_is_the_package_metadatas_on_the_cli_and_the_mcp_server(
    capsys: pytest.CaptureFixture[str],
) -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert version("memory-es") == pyproject["version"] == memory_es.__version__
    assert _cli(capsys, "--version") == (0, f"memory-es {pyproject['version']}\n", "")
    pytest.importorskip("mcp")
    from memory_es.mcp.server import build_server

    with memory_es.open("memory://") as memory:
        assert build_server(memory, principal="ana").version == pyproject["version"]


def test_the_license_file_is_the_licence_the_metadata_names() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    text = (ROOT / "LICENSE").read_text()
    assert pyproject["license"] == "Apache-2.0"
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert "END OF TERMS AND CONDITIONS" in text  # the full text, not a pointer to it


def test_make_clean_removes_what_the_build_and_the_tools_leave() -> None:
    recipe = (ROOT / "Makefile").read_text().split("\nclean:\n", 1)[1].splitlines()[0]
    removed = recipe.split()
    assert removed[:2] == ["rm", "-rf"]
    for leftover in ("$(VENV)", "build", "*.egg-info", ".hypothesis", ".pytest_cache"):
        assert leftover in removed


@pytest.mark.parametrize("argv", [("session", "open", "--principal", "ana"), *READS])
def test_a_postgresql_url_without_a_database_is_refused_on_every_command(
    capsys: pytest.CaptureFixture[str], argv: tuple[str, ...]
) -> None:
    code, out, err = _cli(capsys, "--store", "postgresql://postgres@127.0.0.1:5432", *argv)
    assert (code, out) == (2, "") and err.count("\n") == 1, err
    assert "names its database" in err and "postgresql://USER@HOST:PORT/memory_es" in err


@pytest.mark.parametrize("argv", READS)
def test_a_read_on_a_path_holding_no_store_says_so_and_creates_nothing(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    argv: tuple[str, ...],
) -> None:
    monkeypatch.chdir(tmp_path)
    url = f"sqlite:///{tmp_path}/nonexistent/x.db"
    code, out, err = _cli(capsys, "--store", url, *argv)
    assert (code, out) == (2, "") and err.count("\n") == 1, err
    assert f"no store at {url}" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # not even the folder


def test_an_empty_answer_says_so_on_stderr_and_exits_0(
    capsys: pytest.CaptureFixture[str], persistent_store_url: str
) -> None:
    url = persistent_store_url
    run(capsys, url, "session", "open", "--principal", "ana")
    for argv, said in (
        (("recall", "--principal", "bo", "where"), "nothing recalled: no belief of bo"),
        (("memory", "list", "--principal", "bo"), "no beliefs: memory holds nothing for bo"),
        (("memory", "conflicts", "--principal", "bo"), "no conflict awaits confirmation"),
    ):
        code, out, err = run(capsys, url, *argv)
        assert (code, out) == (0, "") and err == f"memory-es: {said}" + err.split(said, 1)[1]
        assert err.count("\n") == 1


def _two_sessions(capsys: pytest.CaptureFixture[str], url: str) -> list[str]:
    closes = []
    for now, text in (
        ("2026-03-02T09:00:00Z", "I live in Seattle."),
        ("2026-04-20T10:00:00Z", "I live in Portland now."),
    ):
        _, out, _ = run(capsys, url, "session", "open", "--principal", "ana", now=now)
        run(capsys, url, "session", "say", out.strip(), text, now=now)
        closes.append(out.strip())
    return closes


def test_session_close_prints_what_it_formed_and_json_counts(
    capsys: pytest.CaptureFixture[str], persistent_store_url: str
) -> None:
    url = persistent_store_url
    first, second = _two_sessions(capsys, url)
    code, out, _ = run(capsys, url, "session", "close", first, now="2026-03-02T09:05:00Z")
    lines = out.splitlines()
    assert code == 0 and lines[0].startswith("formed: [m:")
    assert lines[0].endswith("] User lives in Seattle.") and lines[1].startswith("closed; ")
    code, out, _ = run(
        capsys, url, "session", "close", second, "--json", now="2026-04-20T10:05:00Z"
    )
    report = orjson.loads(out)
    assert report["counts"]["committed"] == 1 and report["counts"]["superseded"] == 1
    assert len(report["formed"]) == 1 and len(report["superseded"]) == 1


def test_stats_leads_with_beliefs_sessions_and_principals(
    capsys: pytest.CaptureFixture[str], persistent_store_url: str
) -> None:
    url = persistent_store_url
    for session in _two_sessions(capsys, url):
        run(capsys, url, "session", "close", session, now="2026-04-20T10:05:00Z")
    run(capsys, url, "session", "open", "--principal", "bo")
    _, out, _ = run(capsys, url, "stats")
    assert out.splitlines()[:3] == ["beliefs: 1", "sessions: 3", "principals: 2"]
    _, out, _ = run(capsys, url, "stats", "--principal", "ana", "--json")
    counts = orjson.loads(out)
    assert (counts["beliefs"], counts["sessions"], counts["principals"]) == (1, 2, 1)


def test_counts_agree_with_their_nouns(
    capsys: pytest.CaptureFixture[str], persistent_store_url: str, tmp_path: Path
) -> None:
    url = persistent_store_url
    turns = tmp_path / "turns.jsonl"
    line = {"principal": "ana", "session": "s1", "at": "2026-03-02T09:00:00Z"}
    turns.write_text(orjson.dumps({**line, "text": "I live in Oslo."}).decode() + "\n")
    code, out, _ = run(capsys, url, "ingest", str(turns))
    assert code == 0
    assert out.startswith("ingested 1 session, 1 turn in 1 transaction; formed 1 belief (")
    code, out, _ = run(capsys, url, "log", "export", str(tmp_path / "x.jsonl"), "--until", "1")
    assert out.startswith("exported 1 event (")


@pytest.mark.parametrize(
    "argv",
    [
        ("recall", "--principal", "ana", "--as-of-position", "{past}", "x"),
        ("log", "export", "out.jsonl", "--until", "{past}"),
    ],
)
def test_a_log_position_out_of_range_is_refused_alike(
    capsys: pytest.CaptureFixture[str],
    persistent_store_url: str,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    argv: tuple[str, ...],
) -> None:
    monkeypatch.chdir(tmp_path)
    url = persistent_store_url
    run(capsys, url, "session", "open", "--principal", "ana")
    head = orjson.loads(run(capsys, url, "projections", "status", "--json")[1])["log_head"]
    flag = argv[argv.index("{past}") - 1]
    for value, said in (
        (str(head + 1), f"position {head + 1} is past the log head ({head})"),
        ("-1", f"argument {flag}: a log position is an integer from 0, not '-1'"),
    ):
        code, out, err = run(capsys, url, *(value if a == "{past}" else a for a in argv))
        assert (code, out) == (2, "") and said in err and err.count("\n") == 1, err
    assert not (tmp_path / "out.jsonl").exists()


@pytest.mark.parametrize(
    "argv",
    [
        ("session", "open", "--principal", " "),
        ("recall", "--principal", " ", "x"),
        ("memory", "list", "--principal", ""),
        ("memory", "conflicts", "--principal", ""),
        ("memory", "remember", "--principal", "", "I like tea."),
        ("stats", "--principal", ""),
    ],
)
def test_an_empty_principal_is_refused_alike_everywhere(
    capsys: pytest.CaptureFixture[str], persistent_store_url: str, argv: tuple[str, ...]
) -> None:
    url = persistent_store_url
    run(capsys, url, "session", "open", "--principal", "ana")
    code, out, err = run(capsys, url, *argv)
    assert (code, out) == (2, "")
    assert err == "memory-es: error: a principal needs a non-empty name\n"
