-- The search indexes (V33) held entries for every version of every job's row: its status is
-- indexed, so no update of a job is HOT, and each submission, claim and start computed the job's
-- search document and inserted it into both GIN indexes again, though nothing searched the output
-- of a job not yet ended. Kept for ended jobs only, a job enters them once, at its end. The search
-- reads queued, building and running jobs through jobs_queued and jobs_active instead
-- (JobReads.byStatus); the predicate names the statuses, as the queries do, so the planner matches
-- them without relying on finished_at.
DROP INDEX jobs_search;
DROP INDEX jobs_metadata;
CREATE INDEX jobs_search ON jobs USING gin (job_search_document(code, stdout, stderr, metadata))
    WHERE status NOT IN ('queued', 'building', 'running');
CREATE INDEX jobs_metadata ON jobs USING gin (metadata jsonb_path_ops)
    WHERE status NOT IN ('queued', 'building', 'running');
