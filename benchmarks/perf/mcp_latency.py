"""The MCP server's latency per tool call over stdio (docs/performance.md).

Seeds a temporary SQLite store (synthetic sessions ingested for one principal), spawns
``memory-es mcp`` on it, and drives it with the SDK's own client over stdio: a session
cycle per round (open, two turns, a context pack, a recall, a remember, a reject, a close,
and the lifecycle tools when the store has them), then each call's p50/p95. Beside it,
the same calls straight through ``memory_es.mcp.tools.MemoryTools`` in this process (what
the tool does, without the protocol, on a second store seeded alike, round by round in
the same run), and the SDK's ``ping`` (the transport's floor). A benchmark: it prints
figures, it fails on nothing.

    python -m memory_es.benchmarks.perf.mcp_latency [--rounds 60] [--sessions 200] [--json]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import orjson
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.types import CallToolResult, TextContent

import memory_es
from memory_es.benchmarks.perf.phases import percentiles
from memory_es.benchmarks.perf.synthetic import ingest_lines
from memory_es.mcp.tools import MemoryTools

PRINCIPAL = "p0"
Call = Callable[[str, dict[str, Any]], Awaitable[str]]


def seed(url: str, sessions: int) -> int:
    """Synthetic sessions (4 turns each) for the principal; how many beliefs formed."""
    with memory_es.open(url) as memory:
        memory.ingest(ingest_lines(sessions=sessions, turns_per_session=4, principals=1))
        return len(memory.list_beliefs(PRINCIPAL))


async def cycle(call: Call, n: int, lifecycle: bool) -> None:
    """One round of an agent's use: every tool once (each timed by ``call``)."""
    session = (await call("open_session", {})).strip()
    await call("record_turn", {"session_id": session, "text": f"I live in Town{n}."})
    await call("record_turn", {"session_id": session, "text": "Noted.", "role": "assistant"})
    pack = await call("context_pack", {"session_id": session, "text": "Where do I live?"})
    await call("recall", {"query": "where do I work"})
    formed = await call("remember", {"text": f"My locker number is {1000 + n}."})
    assert "[m:" in formed, formed
    short = formed.split("[m:", 1)[1][:8]
    await call("reject", {"belief_id": short})
    if lifecycle:
        cited = pack.split("[m:", 1)[1][:8] if "[m:" in pack else ""
        await call(
            "record_usage",
            {"session_id": session, "run_id": f"run-{n}", "final_message": f"[m:{cited}]"},
        )
        await call("list_conflicts", {})
    await call("close_session", {"session_id": session})


async def interleaved(
    stdio_url: str, direct_url: str, rounds: int, lifecycle: bool
) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Round by round, a cycle through the server over stdio, then the same cycle straight
    through MemoryTools on a second store seeded alike: both under the same load."""
    stdio: dict[str, list[float]] = defaultdict(list)
    direct: dict[str, list[float]] = defaultdict(list)
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "memory_es", "--store", stdio_url, "mcp", "--principal", PRINCIPAL],
    )
    with memory_es.open(direct_url) as memory:
        tools = MemoryTools(memory)
        async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
            await client.initialize()

            async def over_stdio(name: str, arguments: dict[str, Any]) -> str:
                start = time.perf_counter()
                result = await client.call_tool(name, arguments)
                stdio[name].append(time.perf_counter() - start)
                assert isinstance(result, CallToolResult) and not result.is_error, (name, result)
                return "\n".join(c.text for c in result.content if isinstance(c, TextContent))

            async def in_process(name: str, arguments: dict[str, Any]) -> str:
                start = time.perf_counter()
                text: str = getattr(tools, name)(PRINCIPAL, **arguments)
                direct[name].append(time.perf_counter() - start)
                return text

            # Three warm rounds (imports, caches), then the timed ones. Each round remembers
            # its own statement: a rejection is durable, a repeated one would not form.
            for n in range(-3, rounds):
                if n == 0:
                    stdio.clear()
                    direct.clear()
                await cycle(over_stdio, n, lifecycle)
                start = time.perf_counter()
                await client.send_ping()
                stdio["ping"].append(time.perf_counter() - start)
                start = time.perf_counter()
                await client.read_resource("memory://beliefs")
                stdio["resource beliefs"].append(time.perf_counter() - start)
                await cycle(in_process, n, lifecycle)
    return stdio, direct


def summary(samples: dict[str, list[float]]) -> dict[str, dict[str, float]]:
    return {
        name: {k: round(v * 1000, 2) for k, v in percentiles(values).items() if k != "p99"}
        for name, values in samples.items()
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=60, help="session cycles timed")
    parser.add_argument("--sessions", type=int, default=200, help="seeded sessions")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    lifecycle = all(hasattr(memory_es.Memory, m) for m in ("record_usage", "conflicts"))
    with tempfile.TemporaryDirectory() as folder:
        stdio_url = f"sqlite:///{Path(folder) / 'stdio.db'}"
        direct_url = f"sqlite:///{Path(folder) / 'direct.db'}"
        beliefs = seed(stdio_url, args.sessions)
        seed(direct_url, args.sessions)
        samples = anyio.run(interleaved, stdio_url, direct_url, args.rounds, lifecycle)
        stdio, direct = (summary(s) for s in samples)
    report = {
        "rounds": args.rounds,
        "seeded_beliefs": beliefs,
        "stdio_ms": stdio,
        "in_process_ms": direct,
    }
    if args.json:
        sys.stdout.write(orjson.dumps(report, option=orjson.OPT_SORT_KEYS).decode() + "\n")
        return 0
    print(f"{args.rounds} rounds, {beliefs} beliefs seeded (SQLite); milliseconds")
    print(f"{'call':<18} {'stdio p50':>10} {'stdio p95':>10} {'direct p50':>11} {'direct p95':>11}")
    for name, figures in stdio.items():
        own = direct.get(name, {})
        print(
            f"{name:<18} {figures['p50']:>10.2f} {figures['p95']:>10.2f}"
            f" {own.get('p50', float('nan')):>11.2f} {own.get('p95', float('nan')):>11.2f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
