-- 0011 antecedents. Each turn's antecedent words (projector.antecedent_words), kept for
-- the turn after it in its session: an inferred reading of that turn indexes them, so
-- an answer is found by the words of the question it answers. PROJECTION_SCHEMA_VERSION 10.
CREATE TABLE IF NOT EXISTS {p}turns (
    turn_id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    words TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS {p}ix_turns_session_seq ON {p}turns (session_id, seq);
