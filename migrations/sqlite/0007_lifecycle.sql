-- 0007 lifecycle: the usage clock, the idle instant the decay sweep selects
-- on (the later of last evidence and last use), the last touch (one sweep per
-- interval), importance, pins and the lifecycle interval L1's retention counts from.
-- PROJECTION_SCHEMA_VERSION 6: a store built before it is refused until
-- `memory-es projections rebuild` fills the new columns from the log.
ALTER TABLE {p}beliefs ADD COLUMN last_used_at TEXT;
ALTER TABLE {p}beliefs ADD COLUMN idle_since TEXT NOT NULL DEFAULT '';
ALTER TABLE {p}beliefs ADD COLUMN touched_at TEXT NOT NULL DEFAULT '';
ALTER TABLE {p}beliefs ADD COLUMN importance INTEGER NOT NULL DEFAULT 1;
ALTER TABLE {p}beliefs ADD COLUMN pinned SMALLINT NOT NULL DEFAULT 0;
ALTER TABLE {p}beliefs ADD COLUMN interval_started_at TEXT NOT NULL DEFAULT '';
CREATE INDEX IF NOT EXISTS {p}ix_beliefs_idle ON {p}beliefs (authority, status, last_evidence_at, belief_id);
