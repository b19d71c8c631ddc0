-- 0009 re-derivation. The formation key of each session's latest
-- consolidation, so start-up learns whether a re-derivation is pending from the read
-- model instead of a scan of the log. PROJECTION_SCHEMA_VERSION 8.
ALTER TABLE {p}sessions ADD COLUMN formation TEXT;
