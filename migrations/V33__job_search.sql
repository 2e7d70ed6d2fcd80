-- Full-text search over a job's code, output and metadata (the audit UI's search and GET /v1/jobs?q=)
-- and the metadata filter (jsonb containment), each one index lookup inside the tenant's list query.
--
-- The document is an expression index rather than a stored column: nothing is written twice, and
-- Hibernate maps no tsvector. Each part is cut to its first 32 KiB (metadata 8 KiB) so a document stays
-- far below PostgreSQL's 1 MB tsvector cap: a long output never makes a job's row fail to store.
-- 'simple' splits on non-word characters and lowercases, with no stemming or stop words: code and
-- output are not English prose. The two functions are plain SQL so the planner inlines them, and the
-- query's expression equals the index's.
CREATE FUNCTION job_search_document(code text, stdout text, stderr text, metadata jsonb) RETURNS tsvector
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT to_tsvector('simple'::regconfig,
        left(coalesce(code, ''), 32768) || ' ' || left(coalesce(stdout, ''), 32768) || ' '
        || left(coalesce(stderr, ''), 32768) || ' ' || left(coalesce(metadata::text, ''), 8192)) $$;

-- websearch syntax: words (all must occur), "a phrase", or, -not; never an error for any input.
CREATE FUNCTION job_search_matches(code text, stdout text, stderr text, metadata jsonb, query text) RETURNS boolean
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT job_search_document(code, stdout, stderr, metadata) @@ websearch_to_tsquery('simple'::regconfig, query) $$;

CREATE INDEX jobs_search ON jobs USING gin (job_search_document(code, stdout, stderr, metadata));

-- wanted: a JSON object the service writes from bound parameters, never SQL text.
CREATE FUNCTION job_metadata_contains(metadata jsonb, wanted text) RETURNS boolean
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT metadata @> wanted::jsonb $$;

CREATE INDEX jobs_metadata ON jobs USING gin (metadata jsonb_path_ops);

-- The audit page lists events that are not a job's, newest first, optionally of one kind.
CREATE INDEX audit_not_jobs ON audit_events (tenant_id, kind, id DESC) WHERE job_id IS NULL;
