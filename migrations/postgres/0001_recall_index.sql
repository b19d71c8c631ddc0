CREATE TABLE IF NOT EXISTS {p}beliefs (
    belief_id TEXT PRIMARY KEY,
    short_id TEXT NOT NULL,
    principal TEXT NOT NULL,
    statement TEXT NOT NULL,
    belief_type TEXT NOT NULL,
    subjects TEXT NOT NULL,
    polarity SMALLINT NOT NULL,
    authority SMALLINT NOT NULL,
    confidence DOUBLE PRECISION NOT NULL,
    status TEXT NOT NULL,
    project TEXT NOT NULL,
    portable SMALLINT NOT NULL,
    source_event_ids TEXT NOT NULL,
    source_session_id TEXT NOT NULL,
    valid_from TEXT NOT NULL,
    valid_to TEXT,
    successor_id TEXT,
    conflicts_with TEXT NOT NULL,
    position BIGINT NOT NULL,
    evidence_count BIGINT NOT NULL,
    last_evidence_at TEXT NOT NULL,
    formed_at TEXT NOT NULL,
    policy TEXT NOT NULL,
    doc_len BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS {p}belief_terms (
    principal TEXT NOT NULL,
    term TEXT NOT NULL,
    belief_id TEXT NOT NULL,
    tf BIGINT NOT NULL,
    PRIMARY KEY (principal, term, belief_id)
);
CREATE TABLE IF NOT EXISTS {p}heads (
    principal TEXT PRIMARY KEY,
    position BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS {p}principals (
    aggregate_id TEXT PRIMARY KEY,
    principal TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS {p}ix_beliefs_principal_position ON {p}beliefs (principal, position);
