CREATE TABLE IF NOT EXISTS {p}sessions (
    session_id TEXT PRIMARY KEY,
    principal TEXT NOT NULL,
    project TEXT NOT NULL,
    opened_at TEXT NOT NULL,
    last_activity_at TEXT NOT NULL,
    closed_at TEXT
);
CREATE INDEX IF NOT EXISTS {p}ix_sessions_open_activity ON {p}sessions (closed_at, last_activity_at, session_id);
