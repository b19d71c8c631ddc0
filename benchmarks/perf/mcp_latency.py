"""The MCP server's latency per tool call over stdio (docs/performance.md).

Seeds a temporary SQLite store (synthetic sessions ingested for one principal), spawns
``memory-es mcp`` on it, and drives it with the SDK's own client over stdio: a session
cycle per round (open, two turns, a context pack, a recall, a remember, a reject, a close,
and the lifecycle tools when the store has them), then each call's p50/p95. Beside it,
the same calls straight through ``memory_es.mcp.tools.MemoryTools`` in this process (what
the tool does, without the protocol), and the SDK's ``ping`` (the transport's floor).
A benchmark: it prints figures, it fails on nothing.

    python -m benchmarks.perf.mcp_latency [--rounds 60] [--sessions 200] [--json]
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
from benchmarks.perf.phases import percentiles
from benchmarks.perf.synthetic import ingest_lines
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


async def over_stdio(url: str, rounds: int, lifecycle: bool) -> dict[str, list[float]]:
    samples: dict[str, list[float]] = defaultdict(list)
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "memory_es", "--store", url, "mcp", "--principal", PRINCIPAL],
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
        await client.initialize()

        async def call(name: str, arguments: dict[str, Any]) -> str:
            start = time.perf_counter()
            result = await client.call_tool(name, arguments)
            samples[name].append(time.perf_counter() - start)
            assert isinstance(result, CallToolResult) and not result.is_error, (name, result)
            return "\n".join(c.text for c in result.content if isinstance(c, TextContent))

        for n in range(-3, 0):  # warm: first imports, caches (a rejection is durable:
            await cycle(call, n, lifecycle)  # every round remembers its own statement)
        samples.clear()
        for n in range(rounds):
            await cycle(call, n, lifecycle)
            start = time.perf_counter()
            await client.send_ping()
            samples["ping"].append(time.perf_counter() - start)
            start = time.perf_counter()
            await client.read_resource("memory://beliefs")
            samples["resource beliefs"].append(time.perf_counter() - start)
    return samples


def in_process(url: str, rounds: int, lifecycle: bool) -> dict[str, list[float]]:
    samples: dict[str, list[float]] = defaultdict(list)
    with memory_es.open(url) as memory:
        tools = MemoryTools(memory)

        async def call(name: str, arguments: dict[str, Any]) -> str:
            start = time.perf_counter()
            text: str = getattr(tools, name)(PRINCIPAL, **arguments)
            samples[name].append(time.perf_counter() - start)
            return text

        async def main() -> None:
            for n in range(-3, rounds):
                await cycle(call, 10_000 + n, lifecycle)
                if n == -1:
                    samples.clear()

        anyio.run(main)
    return samples


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
        url = f"sqlite:///{Path(folder) / 'memory.db'}"
        beliefs = seed(url, args.sessions)
        stdio = summary(anyio.run(over_stdio, url, args.rounds, lifecycle))
        direct = summary(in_process(url, args.rounds, lifecycle))
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
