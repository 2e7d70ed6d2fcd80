-- A session's environment build is marked as a build (issue 38): underneath it is a job like any
-- other (code that does nothing), but an auditor reads it as the session's build, not as code
-- someone ran. Builds ahead of use (/v1/environments) are known by their metadata mark already.
ALTER TABLE jobs ADD COLUMN build text CHECK (build IN ('session'));
UPDATE jobs SET build = 'session' WHERE id IN (SELECT build_job_id FROM sessions WHERE build_job_id IS NOT NULL);
