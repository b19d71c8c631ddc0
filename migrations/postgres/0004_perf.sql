-- 0004 perf: the lexeme table carries each belief's indexed length (immutable: a
-- belief's statement and subjects never change), so BM25 scores every posting without
-- reading the beliefs table. The read-model version moves with this
-- (PROJECTION_SCHEMA_VERSION 3), a store built before it is refused until
-- `memory-es projections rebuild` fills the column.
ALTER TABLE {p}belief_terms ADD COLUMN doc_len BIGINT NOT NULL DEFAULT 0
