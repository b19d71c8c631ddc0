"""Principals on two real PostgreSQL servers: loopback clusters this module creates with
``pg_createcluster`` and drops, one of them stopped mid-run (docs/operations.md, "When a
server is down"). Skips where clusters cannot be created (no postgresql-common, not
root or postgres)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from memory_es.benchmarks.perf import clusters
from memory_es.cli import main
from memory_es.placement import init_placement, load_placement

NOW = "2026-03-02T09:00:00Z"


@pytest.fixture(scope="module")
def two_servers() -> Iterator[dict[str, clusters.Cluster]]:
    reason = clusters.unavailable()
    if reason is not None:
        pytest.skip(reason)
    made: dict[str, clusters.Cluster] = {}
    try:
        for name in ("pga", "pgb"):
            made[name] = clusters.create_cluster(f"test_{name}")
        yield made
    finally:
        for cluster in made.values():
            cluster.drop()


def run(capsys: pytest.CaptureFixture[str], store: str, *args: str) -> tuple[int, str, str]:
    try:
        code = main(["--store", store, "--now", NOW, *args])
    except SystemExit as exit_:
        code = int(exit_.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_a_stopped_server_fails_only_its_own_principals_in_one_line(
    capsys: pytest.CaptureFixture[str],
    two_servers: dict[str, clusters.Cluster],
    tmp_path: Path,
) -> None:
    path = tmp_path / "placement.json"
    init_placement(path, {name: c.url for name, c in two_servers.items()})
    store = f"placement:///{path}"
    names = [f"user{i}" for i in range(8)]
    sessions = {}
    for name in names:
        code, out, err = run(capsys, store, "session", "open", "--principal", name)
        assert code == 0, err
        sessions[name] = out.strip()
        assert run(capsys, store, "session", "say", sessions[name], "I live in Oslo.")[0] == 0
    where = load_placement(path).principals
    on = {s: [n for n in names if where[f"default/{n}"] == s] for s in two_servers}
    assert on["pga"] and on["pgb"]

    two_servers["pgb"].stop()
    try:
        for name in on["pga"]:
            assert run(capsys, store, "session", "close", sessions[name])[0] == 0
            code, out, _ = run(capsys, store, "recall", "--principal", name, "Oslo")
            assert code == 0 and "Oslo" in out
        for name in on["pgb"]:
            code, _, err = run(capsys, store, "recall", "--principal", name, "Oslo")
            assert code == 2 and err.count("\n") == 1 and "server pgb" in err, err
            code, _, err = run(capsys, store, "session", "close", sessions[name])
            assert code == 2 and err.count("\n") == 1 and "server pgb" in err, err
        code, out, err = run(capsys, store, "stats", "--json")
        per_server = orjson.loads(out)["servers"]
        assert code == 2 and per_server["pga"]["sessions"] == len(on["pga"])
        assert "error" in per_server["pgb"] and "server pgb" in err
    finally:
        two_servers["pgb"].start()
    for name in on["pgb"]:
        assert run(capsys, store, "session", "close", sessions[name])[0] == 0
        code, out, _ = run(capsys, store, "recall", "--principal", name, "Oslo")
        assert code == 0 and "Oslo" in out


def test_a_principal_moves_between_postgresql_servers_with_an_identical_dump(
    capsys: pytest.CaptureFixture[str],
    two_servers: dict[str, clusters.Cluster],
    tmp_path: Path,
) -> None:
    path = tmp_path / "placement.json"
    init_placement(path, {name: c.url for name, c in two_servers.items()})
    store = f"placement:///{path}"
    for text in ("I live in Oslo.", "I prefer green tea.", "I moved to Bergen."):
        code, out, _ = run(capsys, store, "session", "open", "--principal", "mover")
        session = out.strip()
        run(capsys, store, "session", "say", session, text)
        assert run(capsys, store, "session", "close", session)[0] == 0
    source = load_placement(path).principals["default/mover"]
    target = "pgb" if source == "pga" else "pga"
    code, out, err = run(
        capsys, store, "shards", "move", "--principal", "mover", "--to", target, "--json"
    )
    assert code == 0, err
    report = orjson.loads(out)
    assert report["verified"] and report["source_retired"] and report["sessions"] == 3
    code, out, _ = run(capsys, store, "recall", "--principal", "mover", "where do I live")
    assert "Bergen" in out
