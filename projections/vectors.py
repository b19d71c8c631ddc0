"""The vector arm's storage form: float32 vectors, little-endian, one row per belief.

The encoder wraps an embedder (memory_es/retrieval/embedding.py). Vectors are written by
the index writer when a belief is formed, so the vector index is rebuilt with the others;
similarity is computed in Python from the stored bytes, identically on every store.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from memory_es.projections.records import BeliefRecord


class Embedder(Protocol):
    """Text to a fixed-length vector. ``name`` identifies model and dimensions."""

    @property
    def name(self) -> str: ...

    def embed(self, texts: Sequence[str]) -> list[list[float]]: ...


class VectorEncoder:
    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder

    @property
    def name(self) -> str:
        return self.embedder.name

    def encode(self, text: str) -> bytes:
        (vector,) = self.embedder.embed([text])
        return struct.pack(f"<{len(vector)}f", *vector)

    @staticmethod
    def decode(blob: bytes) -> tuple[float, ...]:
        return struct.unpack(f"<{len(blob) // 4}f", bytes(blob))

    def cosine(self, query: Sequence[float], blob: bytes) -> float:
        vector = self.decode(blob)
        dot = math.fsum(a * b for a, b in zip(query, vector, strict=False))
        norm = math.sqrt(math.fsum(a * a for a in query)) * math.sqrt(
            math.fsum(b * b for b in vector)
        )
        return dot / norm if norm else 0.0


def vector_text(record: BeliefRecord) -> str:
    """What a belief's vector embeds: its statement and subjects (as its lexemes do)."""
    return record.statement + " " + " ".join(record.subjects)
