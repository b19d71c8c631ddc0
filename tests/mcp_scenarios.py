"""What the MCP tests drive, whatever the transport: calls through an SDK client session
(in process, stdio or streamable HTTP), and the end-to-end scenario the issue names."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, Protocol

from mcp.types import CallToolResult, TextContent, TextResourceContents

SHORT_ID = re.compile(r"\[m:([0-9a-f]{8})\]")


class ToolClient(Protocol):
    """The calls both the SDK's ClientSession and its high-level Client offer."""

    async def call_tool(self, name: str, arguments: dict[str, Any] | None = None) -> Any: ...

    async def read_resource(self, uri: str) -> Any: ...


def result_text(result: CallToolResult) -> str:
    return "\n".join(c.text for c in result.content if isinstance(c, TextContent))


async def ok(client: ToolClient, name: str, **arguments: Any) -> str:
    result = await client.call_tool(name, arguments)
    assert isinstance(result, CallToolResult)
    assert not result.is_error, f"{name}{arguments}: {result_text(result)}"
    return result_text(result)


async def refused(client: ToolClient, name: str, **arguments: Any) -> str:
    """A tool result flagged isError (never a protocol error): the text names the problem."""
    result = await client.call_tool(name, arguments)
    assert isinstance(result, CallToolResult)
    assert result.is_error, f"{name}{arguments} was accepted: {result_text(result)}"
    return result_text(result)


async def resource_json(client: ToolClient, uri: str) -> Any:
    result = await client.read_resource(uri)
    (content,) = result.contents
    assert isinstance(content, TextResourceContents)
    return json.loads(content.text)


async def say_in_session(client: ToolClient, *turns: str) -> tuple[str, str]:
    """Open a session, record the user's turns, close it: (session id, close's report)."""
    session = (await ok(client, "open_session")).strip()
    for text in turns:
        await ok(client, "record_turn", session_id=session, text=text)
    return session, await ok(client, "close_session", session_id=session)


async def supersession(
    client: ToolClient, *, between: Callable[[], object] | None = None
) -> dict[str, str]:
    """Two sessions state where the user lives, the second correcting the first; a session
    opened in between, whose snapshot still holds the first, gets the correction in its
    context pack. ``between`` runs before the correcting session (a clock advance)."""
    _, first = await say_in_session(client, "I live in Seattle.")
    (seattle,) = SHORT_ID.findall(first)
    watching = (await ok(client, "open_session")).strip()
    if between is not None:
        between()
    _, second = await say_in_session(client, "I live in Portland now.")
    assert f"superseded: [m:{seattle}] User lives in Seattle." in second, second
    (portland,) = {s for s in SHORT_ID.findall(second) if s != seattle}

    pack = await ok(client, "context_pack", session_id=watching, text="Where do I live?")
    # The snapshot keeps the stale line (the cached prefix never changes within a session);
    # the correction names it, and the recall carries the current belief.
    assert f"[m:{seattle}] User lives in Seattle." in pack
    assert f"correction: [m:{seattle}] no longer holds" in pack
    assert f"superseded by [m:{portland}]" in pack
    assert f"[m:{portland}] User lives in Portland." in pack

    recalled = await ok(client, "recall", query="where do I live")
    assert recalled.splitlines() == [f"[m:{portland}] User lives in Portland."]
    return {"seattle": seattle, "portland": portland, "watching": watching}
