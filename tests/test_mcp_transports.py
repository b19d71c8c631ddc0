"""`memory-es mcp` end to end, as an agent runs it: a subprocess on a temporary SQLite
store, driven by the SDK's own client over stdio and over streamable HTTP on loopback."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

import memory_es
from memory_es.cli import main
from memory_es.mcp.tokens import TokenTable
from tests.mcp_scenarios import ok, refused, resource_json, say_in_session, supersession

ALICE_TOKEN = "alice-token-0123456789abcdef"
BOB_TOKEN = "bob-token-0123456789abcdef"
START_SECONDS = 20  # the server's start-up bound (imports, store open, bind)


def memory_es_command() -> str:
    return str(Path(sys.executable).parent / "memory-es")


def log_head(url: str) -> int:
    with memory_es.open(url) as memory:
        return memory.projection_status().log_head


@asynccontextmanager
async def stdio_session(
    url: str, *args: str, env: dict[str, str] | None = None
) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(
        command=memory_es_command(), args=["--store", url, "mcp", *args], env=env
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


@asynccontextmanager
async def http_session(endpoint: str, token: str) -> AsyncIterator[ClientSession]:
    headers = {"Authorization": f"Bearer {token}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=30) as http,
        streamable_http_client(endpoint, http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


def bounded(scenario: Callable[[], Awaitable[None]], seconds: float = 60) -> None:
    """Run a client scenario; a hung transport fails the test instead of stalling it."""

    async def main() -> None:
        with anyio.fail_after(seconds):
            await scenario()

    anyio.run(main)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def http_server(url: str, tmp_path: Path) -> Iterator[str]:
    """`memory-es mcp --transport http` on a free loopback port; its endpoint URL."""
    tokens = tmp_path / "tokens.yaml"
    tokens.write_text(f"{ALICE_TOKEN}: alice\n{BOB_TOKEN}: bob\n")
    port = free_port()
    argv = ["--store", url, "mcp", "--transport", "http", "--port", str(port)]
    log = tmp_path / "server.log"  # a file, not a pipe nobody drains: the server never blocks
    with log.open("w") as errors:
        process = subprocess.Popen(
            [sys.executable, "-m", "memory_es", *argv, "--tokens", str(tokens)],
            stdout=subprocess.DEVNULL,
            stderr=errors,
        )
    try:
        deadline = time.monotonic() + START_SECONDS
        while True:
            if process.poll() is not None:
                pytest.fail(f"the server exited: {log.read_text()}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail(f"the server did not listen on {port} in {START_SECONDS}s")
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
        assert f"listening on http://127.0.0.1:{port}/mcp" in log.read_text()
        assert "stop it with Ctrl-C" in log.read_text()
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def post(endpoint: str, body: dict[str, object], token: str | None) -> int:
    """A raw JSON-RPC POST; the HTTP status it gets."""
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(
        endpoint, data=json.dumps(body).encode(), headers=headers, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return int(error.code)


# -- stdio ------------------------------------------------------------------------------


def test_over_stdio_two_sessions_supersede_and_the_context_pack_carries_the_correction(
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path / 'memory.db'}"

    async def main() -> None:
        async with stdio_session(url, "--principal", "alice") as client:
            ids = await supersession(client)
            history = await resource_json(client, f"memory://beliefs/{ids['seattle']}/history")
            assert [e["event"] for e in history["events"]] == ["BeliefFormed", "BeliefSuperseded"]
        # The principal from the environment; Alice's memory is not Bob's.
        async with stdio_session(url, env={"MEMORY_ES_PRINCIPAL": "bob"}) as client:
            assert await ok(client, "recall", query="where do I live") == (
                "no memory matches this query"
            )
            assert "unknown session" in await refused(
                client, "record_turn", session_id=ids["watching"], text="I live in Oslo."
            )

    bounded(main)
    with memory_es.open(url) as memory:  # what the server wrote is in the store
        assert [b.statement for b in memory.list_beliefs("alice") if b.status == "active"] == [
            "User lives in Portland."
        ]


# -- streamable HTTP ----------------------------------------------------------------------


def test_over_http_each_token_serves_its_own_principal(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'memory.db'}"
    with http_server(url, tmp_path) as endpoint:

        async def main() -> None:
            async with http_session(endpoint, ALICE_TOKEN) as alice:
                ids = await supersession(alice)
            async with http_session(endpoint, BOB_TOKEN) as bob:
                await say_in_session(bob, "I live in Lisbon.")
                head = log_head(url)
                assert "unknown session" in await refused(
                    bob, "close_session", session_id=ids["watching"]
                )
                assert "unknown belief" in await refused(bob, "reject", belief_id=ids["portland"])
                assert log_head(url) == head
                beliefs = await resource_json(bob, "memory://beliefs")
                assert [b["statement"] for b in beliefs] == ["User lives in Lisbon."]

        bounded(main)
    with memory_es.open(url) as memory:
        assert {b.statement for b in memory.list_beliefs("alice")} == {
            "User lives in Seattle.",
            "User lives in Portland.",
        }


def test_over_http_a_request_without_a_valid_token_gets_401_and_changes_nothing(
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path / 'memory.db'}"
    remember = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "remember", "arguments": {"text": "I live in Oslo."}},
    }
    initialize = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "0"},
        },
    }
    with http_server(url, tmp_path) as endpoint:
        head = log_head(url)
        for token in (None, "", "not-a-configured-token-at-all", ALICE_TOKEN[:-1]):
            for body in (initialize, remember):
                assert post(endpoint, body, token) == 401, (token, body["method"])
        assert log_head(url) == head
        assert post(endpoint, initialize, ALICE_TOKEN) == 200  # the same request, let in

        async def check() -> None:
            async with http_session(endpoint, ALICE_TOKEN) as alice:
                assert await resource_json(alice, "memory://beliefs") == []

        bounded(check)


# -- the command ---------------------------------------------------------------------------


def run_cli(capsys: pytest.CaptureFixture[str], tmp_path: Path, *args: str) -> tuple[int, str]:
    try:
        code = main(["--store", f"sqlite:///{tmp_path / 'm.db'}", "mcp", *args])
    except SystemExit as exit_:
        code = int(exit_.code or 0)
    return code, capsys.readouterr().err


@pytest.mark.parametrize(
    "args, problem",
    [
        ((), "needs --principal"),
        (("--transport", "http"), "needs --tokens"),
        (("--transport", "http", "--principal", "alice"), "bearer token"),
        (("--principal", "alice", "--tokens", "t.json"), "--tokens is for --transport http"),
        (("--transport", "http", "--tokens", "missing.json"), "cannot read the token file"),
        (("--transport", "http", "--tokens", "t.yaml", "--port", "0"), "--port"),
    ],
)
def test_a_misconfigured_server_exits_2_with_one_line(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    args: tuple[str, ...],
    problem: str,
) -> None:
    monkeypatch.delenv("MEMORY_ES_PRINCIPAL", raising=False)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "t.yaml").write_text(f"{ALICE_TOKEN}: alice\n")
    code, err = run_cli(capsys, tmp_path, *args)
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("memory-es: error:") and problem in err, err
    assert not (tmp_path / "m.db").exists()  # refused before the store was opened


def test_a_busy_port_exits_2_with_one_line_before_the_store_opens(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "t.yaml").write_text(f"{ALICE_TOKEN}: alice\n")
    with socket.create_server(("127.0.0.1", 0)) as holder:
        port = holder.getsockname()[1]
        code, err = run_cli(
            capsys, tmp_path, "--transport", "http", "--tokens", "t.yaml", "--port", str(port)
        )
    assert code == 2 and err.count("\n") == 1, err
    assert err.startswith(f"memory-es: error: cannot listen on 127.0.0.1:{port}:")
    assert "choose another --port" in err
    assert not (tmp_path / "m.db").exists()


@pytest.mark.parametrize(
    "content, problem",
    [
        ('{"short": "alice"}', "at least 16 characters"),
        (f'{{"{ALICE_TOKEN}": ""}}', "non-empty principal"),
        ("[1, 2]", "mapping of token to principal"),
        ("{: nope", "neither JSON nor YAML"),
    ],
)
def test_a_bad_token_file_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: str, problem: str
) -> None:
    (tmp_path / "t.json").write_text(content)
    code, err = run_cli(
        capsys, tmp_path, "--transport", "http", "--tokens", str(tmp_path / "t.json")
    )
    assert code == 2 and problem in err, err


def test_a_token_names_its_principal_and_nothing_else_does() -> None:
    table = TokenTable.from_mapping({ALICE_TOKEN: "alice", BOB_TOKEN: "bob"})
    assert table.principal_for(ALICE_TOKEN) == "alice"
    assert table.principal_for(BOB_TOKEN) == "bob"
    for wrong in ("", ALICE_TOKEN[:-1], ALICE_TOKEN + "x", ALICE_TOKEN.upper(), "alice"):
        assert table.principal_for(wrong) is None


def test_without_the_extra_the_command_says_how_to_install_it(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "mcp", None)  # `import mcp` raises ImportError
    code, err = run_cli(capsys, tmp_path, "--principal", "alice")
    assert code == 2 and err.count("\n") == 1
    assert "pip install 'memory-es[mcp]'" in err


def test_the_command_line_starts_without_loading_the_sdk() -> None:
    code = (
        "import sys; from memory_es.cli import build_parser; build_parser();"
        " print('mcp' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_the_latency_benchmark_times_every_tool_over_stdio(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from memory_es.benchmarks.perf import mcp_latency

    assert mcp_latency.main(["--rounds", "2", "--sessions", "3", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    timed = {"open_session", "record_turn", "context_pack", "recall", "remember", "reject"}
    timed |= {"close_session"}
    assert timed <= set(report["stdio_ms"]) and timed <= set(report["in_process_ms"])
    assert {"ping", "resource beliefs"} <= set(report["stdio_ms"])
    assert all(f["p95"] >= f["p50"] > 0 for f in report["stdio_ms"].values())


def test_the_server_serves_any_store_url_memory_included(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from memory_es.mcp import server

    served: list[tuple[str, str, str]] = []

    def serve(memory: memory_es.Memory, **options: object) -> None:
        served.append((memory.spec.kind, str(options["principal"]), str(options["host"])))

    monkeypatch.setattr(server, "serve", serve)
    for url in ("memory://", f"sqlite:///{tmp_path / 'm.db'}"):
        assert main(["--store", url, "mcp", "--principal", "alice"]) == 0
    assert served == [("memory", "alice", "127.0.0.1"), ("sqlite", "alice", "127.0.0.1")]
