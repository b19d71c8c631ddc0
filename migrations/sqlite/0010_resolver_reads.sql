-- 0010 the resolver's reads (issue 30), so the resolver reads its candidates from the
-- read model instead of the principal's aggregate: what it compares of each belief
-- (its normalized statement, subject key and source order), whether the decay sweep
-- retired it (new evidence revives it) and the status a deactivated belief had. Two
-- lookups: each belief's subject parts by type (the conflict and contradiction rules),
-- and the turns each belief stood on (the residue lines a supersession carries, found
-- by a shared turn: a row outlives a turn forgetting drops, the reader checks the
-- belief's own sources).
-- PROJECTION_SCHEMA_VERSION 9: a store built as 8 is rebuilt once at start-up (said on
-- stderr: memory_es/bootstrap.py), older ones are refused until rebuilt.
ALTER TABLE {p}beliefs ADD COLUMN normalized TEXT NOT NULL DEFAULT '';
ALTER TABLE {p}beliefs ADD COLUMN subject_key TEXT NOT NULL DEFAULT '';
ALTER TABLE {p}beliefs ADD COLUMN source_seq INTEGER NOT NULL DEFAULT 0;
ALTER TABLE {p}beliefs ADD COLUMN forgotten SMALLINT NOT NULL DEFAULT 0;
ALTER TABLE {p}beliefs ADD COLUMN prior_status TEXT;
CREATE TABLE IF NOT EXISTS {p}belief_subjects (
    principal TEXT NOT NULL,
    belief_type TEXT NOT NULL,
    subject TEXT NOT NULL,
    belief_no INTEGER NOT NULL,
    PRIMARY KEY (principal, belief_type, subject, belief_no)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS {p}belief_sources (
    principal TEXT NOT NULL,
    source_event_id TEXT NOT NULL,
    belief_id TEXT NOT NULL,
    PRIMARY KEY (principal, source_event_id, belief_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS {p}ix_beliefs_normalized ON {p}beliefs (principal, normalized)
