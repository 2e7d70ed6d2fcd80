-- Two gaps of V38 and V39 around TRUNCATE of jobs (an operator's, never the service's): V38's
-- trigger deleted the counts row by row, and a fold committing meanwhile left its new total row,
-- which that DELETE could not see, counting jobs that were gone; truncating the counts waits for
-- every writer of them (folds, the triggers of other transactions) and removes every row. V39
-- dropped the key that made TRUNCATE jobs refuse or truncate job_events; the events go too now.
DROP TRIGGER jobs_truncated ON jobs;
DROP FUNCTION forget_queued_counts();

CREATE FUNCTION forget_truncated_jobs() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    TRUNCATE queued_job_counts;
    TRUNCATE job_events;
    RETURN NULL;
END $$;

CREATE TRIGGER jobs_truncated AFTER TRUNCATE ON jobs FOR EACH STATEMENT EXECUTE FUNCTION forget_truncated_jobs();
