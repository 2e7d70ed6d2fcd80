-- job_events' foreign key to jobs again (V39 dropped it for about 6 µs a checked event): every reader
-- and writer of a job's events can rely on the job existing. A job's events go with it on delete, as
-- V39's trigger did, and with TRUNCATE jobs CASCADE, as V41's did (TRUNCATE jobs alone is refused again).
-- Events left by a job deleted before V39's trigger existed go first.
DROP TRIGGER jobs_events_deleted ON jobs;
DROP FUNCTION delete_job_events();

CREATE OR REPLACE FUNCTION forget_truncated_jobs() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    TRUNCATE queued_job_counts;
    RETURN NULL;
END $$;

DELETE FROM job_events e WHERE NOT EXISTS (SELECT 1 FROM jobs j WHERE j.id = e.job_id);

ALTER TABLE job_events ADD CONSTRAINT job_events_job_id_fkey
    FOREIGN KEY (job_id) REFERENCES jobs (id) ON DELETE CASCADE;
