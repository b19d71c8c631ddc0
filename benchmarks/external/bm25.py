"""The raw-turn reference: BM25 over turns, with the project's one tokenizer.

This is not a memory_es arm. It is the yardstick the issue names — what a plain lexical
retriever over the principal's own turns reaches on the same questions — computed by the
same harness, so the gap between it and belief recall is visible. Documents are indexed
with ``document_terms`` (lexemes plus stems), queries with ``query_terms`` (stopwords
dropped), exactly the forms the recall index uses.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from memory_es.retrieval.tokenizer import document_terms, query_terms

K1 = 1.2
B = 0.75


@dataclass(frozen=True)
class Doc:
    ref: str
    text: str
    terms: Counter[str]


class BM25:
    def __init__(self, docs: Sequence[Doc]) -> None:
        self.docs = list(docs)
        self.lengths = [sum(d.terms.values()) for d in self.docs]
        self.avg = (sum(self.lengths) / len(self.lengths)) if self.docs else 0.0
        df: Counter[str] = Counter()
        for doc in self.docs:
            df.update(doc.terms.keys())
        n = len(self.docs)
        self.idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in df.items()}

    def top(self, query: str, k: int) -> list[Doc]:
        terms = [t for t in query_terms(query) if t in self.idf]
        if not terms or not self.docs:
            return []
        scored: list[tuple[float, int]] = []
        for i, doc in enumerate(self.docs):
            norm = K1 * (1 - B + B * self.lengths[i] / self.avg) if self.avg else K1
            s = 0.0
            for t in terms:
                tf = doc.terms.get(t, 0)
                if tf:
                    s += self.idf[t] * tf * (K1 + 1) / (tf + norm)
            if s > 0:
                scored.append((s, i))
        scored.sort(key=lambda x: (-x[0], x[1]))
        return [self.docs[i] for _, i in scored[:k]]


def make_doc(ref: str, text: str) -> Doc:
    return Doc(ref=ref, text=text, terms=document_terms(text))
