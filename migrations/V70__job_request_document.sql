-- What a job asked for, as one document (job/Submission's JSON): what to run (run: language, code,
-- packages, env, stdin, timeout in seconds, network, limits, args), its output's encoding and its
-- host paths. A new field of a request is stored and read back with no column of its own; metadata,
-- session and rerun keep theirs (searched, joined). The search index reads the code in it.
ALTER TABLE jobs ADD COLUMN request jsonb;
UPDATE jobs SET request = jsonb_build_object(
    'run', jsonb_build_object('language', language, 'code', code, 'packages', packages, 'env', env,
        'stdin', stdin, 'timeout', round(timeout_ms / 1000.0, 3), 'network', network,
        'limits', coalesce(limits, '{}'), 'args', args),
    'encoding', encoding, 'host_workspace', host_workspace, 'host_mounts', coalesce(host_mounts, '[]'));
ALTER TABLE jobs ALTER COLUMN request SET NOT NULL;

DROP INDEX jobs_search;
ALTER TABLE jobs DROP COLUMN language, DROP COLUMN code, DROP COLUMN packages, DROP COLUMN env, DROP COLUMN stdin,
    DROP COLUMN timeout_ms, DROP COLUMN network, DROP COLUMN limits, DROP COLUMN args, DROP COLUMN encoding,
    DROP COLUMN host_workspace, DROP COLUMN host_mounts;
CREATE INDEX jobs_search ON jobs USING gin (job_search_document(request #>> '{run,code}', stdout, stderr, metadata))
    WHERE status NOT IN ('queued', 'building', 'running');
