"""Context packs: the pure pieces (token estimate, block fitting, correction lines) and
the ``memory-es context`` command on SQLite and PostgreSQL.

Store-facing behaviour (gate.memory.recall_delta and gate.memory.correction_lines, episode paging)
is in tests/context_conformance.py.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import memory_es
from memory_es.cli import main
from memory_es.context.budget import estimate_tokens, fit_lines, render_block
from memory_es.context.corrections import render_correction
from memory_es.context.snapshot import SYSTEM_PREAMBLE, prefix_digest, render_prefix
from memory_es.ports import FixedClock
from memory_es.profiles import load_profile

SEATTLE = "8f21a0c3-0000-4000-8000-000000000001"
PORTLAND = "9d02b117-0000-4000-8000-000000000002"


def test_a_correction_line_names_its_successor_and_its_end_of_validity() -> None:
    assert render_correction(SEATTLE, "2026-07-24T00:00:00Z", PORTLAND) == (
        "correction: [m:8f21a0c3] no longer holds as of 2026-07-24T00:00:00Z;"
        " superseded by [m:9d02b117]."
    )


def test_a_correction_without_a_successor_omits_the_superseding_clause() -> None:
    assert render_correction(SEATTLE, "2026-07-24T00:00:00Z", None) == (
        "correction: [m:8f21a0c3] no longer holds as of 2026-07-24T00:00:00Z."
    )
    assert render_correction(SEATTLE, None, None) == "correction: [m:8f21a0c3] no longer holds."


def test_the_token_estimate_is_a_quarter_of_the_characters_rounded_up() -> None:
    assert [estimate_tokens(t) for t in ("", "a", "abcd", "abcde")] == [0, 1, 1, 2]


@given(
    st.lists(st.text(min_size=1, max_size=60), max_size=12),
    st.integers(min_value=0, max_value=15),
    st.integers(min_value=0, max_value=400),
)
def test_a_fitted_block_is_a_ranked_prefix_within_both_allowances(
    lines: list[str], max_items: int, max_tokens: int
) -> None:
    kept, tokens = fit_lines("Header:", lines, max_items=max_items, max_tokens=max_tokens)
    assert kept <= max_items and tokens <= max_tokens
    assert tokens == estimate_tokens(render_block("Header:", lines[:kept]))
    if kept < min(max_items, len(lines)):  # the next line was the one that did not fit
        assert estimate_tokens(render_block("Header:", lines[: kept + 1])) > max_tokens


def test_the_prefix_is_the_preamble_and_the_snapshot_block() -> None:
    empty = render_prefix([])
    assert empty.startswith(SYSTEM_PREAMBLE) and empty.endswith("nothing yet.")
    full = render_prefix(["[m:8f21a0c3] User lives in Seattle."])
    assert full.endswith("Memory at session start:\n[m:8f21a0c3] User lives in Seattle.")
    assert len(prefix_digest(full)) == 64 and prefix_digest(full) != prefix_digest(empty)


def run(capsys: pytest.CaptureFixture[str], url: str, now: str, *args: str) -> tuple[int, str]:
    try:
        code = main(["--store", url, "--now", now, *args])
    except SystemExit as exit_:
        code = int(exit_.code or 0)
    out, err = capsys.readouterr()
    return code, out + err


def test_the_context_command_prints_the_pack(
    capsys: pytest.CaptureFixture[str], persistent_store_url: str
) -> None:
    url = persistent_store_url
    _, out = run(capsys, url, "2026-03-02T09:00:00Z", "session", "open", "--principal", "ana")
    first = out.strip()
    run(capsys, url, "2026-03-02T09:01:00Z", "session", "say", first, "I live in Seattle.")
    run(capsys, url, "2026-03-02T09:02:00Z", "session", "close", first)
    _, out = run(capsys, url, "2026-03-03T09:00:00Z", "session", "open", "--principal", "ana")
    current = out.strip()
    _, out = run(capsys, url, "2026-03-03T09:01:00Z", "session", "open", "--principal", "ana")
    other = out.strip()
    run(capsys, url, "2026-03-03T09:02:00Z", "session", "say", other, "I live in Lisbon now.")
    run(capsys, url, "2026-03-03T09:03:00Z", "session", "close", other)

    code, out = run(
        capsys, url, "2026-03-03T09:04:00Z", "context", "--session", current, "Where do I live?"
    )
    assert code == 0, out
    headers = [line for line in out.splitlines() if line.startswith("--- ")]
    assert [h.split(" sha256:")[0].rstrip(" -") for h in headers] == [
        "--- system: prefix",
        "--- memory: recall",
        "--- memory: corrections",
        "--- user: turn",
    ]
    assert out.splitlines()[-1] == "Where do I live?"
    assert "] User lives in Lisbon." in out and "no longer holds as of" in out

    code, out = run(
        capsys,
        url,
        "2026-03-03T09:04:00Z",
        "context",
        "--session",
        current,
        "--json",
        "Where do I live?",
    )
    assert code == 0, out
    pack = orjson.loads(out)
    assert {"prefix_digest", "snapshot", "recall", "delta", "corrections"} <= set(pack)
    assert len(pack["snapshot"]) == 1 and pack["snapshot"][0]["line"].endswith("Seattle.")
    assert [c["successor_id"] for c in pack["corrections"]] == [pack["recall"][0]["belief_id"]]
    assert headers[0] == f"--- system: prefix sha256:{pack['prefix_digest'][:8]} ---"


def test_the_context_command_refuses_an_unknown_session(
    capsys: pytest.CaptureFixture[str], persistent_store_url: str
) -> None:
    memory_es.open(persistent_store_url).close()  # a store that exists, without the session
    code, out = run(
        capsys, persistent_store_url, "2026-03-03T09:04:00Z", "context", "--session", "x", "hi"
    )
    assert code == 2 and out.strip() == "memory-es: error: unknown session: x"


STATEMENTS = st.sampled_from(
    [
        "I live in Seattle.",
        "I live in Portland.",
        "I live in Lisbon.",
        "My wife is Morgan.",
        "My wife is Sam.",
        "My dog is Rex.",
        "My dog is Fido.",
        "My sister is Ada.",
        "I prefer tea.",
        "I prefer coffee.",
    ]
)
KINDS = ["prefix", "recall", "delta", "corrections", "turn"]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    before=st.lists(STATEMENTS, min_size=1, max_size=4),
    later=st.lists(st.lists(STATEMENTS, min_size=1, max_size=3), min_size=1, max_size=4),
    slack=st.lists(st.integers(min_value=0, max_value=120), min_size=4, max_size=4),
)
def test_gates_14_and_15_hold_over_generated_histories(
    before: list[str], later: list[list[str]], slack: list[int]
) -> None:
    """Whatever happens after the snapshot, under whatever window the fixed body fits:
    the prefix digest stays, every snapshot member that stopped holding gets exactly one
    correction (sorted by id), the delta is past the watermark and disjoint from the
    base, and the pack fits its window."""
    clock = FixedClock(datetime(2026, 3, 2, 9, 0, tzinfo=UTC))
    with memory_es.open("memory://", clock=clock, ids=memory_es.SequentialIds()) as memory:
        first = memory.open_session("alice")
        memory.say(first, " ".join(before))
        memory.close_session(first)
        session = memory.open_session("alice")
        opened = memory.context(session, "Where do I live?")
        for turns, extra in zip(later, slack, strict=False):
            clock.advance(3600)
            other = memory.open_session("alice")
            memory.say(other, " ".join(turns))
            memory.close_session(other)
            roomy = memory.context(session, "Where do I live?")
            fixed = sum(
                m.tokens for m in roomy.messages if m.kind in ("prefix", "corrections", "turn")
            )
            pack = memory.context(session, "Where do I live?", window_tokens=fixed + extra)

            assert pack.prefix_digest == opened.prefix_digest
            gone = sorted(
                b.belief_id
                for b in map(memory.index.get, (i.belief_id for i in opened.snapshot))
                if b is not None and b.status != "active"
            )
            assert [c.belief_id for c in pack.corrections] == gone
            assert pack.corrections == roomy.corrections
            kinds = [m.kind for m in pack.messages]
            assert kinds == [k for k in KINDS if k in kinds] and kinds[-1] == "turn"
            assert ("corrections" in kinds) == bool(gone)
            assert pack.tokens <= fixed + extra
            assert opened.watermark is not None
            assert all(i.position is not None and i.position > opened.watermark for i in pack.delta)
            assert not {i.belief_id for i in pack.delta} & {i.belief_id for i in pack.recall}
            assert len(pack.recall) + len(pack.delta) <= load_profile().context.recall_max_items


def test_an_overlay_changes_the_context_budgets(tmp_path: Path) -> None:
    overlay = tmp_path / "small.yaml"
    overlay.write_text("context:\n  recall_max_items: 1\n  snapshot_max_items: 1\n")
    with memory_es.open("memory://", profile=overlay) as memory:
        session = memory.open_session("ana")
        memory.say(session, "I live in Oslo. I prefer tea. My wife is Morgan. I use Vim.")
        memory.close_session(session)
        chat = memory.open_session("ana")
        pack = memory.context(chat, "where do I live, what do I drink, who is my wife?")
        assert len(pack.snapshot) == 1
        assert len(pack.recall) + len(pack.delta) == 1
