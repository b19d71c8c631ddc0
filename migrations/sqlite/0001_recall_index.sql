CREATE TABLE IF NOT EXISTS {p}beliefs (
    belief_id TEXT PRIMARY KEY,
    short_id TEXT NOT NULL,
    principal TEXT NOT NULL,
    statement TEXT NOT NULL,
    belief_type TEXT NOT NULL,
    subjects TEXT NOT NULL,
    polarity INTEGER NOT NULL,
    authority INTEGER NOT NULL,
    confidence REAL NOT NULL,
    status TEXT NOT NULL,
    project TEXT NOT NULL,
    portable INTEGER NOT NULL,
    source_event_ids TEXT NOT NULL,
    source_session_id TEXT NOT NULL,
    valid_from TEXT NOT NULL,
    valid_to TEXT,
    successor_id TEXT,
    conflicts_with TEXT NOT NULL,
    position INTEGER NOT NULL,
    evidence_count INTEGER NOT NULL,
    last_evidence_at TEXT NOT NULL,
    formed_at TEXT NOT NULL,
    policy TEXT NOT NULL,
    doc_len INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS {p}belief_terms (
    principal TEXT NOT NULL,
    term TEXT NOT NULL,
    belief_id TEXT NOT NULL,
    tf INTEGER NOT NULL,
    PRIMARY KEY (principal, term, belief_id)
);
CREATE TABLE IF NOT EXISTS {p}heads (
    principal TEXT PRIMARY KEY,
    position INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS {p}principals (
    aggregate_id TEXT PRIMARY KEY,
    principal TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS {p}ix_beliefs_principal_position ON {p}beliefs (principal, position);
