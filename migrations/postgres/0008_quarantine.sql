-- 0008 reliability. Events the read model could not apply: recorded here,
-- reported by `projections status` and `stats`, skipped (a rebuild meets them again
-- and records them again). PROJECTION_SCHEMA_VERSION 7, which also re-keys principals
-- whose names hold a slash (memory_es/domain/values.py principal_identity).
CREATE TABLE IF NOT EXISTS {p}quarantined_events (
    position BIGINT PRIMARY KEY,
    originator_id TEXT NOT NULL,
    topic TEXT NOT NULL,
    error TEXT NOT NULL
);
-- The numbers SequentialIds hands out on a persistent store, reserved a block at a time
-- by each process: not a read model (a rebuild never resets it), so it has no prefix.
CREATE TABLE IF NOT EXISTS id_sequence (
    name TEXT PRIMARY KEY,
    next BIGINT NOT NULL
);
