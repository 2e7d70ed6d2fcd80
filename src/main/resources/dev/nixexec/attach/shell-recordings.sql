-- The statements of shell recordings, by name (ShellRecordings): {Name} stands for that block's
-- text, and whole-line comments are not sent.

-- name: Columns
id, tenant_id, session_id, key_id, started_at, ended_at, bytes_in, bytes_out, truncated, close_code, close_reason,
exit_code

-- name: Store
INSERT INTO shell_recordings ({Columns}, "cast")
VALUES (:id, :tenant, :session, CAST(:key AS uuid), :started_at, :ended_at, :bytes_in, :bytes_out, :truncated,
        :close_code, :close_reason, CAST(:exit_code AS integer), :cast)

-- name: Find
SELECT {Columns}, "cast" FROM shell_recordings WHERE id = :id AND tenant_id = :tenant

-- name: OfSession
SELECT {Columns}, '' AS "cast" FROM shell_recordings WHERE tenant_id = :tenant AND session_id = :session
ORDER BY started_at

-- name: Expire
DELETE FROM shell_recordings WHERE ended_at < now() - make_interval(secs => :retention_seconds)
