"""Postings in blocks: every store gives the same candidates, and the blocks hold them.

A principal whose frequent terms span several blocks (a few words in most beliefs, as in
the benchmark's Zipf vocabulary; words repeat inside a statement, so tf goes above 1),
written over many writer transactions so every term's last block is appended to, must
give the same candidates, order and BM25 integers on SQLite and PostgreSQL as on the
in-memory store. Some rows are filtered out (status, project), so the cap is taken after
the filters, and the best scores read in slices reach past the first.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from memory_es.projections import candidates as cq
from memory_es.projections.base import RecallIndex
from memory_es.projections.sql import SqlRecallIndex
from memory_es.retrieval.query import form_query
from tests.records import every_index, indexed_belief, insert_everywhere

WORDS = [f"w{chr(97 + i // 26)}{chr(97 + i % 26)}" for i in range(300)]
PRINCIPAL = "default/zipf"


def _statement(rng: random.Random) -> str:
    weights = [1.0 / (rank + 1) ** 1.05 for rank in range(len(WORDS))]
    return " ".join(rng.choices(WORDS, weights=weights, k=rng.randint(3, 9)))


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, RecallIndex]]:
    rng = random.Random(5)
    rows = []
    for n in range(1, 2401):
        statement = _statement(rng)
        rows.append(
            indexed_belief(
                n,
                PRINCIPAL,
                statement,
                subject=statement.split()[0],
                status="retired" if n % 17 == 0 else "active",
                project="elsewhere" if n % 11 == 0 else "general",
            )
        )
    with every_index(tmp_path_factory.mktemp("postings")) as found:
        for start in range(0, len(rows), 150):  # tails appended to across transactions
            insert_everywhere(found, rows[start : start + 150])
        yield found


A, B, C = WORDS[0], WORDS[1], WORDS[2]  # the most frequent words
QUERIES = [
    A,  # the most frequent word alone
    f"{A} {B}",  # two frequent words: no rare term to start from
    f"{A} {B} {C}",
    f"{A} {B} my",  # a boost term ("user")
    f"{A} {WORDS[25]}",  # frequent and mid
    f"{A} {B} {WORDS[250]}",  # frequent words and one held by a handful of beliefs
    f"{B} {WORDS[60]} {WORDS[200]}",  # mid and rare
    f"{A} zzz",  # a word no belief holds
    *(f"{A} {w} {v}" for w, v in zip(WORDS[3:40:3], WORDS[40:300:20], strict=False)),
]


@pytest.mark.parametrize("cap", [5, 80])
@pytest.mark.parametrize("query", QUERIES)
def test_the_sql_stores_answer_as_the_memory_store_scoring_every_belief(
    stores: dict[str, RecallIndex], query: str, cap: int
) -> None:
    formed = form_query(query, project="general")
    answers = {
        name: [
            (c.record.belief_id, c.matched, c.lexical)
            for c in index.candidates(
                PRINCIPAL, formed.terms, boost=formed.boost, project="general", cap=cap
            )
        ]
        for name, index in stores.items()
    }
    assert answers["memory"], query
    for name, answer in answers.items():
        assert answer == answers["memory"], name


def test_a_terms_postings_fill_blocks_in_belief_number_order(
    stores: dict[str, RecallIndex],
) -> None:
    for name, index in stores.items():
        if not isinstance(index, SqlRecallIndex):
            continue
        rows = index.execute(
            "SELECT block, size, data FROM postings WHERE principal = ? AND term = ?"
            " ORDER BY block",
            (PRINCIPAL, A),
        )
        df = index._statistics(PRINCIPAL, [A])[2][A]
        assert len(rows) == -(-df // cq.BLOCK) > 1, name  # full blocks, then the tail
        # The term's directory row, which writers read to find its last block.
        directory = index.execute(
            "SELECT documents, blocks FROM term_stats WHERE principal = ? AND term = ?",
            (PRINCIPAL, A),
        )
        assert [tuple(map(int, r)) for r in directory] == [(df, len(rows))], name
        assert [int(b) for b, _, _ in rows] == list(range(len(rows))), name
        assert all(int(size) == cq.BLOCK for _, size, _ in rows[:-1]), name
        numbers = cq.unpack([bytes(d) for _, _, d in rows])["no"]
        assert len(numbers) == df and (numbers[1:] > numbers[:-1]).all(), name


def test_scoring_arrays_gives_each_posting_the_scalar_formulas_integer() -> None:
    p = cq.Bm25Params()
    postings = np.array(
        [
            (n, tf, length)
            for n, (tf, length) in enumerate(
                [(tf, length) for tf in range(1, 7) for length in range(1, 90)], start=1
            )
        ],
        dtype=cq.posting_dtype(),
    )
    for weight, avgdl in ((523.7, 14.2), (2890.1, 9.5), (7012.4, 21.0)):
        numbers, matched, lex = cq.scores(
            [cq.TermWeight("t", weight, True)], {"t": postings}, avgdl, p
        )
        expected = [
            cq.contribution(weight, int(r["tf"]), int(r["len"]), avgdl, p) for r in postings
        ]
        assert numbers.tolist() == postings["no"].tolist()
        assert lex.tolist() == expected
        assert matched.tolist() == [1] * len(postings)


def test_a_rebuild_writes_each_block_once_and_builds_what_incremental_writes_build(
    tmp_path: Path,
) -> None:
    rng = random.Random(9)
    rows = []
    for n in range(1, 1301):
        statement = _statement(rng)
        rows.append(indexed_belief(n, PRINCIPAL, statement, subject=statement.split()[0]))
    (tmp_path / "rebuilt").mkdir()
    (tmp_path / "incremental").mkdir()
    with (
        every_index(tmp_path / "rebuilt") as rebuilt,
        every_index(tmp_path / "incremental") as incremental,
    ):
        for start in range(0, len(rows), 200):  # pages: tails appended to, rewritten
            insert_everywhere(incremental, rows[start : start + 200])
        for name, index in rebuilt.items():
            if not isinstance(index, SqlRecallIndex):
                continue
            sent = _record_statements(index)
            index.start_rebuild()
            for page, start in enumerate(range(0, len(rows), 200), start=1):
                with index.writer(rebuild=True) as writer:
                    for record, terms in rows[start : start + 200]:
                        writer.insert_belief(record, terms)
                    writer.set_tracking(page)
            index.finish_rebuild()
            # Each block written once: no page rewrote a last block.
            assert not any("UPDATE REBUILD_POSTINGS" in s.upper() for s in sent), name
            dump, expected = index.dump(), incremental[name].dump()
            assert dump["terms"] == expected["terms"], name
            assert dump["term_stats"] == expected["term_stats"], name
            assert max(b for *_, b in dump["term_stats"]) > 1, name  # terms of several blocks


def _record_statements(index: SqlRecallIndex) -> list[str]:
    """Every statement the index sends from now on (its connection's own calls)."""
    sent: list[str] = []
    execute, executemany = index._execute, index._executemany

    def spy(sql: str, params: Any = ()) -> list[tuple[Any, ...]]:
        sent.append(sql)
        return execute(sql, params)

    def spy_many(sql: str, many: Any) -> None:
        sent.append(sql)
        executemany(sql, many)

    index._execute = spy  # type: ignore[method-assign]
    index._executemany = spy_many  # type: ignore[method-assign]
    return sent
