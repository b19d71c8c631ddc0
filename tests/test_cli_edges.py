"""Operational failures at the command line's edges: each is one line on stderr
and the documented exit status (DESIGN.md: 2 for a usage error or bad input), never a
traceback, and none changes a store."""

from __future__ import annotations

from pathlib import Path

import pytest

import memory_es
from memory_es.stores import parse_store_url
from tests.stores import postgres_base_url, require_postgres
from tests.test_cli import run


def one_line_error(code: int, out: str, err: str, *, expected_code: int = 2) -> str:
    assert code == expected_code, err
    assert out == ""
    assert err.startswith("memory-es: error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err
    return err


# -- arguments that are not UTF-8 ----------------------------------------------------------

# What Python hands over for the bytes b"caf\xe9" in argv (surrogateescape).
NOT_UTF8 = b"caf\xe9".decode("utf-8", "surrogateescape")


@pytest.mark.parametrize(
    "args",
    [
        ("session", "open", "--principal", NOT_UTF8),
        ("recall", "--principal", "ana", NOT_UTF8),
        ("memory", "remember", "--principal", "ana", f"I live in {NOT_UTF8}."),
    ],
)
def test_an_argument_that_is_not_utf8_is_refused_in_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, args: tuple[str, ...]
) -> None:
    url = f"sqlite:///{tmp_path / 'm.db'}"
    err = one_line_error(*run(capsys, url, *args))
    assert "is not valid UTF-8: b'" in err and "\\xe9" in err
    assert not (tmp_path / "m.db").exists()


def test_a_store_url_from_the_environment_that_is_not_utf8_is_refused(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from memory_es.cli import main

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MEMORY_ES_STORE", f"sqlite:///{NOT_UTF8}.db")
    with pytest.raises(SystemExit) as exit_:
        main(["session", "open", "--principal", "ana"])
    out, err = capsys.readouterr()
    one_line_error(int(exit_.value.code or 0), out, err)
    assert "MEMORY_ES_STORE is not valid UTF-8" in err
    assert list(tmp_path.iterdir()) == []


# -- store URLs ------------------------------------------------------------------------------


@pytest.mark.parametrize("port", ["abc", "99999", "0", "-1", "５４３２"])
def test_a_postgres_url_with_a_bad_port_is_refused_in_one_line(
    capsys: pytest.CaptureFixture[str], port: str
) -> None:
    url = f"postgresql://postgres@127.0.0.1:{port}/postgres"
    err = one_line_error(*run(capsys, url, "session", "open", "--principal", "ana"))
    assert f"port is a number from 1 to 65535, not {port!r}" in err


def test_an_empty_store_is_refused_not_taken_for_the_default(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from memory_es.cli import main

    monkeypatch.chdir(tmp_path)  # where the default store would be created
    for given, env in (("--store", None), ("MEMORY_ES_STORE", "")):
        if env is not None:
            monkeypatch.setenv("MEMORY_ES_STORE", env)
        argv = (["--store", ""] if env is None else []) + ["session", "open", "--principal", "a"]
        with pytest.raises(SystemExit) as exit_:
            main(argv)
        out, err = capsys.readouterr()
        one_line_error(int(exit_.value.code or 0), out, err)
        assert f"{given} is empty: give a store URL" in err
    assert list(tmp_path.iterdir()) == []


def test_postgres_url_parts_reach_psycopg_as_keyword_arguments() -> None:
    spec = parse_store_url("postgresql://bo%20port=1:p%20w%3D@db.example:6543/mem%20port=1")
    assert spec.pg_connect == {
        "host": "db.example",
        "port": 6543,
        "dbname": "mem port=1",
        "user": "bo port=1",
        "password": "p w=",
        "connect_timeout": 5,
    }
    assert spec.env["POSTGRES_DBNAME"] == "mem port=1" and spec.env["POSTGRES_PORT"] == "6543"
    assert not hasattr(spec, "pg_conninfo")


def test_a_url_part_cannot_add_a_connection_setting(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Pasted into a conninfo, ``postgres%20port=1`` would connect to port 1."""
    require_postgres()
    parts = postgres_base_url().rsplit("/", 1)
    url = f"{parts[0]}/postgres%20port=1"
    err = one_line_error(*run(capsys, url, "session", "open", "--principal", "ana"))
    assert 'database "postgres port=1" does not exist' in err
    assert "port 1 failed" not in err


# -- --now -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "now",
    ["1970-01-01T00:00:00Z", "2150-06-01T12:00:00+02:00", "2200-12-31T23:59:59Z"],
)
def test_now_accepts_any_instant_from_1970_through_2200(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, now: str
) -> None:
    url = f"sqlite:///{tmp_path / 'm.db'}"
    code, out, err = run(capsys, url, "session", "open", "--principal", "ana", now=now)
    assert code == 0 and err == ""
    with memory_es.open(url) as memory:
        opened = memory.session(out.strip()).opened_at
    assert opened == memory_es.ports.iso(memory_es.ports.parse_iso(now))


@pytest.mark.parametrize(
    "now",
    [
        "1969-12-31T23:59:59Z",
        "2201-01-01T00:00:00Z",
        "9999-12-31T00:00:00Z",
        "9999-12-31T23:00:00-05:00",  # past datetime's range once in UTC
        "0001-01-01T00:00:00+01:00",
        "2026-03-02T09:00:00",  # no timezone
    ],
)
def test_now_outside_1970_to_2200_is_refused_in_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, now: str
) -> None:
    url = f"sqlite:///{tmp_path / 'm.db'}"
    err = one_line_error(*run(capsys, url, "session", "open", "--principal", "ana", now=now))
    assert err.startswith("memory-es: error: --now ") and "1970 through 2200" in err
    assert not (tmp_path / "m.db").exists()


def test_now_going_back_in_time_inside_an_open_session_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    url = f"sqlite:///{tmp_path / 'm.db'}"
    t0, t1, earlier = "2026-03-02T09:00:00Z", "2026-03-02T10:00:00Z", "2026-03-02T09:30:00Z"
    _, out, _ = run(capsys, url, "session", "open", "--principal", "ana", now=t0)
    session = out.strip()
    assert run(capsys, url, "session", "say", session, "I live in Oslo.", now=t1)[0] == 0
    with memory_es.open(url) as memory:
        head = memory.projection_status().log_head
    for args in (("say", session, "I live in Rome."), ("close", session)):
        err = one_line_error(*run(capsys, url, "session", *args, now=earlier))
        assert f"at {earlier} is before the session's last turn at {t1}" in err
    with memory_es.open(url) as memory:
        assert memory.projection_status().log_head == head
    assert run(capsys, url, "session", "close", session, now=t1)[0] == 0
