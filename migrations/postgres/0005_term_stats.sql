-- 0005 term statistics: per principal and term, how many beliefs hold it, its largest
-- tf and the shortest of those beliefs, kept by the writer (one upsert per term a page
-- touches). Recall reads document frequencies here instead of counting postings, and
-- bounds what a term can add to any belief (max-score skips the postings of terms that
-- cannot lift a belief into the answer). PROJECTION_SCHEMA_VERSION 4: a store built
-- before it is refused until `memory-es projections rebuild` fills the table.
CREATE TABLE IF NOT EXISTS {p}term_stats (
    principal TEXT NOT NULL,
    term TEXT NOT NULL,
    documents BIGINT NOT NULL,
    max_tf BIGINT NOT NULL,
    min_len BIGINT NOT NULL,
    PRIMARY KEY (principal, term)
)
