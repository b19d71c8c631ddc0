"""Principals on several servers: the placement file, its hash and its records, and the
CLI's routing (docs/operations.md, "Several servers"). The servers here are SQLite files
(each an independent store, as a PostgreSQL server is); tests/test_placement_postgres.py
runs the same on real PostgreSQL clusters, one stopped mid-run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from memory_es.cli import main
from memory_es.placement import (
    add_server,
    init_placement,
    load_placement,
    place,
    rendezvous,
)

NOW = "2026-03-02T09:00:00Z"


def run(capsys: pytest.CaptureFixture[str], store: str, *args: str) -> tuple[int, str, str]:
    try:
        code = main(["--store", store, "--now", NOW, *args])
    except SystemExit as exit_:
        code = int(exit_.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def placement(tmp_path: Path) -> Path:
    path = tmp_path / "placement.json"
    init_placement(path, {name: f"sqlite:///{tmp_path / name}.db" for name in ("east", "west")})
    return path


def store_of(path: Path) -> str:
    return f"placement:///{path}"


def test_the_hash_depends_on_the_key_and_the_server_names_only() -> None:
    keys = [f"default/user{i}" for i in range(200)]
    first = [rendezvous(k, ("a", "b", "c")) for k in keys]
    assert first == [rendezvous(k, ("c", "a", "b")) for k in keys]
    # Another process (another hash seed) places every key where this one does.
    script = (
        "import sys, orjson; from memory_es.placement import rendezvous;"
        "keys = orjson.loads(sys.stdin.buffer.read());"
        "print(orjson.dumps([rendezvous(k, ('a', 'b', 'c')) for k in keys]).decode())"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], input=orjson.dumps(keys), capture_output=True, check=True
    )
    assert orjson.loads(done.stdout) == first
    assert {"a", "b", "c"} == set(first)  # spread over every server


def test_a_new_server_in_the_hash_takes_only_keys_that_now_hash_to_it() -> None:
    keys = [f"default/user{i}" for i in range(300)]
    before = {k: rendezvous(k, ("a", "b")) for k in keys}
    after = {k: rendezvous(k, ("a", "b", "c")) for k in keys}
    changed = [k for k in keys if before[k] != after[k]]
    assert changed and all(after[k] == "c" for k in changed)


def test_the_first_write_records_the_placement_and_adding_a_server_moves_no_one(
    capsys: pytest.CaptureFixture[str], placement: Path, tmp_path: Path
) -> None:
    store = store_of(placement)
    names = [f"user{i}" for i in range(12)]
    for name in names:
        code, out, _ = run(capsys, store, "memory", "remember", "--principal", name, "I like tea.")
        assert code == 0, out
    recorded = load_placement(placement).principals
    assert set(recorded) == {f"default/{n}" for n in names}
    assert set(recorded.values()) == {"east", "west"}

    code, out, err = run(capsys, store, "shards", "add", "north", f"sqlite:///{tmp_path}/n.db")
    assert code == 0, err
    assert load_placement(placement).principals == recorded
    for name in names:
        code, out, _ = run(capsys, store, "recall", "--principal", name, "tea")
        assert code == 0 and "tea" in out, (name, out)
        code, out, _ = run(capsys, store, "shards", "where", "--principal", name)
        assert out.startswith(recorded[f"default/{name}"] + " ")
    newcomers = {place(placement, f"default/new{i}") for i in range(30)}
    assert "north" in newcomers


def test_adding_a_server_records_a_principal_an_old_copy_of_the_file_lost(
    capsys: pytest.CaptureFixture[str], placement: Path, tmp_path: Path
) -> None:
    store = store_of(placement)
    for i in range(8):
        run(capsys, store, "memory", "remember", "--principal", f"user{i}", "I like tea.")
    before = load_placement(placement).principals
    lost = dict(before)
    del lost["default/user0"]
    data = orjson.loads(placement.read_bytes())
    data["principals"] = lost
    placement.write_bytes(orjson.dumps(data))
    add_server(placement, "north", f"sqlite:///{tmp_path}/n.db", {})  # nothing held: not swept
    assert "default/user0" not in load_placement(placement).principals
    placement.write_bytes(orjson.dumps(data))
    code, _, err = run(capsys, store, "shards", "add", "north", f"sqlite:///{tmp_path}/n.db")
    assert code == 0, err
    assert load_placement(placement).principals == before


def test_processes_placing_at_once_lose_no_record(placement: Path) -> None:
    script = (
        "import sys; from pathlib import Path; from memory_es.placement import place;"
        "[place(Path(sys.argv[1]), f'default/{sys.argv[2]}-{i}') for i in range(15)]"
    )
    workers = [
        subprocess.Popen([sys.executable, "-c", script, str(placement), f"w{w}"]) for w in range(4)
    ]
    assert [w.wait() for w in workers] == [0, 0, 0, 0]
    assert len(load_placement(placement).principals) == 60


def test_session_commands_route_to_the_server_holding_the_session(
    capsys: pytest.CaptureFixture[str], placement: Path
) -> None:
    store = store_of(placement)
    sessions = {}
    for name in ("ana", "bo", "cy", "di"):
        code, out, _ = run(capsys, store, "session", "open", "--principal", name)
        assert code == 0
        sessions[name] = out.strip()
        assert run(capsys, store, "session", "say", sessions[name], "I live in Oslo.")[0] == 0
        assert run(capsys, store, "session", "close", sessions[name])[0] == 0
    where = load_placement(placement)
    for name in sessions:
        server = where.principals[f"default/{name}"]
        code, out, _ = run(capsys, where.servers[server], "memory", "list", "--principal", name)
        assert "Oslo" in out
        other = next(s for s in where.servers if s != server)
        code, out, _ = run(capsys, where.servers[other], "memory", "list", "--principal", name)
        assert "Oslo" not in out


def test_whole_store_commands_report_per_server(
    capsys: pytest.CaptureFixture[str], placement: Path
) -> None:
    store = store_of(placement)
    for i in range(6):
        run(capsys, store, "memory", "remember", "--principal", f"user{i}", "I like tea.")
    code, out, err = run(capsys, store, "stats", "--json")
    assert code == 0, err
    per_server = orjson.loads(out)["servers"]
    assert set(per_server) == {"east", "west"}
    assert sum(s["principals"] for s in per_server.values()) == 6
    code, out, _ = run(capsys, store, "projections", "status")
    assert code == 0 and "server east" in out and "server west" in out
    code, out, _ = run(capsys, store, "memory", "rederive", "--all")
    assert code == 0 and out.count("rederive under") == 2


def test_one_store_commands_are_refused_with_the_servers_named(
    capsys: pytest.CaptureFixture[str], placement: Path, tmp_path: Path
) -> None:
    code, _, err = run(capsys, store_of(placement), "log", "export", str(tmp_path / "x"))
    assert code == 2 and "east, west" in err and len(err.strip().splitlines()) == 1


def test_moving_a_principal_carries_its_events_and_keys_and_checks_its_dump(
    capsys: pytest.CaptureFixture[str], placement: Path
) -> None:
    store = store_of(placement)
    code, out, _ = run(capsys, store, "session", "open", "--principal", "ana")
    session = out.strip()
    run(capsys, store, "session", "say", session, "I live in Oslo and I prefer tea.")
    run(capsys, store, "session", "close", session)
    run(capsys, store, "memory", "remember", "--principal", "bo", "I like rain.")
    source = load_placement(placement).principals["default/ana"]
    target = "west" if source == "east" else "east"
    _, before, _ = run(capsys, store, "memory", "list", "--principal", "ana", "--json")

    code, out, err = run(capsys, store, "shards", "move", "--principal", "ana", "--to", target)
    assert code == 0, err
    assert "identical" in out
    after = load_placement(placement)
    assert after.principals["default/ana"] == target and not after.moving
    _, moved, _ = run(capsys, store, "memory", "list", "--principal", "ana", "--json")
    strip = [{k: v for k, v in b.items() if k != "position"} for b in orjson.loads(before)]
    assert [{k: v for k, v in b.items() if k != "position"} for b in orjson.loads(moved)] == strip
    code, out, _ = run(capsys, store, "recall", "--principal", "ana", "Oslo")
    assert "Oslo" in out  # sealed text opens on the target: the keys came along
    # The source's copy is forgotten: its keys destroyed, nothing readable left there.
    _, left, _ = run(capsys, after.servers[source], "memory", "list", "--principal", "ana")
    assert "Oslo" not in left
    code, _, err = run(capsys, store, "shards", "move", "--principal", "ana", "--to", target)
    assert code == 2 and "already" in err


def test_a_move_cut_off_is_run_again_and_appends_only_what_the_target_lacks(
    capsys: pytest.CaptureFixture[str], placement: Path
) -> None:
    import memory_es
    from memory_es.principal_move import move_principal

    store = store_of(placement)
    for text in ("I live in Oslo.", "I prefer green tea."):
        _, out, _ = run(capsys, store, "session", "open", "--principal", "ana")
        run(capsys, store, "session", "say", out.strip(), text)
        run(capsys, store, "session", "close", out.strip())
    where = load_placement(placement)
    source = where.principals["default/ana"]
    target = "west" if source == "east" else "east"
    with (
        memory_es.open(where.servers[source], check_formation=False) as a,
        memory_es.open(where.servers[target], check_formation=False) as b,
    ):
        first, moved = move_principal(
            a, b, "ana", tenant="default", source_name=source, target_name=target
        )
        head = b.runner.log_head()
        again, moved_again = move_principal(
            a, b, "ana", tenant="default", source_name=source, target_name=target
        )
        assert b.runner.log_head() == head  # nothing appended twice
    assert again == first and moved_again == moved and first.verified
    assert first.sessions == 2 and first.events == len(moved)


def test_ingest_validates_the_whole_file_then_each_server_takes_its_principals_lines(
    capsys: pytest.CaptureFixture[str], placement: Path, tmp_path: Path
) -> None:
    store = store_of(placement)
    lines = [
        {
            "principal": name,
            "session": f"{name}-1",
            "project": "general",
            "at": f"2026-03-02T09:0{i}:00Z",
            "role": "user",
            "text": "I live in Oslo.",
        }
        for i, name in enumerate(("ana", "bo", "cy", "di"))
    ]
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b"\n".join([*map(orjson.dumps, lines), b'{"principal": "ed"}']) + b"\n")
    code, _, err = run(capsys, store, "ingest", str(bad))
    assert code == 2 and "5" in err
    assert load_placement(placement).principals == {}  # nothing placed, nothing written

    good = tmp_path / "good.jsonl"
    good.write_bytes(b"\n".join(map(orjson.dumps, lines)) + b"\n")
    code, out, err = run(capsys, store, "ingest", str(good), "--json")
    assert code == 0, err
    per_server = orjson.loads(out)["servers"]
    where = load_placement(placement).principals
    assert {s: r["sessions"] for s, r in per_server.items()} == {
        s: sum(1 for v in where.values() if v == s) for s in set(where.values())
    }
    for line in lines:
        code, out, _ = run(capsys, store, "recall", "--principal", line["principal"], "Oslo")
        assert "Oslo" in out
