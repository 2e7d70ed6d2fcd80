-- A session's jobs: its build and its execs.
ALTER TABLE jobs ADD COLUMN session_id uuid;
CREATE INDEX jobs_by_session ON jobs (session_id) WHERE session_id IS NOT NULL;
