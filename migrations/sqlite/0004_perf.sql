-- 0004 perf: the lexeme table carries each belief's indexed length (immutable: a
-- belief's statement and subjects never change), so BM25 scores every posting without
-- reading the beliefs table. WITHOUT ROWID makes the (principal, term, belief_id) key the
-- table itself, so a posting and its tf are one b-tree read (and one write, not two).
-- The read-model version moves with this (PROJECTION_SCHEMA_VERSION 3), a store built
-- before it is refused until `memory-es projections rebuild` fills the new table.
DROP TABLE IF EXISTS {p}belief_terms;
CREATE TABLE IF NOT EXISTS {p}belief_terms (
    principal TEXT NOT NULL,
    term TEXT NOT NULL,
    belief_id TEXT NOT NULL,
    tf INTEGER NOT NULL,
    doc_len INTEGER NOT NULL,
    PRIMARY KEY (principal, term, belief_id)
) WITHOUT ROWID
