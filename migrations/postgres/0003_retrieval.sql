-- 0003 retrieval: usage utility as a ranking input, BM25 collection statistics, the
-- optional vector index (all rebuilt with the read model), and recall traces. Traces are
-- operational records, not a projection of the log: their table has no rebuild prefix,
-- so a rebuild leaves them alone.
ALTER TABLE {p}beliefs ADD COLUMN utility DOUBLE PRECISION NOT NULL DEFAULT 0;
CREATE TABLE IF NOT EXISTS {p}principal_stats (
    principal TEXT PRIMARY KEY,
    documents BIGINT NOT NULL,
    total_len BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS {p}belief_vectors (
    belief_id TEXT PRIMARY KEY,
    principal TEXT NOT NULL,
    vector BYTEA NOT NULL
);
CREATE TABLE IF NOT EXISTS recall_traces (
    trace_id TEXT PRIMARY KEY,
    principal TEXT NOT NULL,
    kind TEXT NOT NULL,
    session_id TEXT,
    created_at TEXT NOT NULL,
    operator_expires_at TEXT NOT NULL,
    operator_expired SMALLINT NOT NULL DEFAULT 0,
    policy TEXT NOT NULL,
    as_of TEXT,
    item_limit INTEGER NOT NULL,
    returned TEXT NOT NULL,
    cited TEXT NOT NULL,
    blocked TEXT NOT NULL,
    dropped_count INTEGER NOT NULL,
    conflicts INTEGER NOT NULL,
    lexical_ms DOUBLE PRECISION,
    vector_ms DOUBLE PRECISION,
    rank_ms DOUBLE PRECISION,
    total_ms DOUBLE PRECISION,
    lexical_candidates INTEGER,
    vector_candidates INTEGER,
    dropped TEXT
);
CREATE INDEX IF NOT EXISTS {p}ix_belief_vectors_principal ON {p}belief_vectors (principal);
CREATE INDEX IF NOT EXISTS ix_recall_traces_expiry ON recall_traces (operator_expired, operator_expires_at);
CREATE INDEX IF NOT EXISTS ix_recall_traces_principal ON recall_traces (principal, created_at);
