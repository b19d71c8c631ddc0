"""The MCP server's tools and resources, driven by the SDK's own client in process on
every store (the stdio and HTTP transports: tests/test_mcp_transports.py)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import anyio
import pytest
from mcp import Client, MCPError

import memory_es
from memory_es.app import Memory
from memory_es.domain.values import Authority
from memory_es.mcp.server import build_server
from memory_es.mcp.tokens import TokenTable
from memory_es.ports import FixedClock
from tests.mcp_scenarios import (
    SHORT_ID,
    ok,
    refused,
    resource_json,
    say_in_session,
    supersession,
)

TOOLS = {
    "open_session": ({"project"}, set()),
    "record_turn": ({"session_id", "text", "role"}, {"session_id", "text"}),
    "record_source_turn": ({"session_id", "source", "text"}, {"session_id", "source", "text"}),
    "close_session": ({"session_id"}, {"session_id"}),
    "recall": ({"query", "project", "limit"}, {"query"}),
    "context_pack": ({"session_id", "text"}, {"session_id", "text"}),
    "remember": ({"text"}, {"text"}),
    "reject": ({"belief_id"}, {"belief_id"}),
    "forget": ({"scope", "session_id", "turn", "confirm", "reason"}, set()),
    "record_usage": (
        {"session_id", "run_id", "final_message"},
        {"session_id", "run_id", "final_message"},
    ),
    "list_conflicts": (set(), set()),
    "confirm_conflict": ({"belief_id"}, {"belief_id"}),
    "review_list": (set(), set()),
    "review_show": ({"proposal_id"}, {"proposal_id"}),
    "review_approve": ({"proposal_id"}, {"proposal_id"}),
    "review_decline": ({"proposal_id", "reason"}, {"proposal_id"}),
}


@pytest.fixture
def store(any_store_url: str, clock: FixedClock) -> Iterator[Memory]:
    with memory_es.open(any_store_url, clock=clock, ids=memory_es.SequentialIds()) as memory:
        yield memory


def drive(memory: Memory, scenario: Callable[[Client], Awaitable[None]], principal: str) -> None:
    async def main() -> None:
        async with Client(build_server(memory, principal=principal)) as client:
            await scenario(client)

    anyio.run(main)


def log_head(memory: Memory) -> int:
    return memory.projection_status().log_head


def test_the_server_offers_the_issue_tools_with_their_arguments(memory: Memory) -> None:
    async def scenario(client: Client) -> None:
        listed = {t.name: t for t in (await client.list_tools()).tools}
        assert set(listed) == set(TOOLS)
        for name, (arguments, required) in TOOLS.items():
            schema = listed[name].input_schema
            assert set(schema.get("properties", {})) == arguments, name
            assert set(schema.get("required", [])) == required, name
        # No tool takes a principal: it is the server's, never the model's to name.
        assert all("principal" not in t.input_schema.get("properties", {}) for t in listed.values())
        resources = {r.uri for r in (await client.list_resources()).resources}
        templates = {
            t.uri_template for t in (await client.list_resource_templates()).resource_templates
        }
        assert resources == {"memory://beliefs"}
        assert templates == {
            "memory://beliefs/{belief_id}/provenance",
            "memory://beliefs/{belief_id}/history",
        }

    drive(memory, scenario, "alice")


def test_tool_descriptions_tell_the_model_what_memory_lines_are(memory: Memory) -> None:
    async def scenario(client: Client) -> None:
        listed = {t.name: t.description or "" for t in (await client.list_tools()).tools}
        for name in ("recall", "context_pack"):
            assert "[m:xxxxxxxx]" in listed[name] and "short id" in listed[name]
            assert "never instructions" in listed[name]
        assert "start of a conversation" in listed["open_session"]
        assert "before each model call" in listed["context_pack"].lower()
        assert all(len(d) > 80 for d in listed.values()), listed
        assert "never instructions" in (client.instructions or "")

    drive(memory, scenario, "alice")


def test_a_supersession_reaches_an_open_sessions_context_pack_as_a_correction(
    store: Memory, clock: FixedClock
) -> None:
    async def scenario(client: Client) -> None:
        ids = await supersession(client, between=lambda: clock.advance(60))
        beliefs = await resource_json(client, "memory://beliefs")
        assert [b["line"] for b in beliefs] == [f"[m:{ids['portland']}] User lives in Portland."]

    drive(store, scenario, "alice")


def test_remember_forms_at_affirmed_memory_trust(store: Memory) -> None:
    async def scenario(client: Client) -> None:
        formed = await ok(client, "remember", text="My favourite editor is Helix.")
        (short,) = SHORT_ID.findall(formed)
        (belief,) = await resource_json(client, "memory://beliefs")
        assert belief["short_id"] == short and belief["authority"] == int(Authority.AFFIRMED)

    drive(store, scenario, "alice")


def test_forget_shreds_a_session_of_the_servers_own_principal(store: Memory) -> None:
    async def scenario(client: Client) -> None:
        session, _ = await say_in_session(client, "I live in Quokkaville.")
        dry = await ok(client, "forget", session_id=session)
        assert dry.startswith("dry run") and "1 memories retracted" in dry
        assert "Quokkaville" in await ok(client, "recall", query="where do I live")
        done = await ok(client, "forget", session_id=session, confirm=True)
        assert done.startswith("forgotten") and "Quokkaville" not in done
        assert await ok(client, "recall", query="where do I live") == "no memory matches this query"

    drive(store, scenario, "alice")


def test_forget_shreds_one_turn_and_keeps_the_rest_of_its_session(store: Memory) -> None:
    async def scenario(client: Client) -> None:
        session, _ = await say_in_session(client, "I live in Quokkaville.", "I love durian fruit.")
        dry = await ok(client, "forget", scope="turn", session_id=session, turn=1)
        assert dry.startswith("dry run") and "1 turns" in dry and "1 memories retracted" in dry
        done = await ok(client, "forget", scope="turn", session_id=session, turn=1, confirm=True)
        assert done.startswith("forgotten") and "0 whole sessions" in done
        assert "Quokkaville" not in await ok(client, "recall", query="where do I live Quokkaville")
        assert "durian" in await ok(client, "recall", query="what fruit do I love")
        assert "forgotten already" in await refused(
            client, "forget", scope="turn", session_id=session, turn=1, confirm=True
        )

    drive(store, scenario, "alice")


def test_forget_with_scope_principal_shreds_everything_of_the_servers_own_principal(
    store: Memory,
) -> None:
    async def as_bob(client: Client) -> None:
        await say_in_session(client, "I live in Lisbon.")

    async def as_alice(client: Client) -> None:
        await say_in_session(client, "I live in Quokkaville.")
        await ok(client, "remember", text="My favourite editor is Helix.")
        assert "session id" in await refused(client, "forget", scope="turn")
        assert "takes no session" in await refused(
            client, "forget", scope="principal", session_id="x"
        )
        dry = await ok(client, "forget", scope="principal")
        assert dry.startswith("dry run") and "2 memories retracted" in dry
        done = await ok(client, "forget", scope="principal", confirm=True, reason="forget me")
        assert done.startswith("forgotten") and "2 memories retracted" in done
        assert await resource_json(client, "memory://beliefs") == []
        assert await ok(client, "recall", query="Quokkaville Helix") == (
            "no memory matches this query"
        )

    drive(store, as_bob, "bob")
    drive(store, as_alice, "alice")
    # Only the server's own principal is forgotten: Bob's memory is as he left it.
    assert [b.statement for b in store.list_beliefs("bob")] == ["User lives in Lisbon."]


def test_reject_takes_a_belief_out_of_recall(store: Memory) -> None:
    async def scenario(client: Client) -> None:
        _, closed = await say_in_session(client, "I live in Seattle.")
        (short,) = SHORT_ID.findall(closed)
        assert "(rejected)" in await ok(client, "reject", belief_id=f"[m:{short}]")
        assert await ok(client, "recall", query="where do I live") == "no memory matches this query"
        assert await resource_json(client, "memory://beliefs") == []

    drive(store, scenario, "alice")


def test_provenance_shows_the_source_turns_redacted_as_stored(store: Memory) -> None:
    async def scenario(client: Client) -> None:
        _, closed = await say_in_session(
            client, "I live in Seattle. My password is hunter2secret, keep it."
        )
        (short,) = SHORT_ID.findall(closed)
        provenance = await resource_json(client, f"memory://beliefs/{short}/provenance")
        assert provenance["belief"]["statement"] == "User lives in Seattle."
        (turn,) = provenance["source_turns"]
        assert turn["text"] == "I live in Seattle. My password is [redacted:password], keep it."
        assert turn["session_id"] == provenance["belief"]["source_session_id"]
        assert "hunter2secret" not in str(provenance)

    drive(store, scenario, "alice")


def test_history_lists_a_beliefs_events_with_their_store_positions(
    store: Memory, clock: FixedClock
) -> None:
    async def scenario(client: Client) -> None:
        ids = await supersession(client, between=lambda: clock.advance(60))
        history = await resource_json(client, f"memory://beliefs/{ids['seattle']}/history")
        events = history["events"]
        assert [e["event"] for e in events] == ["BeliefFormed", "BeliefSuperseded"]
        positions = [e["position"] for e in events]
        assert positions == sorted(positions) and positions[0] > 0
        # The belief's position is that of its latest position-taking event.
        assert history["belief"]["position"] == positions[-1]
        assert events[1]["fields"]["successor_id"].startswith(ids["portland"])

    drive(store, scenario, "alice")


# -- bad input: an isError result naming the problem, and nothing written ---------------


def test_bad_tool_input_is_an_error_result_and_changes_nothing(store: Memory) -> None:
    async def scenario(client: Client) -> None:
        session = (await ok(client, "open_session")).strip()
        await ok(client, "record_turn", session_id=session, text="I live in Seattle.")
        closed, _ = await say_in_session(client, "I work at Initech.")
        before = log_head(store)
        cases: list[tuple[str, dict[str, Any], str]] = [
            ("record_turn", {"session_id": "no-such-session", "text": "hi"}, "unknown session"),
            ("record_turn", {"session_id": session, "text": "   "}, "non-empty text"),
            ("record_turn", {"session_id": session, "text": "hi", "role": "system"}, "role"),
            ("record_turn", {"session_id": session}, "text"),
            ("record_turn", {"session_id": closed, "text": "hi"}, "session is closed"),
            ("close_session", {"session_id": closed}, "closed"),
            ("context_pack", {"session_id": session, "text": ""}, "text"),
            ("recall", {"query": "where", "limit": 0}, "limit"),
            ("recall", {"query": ""}, "non-empty query"),
            ("remember", {"text": " "}, "non-empty"),
            ("reject", {"belief_id": "[m:00000000]"}, "unknown belief"),
            ("reject", {"belief_id": "not an id"}, "unknown belief"),
            ("confirm_conflict", {"belief_id": "[m:00000000]"}, "unknown belief"),
            ("record_usage", {"session_id": "x", "run_id": "r", "final_message": "m"}, "session"),
        ]
        for name, arguments, problem in cases:
            text = await refused(client, name, **arguments)
            assert problem in text.lower(), (name, arguments, text)
            assert log_head(store) == before, (name, arguments)

    drive(store, scenario, "alice")


# -- principal isolation ----------------------------------------------------------------


def test_one_principal_cannot_read_or_write_anothers_memory(
    store: Memory, clock: FixedClock
) -> None:
    alice: dict[str, str] = {}

    async def as_alice(client: Client) -> None:
        alice.update(await supersession(client, between=lambda: clock.advance(60)))
        alice["open"] = (await ok(client, "open_session")).strip()
        (belief,) = await resource_json(client, "memory://beliefs")
        alice["full"] = belief["belief_id"]

    async def as_bob(client: Client) -> None:
        await say_in_session(client, "I live in Lisbon.")
        before = log_head(store)
        for session in (alice["open"], alice["watching"]):
            for name, arguments in (
                ("record_turn", {"session_id": session, "text": "I live in Oslo."}),
                ("close_session", {"session_id": session}),
                ("context_pack", {"session_id": session, "text": "Where do I live?"}),
                ("record_usage", {"session_id": session, "run_id": "r1", "final_message": "x"}),
                ("forget", {"session_id": session, "confirm": True}),
                ("forget", {"scope": "turn", "session_id": session, "turn": 1, "confirm": True}),
            ):
                # Refused as unknown: another principal's session is not Bob's to learn of.
                assert "unknown session" in await refused(client, name, **arguments)
        for ref in (alice["portland"], f"[m:{alice['portland']}]", alice["full"]):
            assert "unknown belief" in await refused(client, "reject", belief_id=ref)
            assert "unknown belief" in await refused(client, "confirm_conflict", belief_id=ref)
            for part in ("provenance", "history"):
                with pytest.raises(MCPError, match="unknown belief"):
                    await client.read_resource(f"memory://beliefs/{ref}/{part}")
        assert log_head(store) == before
        assert await ok(client, "recall", query="Portland Seattle live") == (
            await ok(client, "recall", query="where do I live")
        )
        lines = [b["line"] for b in await resource_json(client, "memory://beliefs")]
        assert len(lines) == 1 and "Lisbon" in lines[0]

    drive(store, as_alice, "alice")
    drive(store, as_bob, "bob")
    # Alice's memory is as she left it.
    assert [b.statement for b in store.list_beliefs("alice") if b.status == "active"] == [
        "User lives in Portland."
    ]
    assert len(store.session_turns(alice["open"])) == 0


# -- the lifecycle tools (Memory.record_usage, conflicts, confirm) ------------------------


def test_record_usage_credits_the_cited_memories_once_per_run(
    store: Memory, clock: FixedClock
) -> None:
    async def scenario(client: Client) -> None:
        await say_in_session(client, "I live in Seattle.", "I work at Initech.")
        clock.advance(60)
        session = (await ok(client, "open_session")).strip()
        pack = await ok(client, "context_pack", session_id=session, text="Where do I live?")
        (seattle,) = {s for s in SHORT_ID.findall(pack) if "Seattle" in _line(pack, s)}
        answer = f"You live in Seattle [m:{seattle}]."
        await ok(client, "record_usage", session_id=session, run_id="run-1", final_message=answer)
        cited = _utility(store, "alice", "Seattle")
        assert cited > 0
        head = log_head(store)
        await ok(client, "record_usage", session_id=session, run_id="run-1", final_message=answer)
        assert log_head(store) == head and _utility(store, "alice", "Seattle") == cited

    drive(store, scenario, "alice")


def test_conflicts_are_listed_and_a_confirmation_settles_them(store: Memory) -> None:
    async def scenario(client: Client) -> None:
        # The same instant (the fixed clock): neither statement is newer, so they conflict.
        _, first = await say_in_session(client, "I live in Seattle.")
        _, second = await say_in_session(client, "I live in Portland.")
        (seattle,) = SHORT_ID.findall(first)
        portland = next(s for s in SHORT_ID.findall(second) if s != seattle)
        listed = await ok(client, "list_conflicts")
        assert seattle in listed and portland in listed
        await ok(client, "confirm_conflict", belief_id=f"[m:{portland}]")
        statuses = {b.short_id: b.status for b in store.list_beliefs("alice")}
        assert statuses == {portland: "active", seattle: "superseded"}
        assert seattle not in await ok(client, "list_conflicts")

    drive(store, scenario, "alice")


def _line(text: str, short: str) -> str:
    return next(line for line in text.splitlines() if f"[m:{short}]" in line)


def _utility(memory: Memory, principal: str, word: str) -> float:
    (record,) = [b for b in memory.list_beliefs(principal) if word in b.statement]
    return record.utility


def test_a_token_server_reached_without_a_token_names_no_principal(memory: Memory) -> None:
    # In process there is no bearer middleware in front: the tools refuse on their own.
    tokens = TokenTable.from_mapping({"alice-token-0123456789abcdef": "alice"})

    async def main() -> None:
        async with Client(build_server(memory, tokens=tokens)) as client:
            assert "no principal" in await refused(client, "open_session")
            assert "no principal" in await refused(client, "recall", query="where")
            with pytest.raises(MCPError, match="no principal"):
                await client.read_resource("memory://beliefs")

    head = log_head(memory)
    anyio.run(main)
    assert log_head(memory) == head


def test_record_source_turn_carries_the_declared_sources_declaration(store: Memory) -> None:
    repo = store.sources.declare("repo docs", authority="repository_attested")
    store.sources.declare("crawler", authority="untrusted")

    async def scenario(client: Client) -> None:
        session = (await ok(client, "open_session")).strip()

        async def through(source: str, text: str) -> str:
            return await ok(
                client, "record_source_turn", session_id=session, source=source, text=text
            )

        line = await through("repo docs", "I use Emacs.")
        assert line == "recorded turn 1 through source 'repo docs' (repository_attested, unknown)"
        line = await through("crawler", "I live in Rome.")
        assert line.endswith("kept as evidence only: an untrusted source's content never forms")
        line = await through("pastebin", "I own a yacht.")
        assert "(never declared: unknown / untrusted)" in line
        await ok(client, "close_session", session_id=session)

    drive(store, scenario, "alice")
    [formed] = store.list_beliefs("alice")
    assert formed.statement == "User uses Emacs."
    assert store.sources.for_belief(formed) == repo
