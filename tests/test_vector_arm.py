"""The optional vector arm: an embedder port, RRF fusion, a rebuildable vector index."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import pytest

import memory_es
from memory_es.errors import StaleReadModel
from memory_es.ports import FixedClock
from memory_es.profiles import load_profile
from memory_es.retrieval.embedding import HashedEmbedder
from memory_es.retrieval.tokenizer import lexemes

HYBRID = load_profile({"retrieval": {"semantic_enabled": True}})
CONCEPTS = {"wife": 0, "spouse": 0, "husband": 0, "morgan": 1, "live": 2, "lives": 2, "home": 2}


class ConceptEmbedder:
    """A tiny deterministic 'semantic' model: synonyms share a dimension."""

    name = "concepts-4"

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        out = []
        for text in texts:
            vector = [0.0, 0.0, 0.0, 0.0]
            for word in lexemes(text):
                vector[CONCEPTS.get(word, 3)] += 1.0
            vector[3] *= 0.1
            out.append(vector)
        return out


def _form(memory: memory_es.Memory) -> None:
    session = memory.open_session("alice")
    memory.say(session, "My wife is Morgan. I live in Oslo.")
    memory.close_session(session)


def test_the_hashed_embedder_is_deterministic_and_normalised() -> None:
    embedder = HashedEmbedder(64)
    (a,), (b,) = embedder.embed(["User lives in Oslo."]), embedder.embed(["User lives in Oslo."])
    assert a == b and len(a) == 64 and embedder.name == "hashed-64"
    assert math.isclose(math.fsum(x * x for x in a), 1.0)
    (near,), (far,) = embedder.embed(["user lives in oslo now"]), embedder.embed(["tea"])
    dot = lambda u, v: sum(x * y for x, y in zip(u, v, strict=True))  # noqa: E731
    assert dot(a, near) > dot(a, far)


def test_the_vector_arm_is_off_by_default(clock: FixedClock) -> None:
    with memory_es.open("memory://", clock=clock) as memory:
        _form(memory)
        assert memory.index.vector_encoder is None
        assert all(s.cosine is None for s in memory.recall("alice", "wife").items)


def test_the_vector_arm_finds_what_no_lexeme_matches(clock: FixedClock) -> None:
    with memory_es.open("memory://", clock=clock) as lexical_only:
        _form(lexical_only)
        assert lexical_only.recall("alice", "Who is my husband?").items == ()
    with memory_es.open(
        "memory://", clock=clock, profile=HYBRID, embedder=ConceptEmbedder()
    ) as hybrid:
        _form(hybrid)
        result = hybrid.recall("alice", "Who is my husband?", limit=1)
        assert [s.record.statement for s in result.items] == ["User's wife is Morgan."]
        assert result.items[0].lexical == 0 and result.items[0].cosine is not None
        trace = hybrid.trace(result.trace_id or "")
        assert trace is not None and trace.vector_candidates == 2 and trace.vector_ms is not None


def test_the_vector_index_is_rebuilt_and_a_store_without_it_reads_stale(
    tmp_path: Path, clock: FixedClock
) -> None:
    url = f"sqlite:///{tmp_path / 'v.db'}"
    with memory_es.open(url, clock=clock) as plain:
        _form(plain)
    with pytest.raises(StaleReadModel, match="projections rebuild"):
        memory_es.open(url, profile=HYBRID)
    with memory_es.open(url, clock=clock, profile=HYBRID, on_stale="rebuild") as hybrid:
        assert hybrid.projection_status().version.endswith(";vectors=hashed-256")  # type: ignore[union-attr]
        dump = hybrid.index.dump()
        assert len(dump["vectors"]) == 2
        hybrid.rebuild_projections()
        assert hybrid.index.dump() == dump
        assert hybrid.recall("alice", "where do I live").items[0].cosine is not None
