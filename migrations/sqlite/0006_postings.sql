-- 0006 postings in blocks: a term's postings are packed records (belief number, tf,
-- indexed length) in blocks of 512, one row a block, instead of one row a posting, and
-- beliefs are numbered per principal in the order they are indexed. Recall reads a
-- query's blocks whole and scores them at once (projections/candidates.py). The term
-- statistics kept for the row-per-posting search give way to a directory row per term:
-- how many beliefs hold it (its document frequency) and in how many blocks, so a writer
-- finds a term's last block by key.
-- PROJECTION_SCHEMA_VERSION 5: a store built before it is refused until
-- `memory-es projections rebuild` fills the new table and numbers.
DROP TABLE IF EXISTS {p}belief_terms;
DROP TABLE IF EXISTS {p}term_stats;
ALTER TABLE {p}beliefs ADD COLUMN belief_no INTEGER NOT NULL DEFAULT 0;
CREATE TABLE IF NOT EXISTS {p}postings (
    principal TEXT NOT NULL,
    term TEXT NOT NULL,
    block INTEGER NOT NULL,
    size INTEGER NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY (principal, term, block)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS {p}term_stats (
    principal TEXT NOT NULL,
    term TEXT NOT NULL,
    documents INTEGER NOT NULL,
    blocks INTEGER NOT NULL,
    PRIMARY KEY (principal, term)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS {p}ix_beliefs_principal_no ON {p}beliefs (principal, belief_no)
