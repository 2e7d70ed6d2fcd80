-- The statements of sessions, by name (SessionRepository): {Name} stands for that block's text, and
-- whole-line comments are not sent.

-- name: Columns
SELECT id, tenant_id, key_id, name, status, packages::text AS packages, profile, network, env::text AS env,
       writable::text AS writable, agent, description, idle_ttl_ms, build_job_id, workspace_id, store_path,
       nixpkgs_revision, error, created_at, last_used_at, expires_at, host_workspace
  FROM sessions

-- name: LockTenant
-- Held until the transaction ends: one tenant's creates one at a time, so the cap holds.
SELECT pg_advisory_xact_lock(:salt # hashtextextended(CAST(:tenant AS text), 0))

-- name: Live
SELECT count(*) AS live FROM sessions WHERE tenant_id = :tenant AND status <> 'destroyed'

-- name: Insert
INSERT INTO sessions (id, tenant_id, key_id, name, status, packages, profile, network, env, writable,
                      agent, description, idle_ttl_ms, workspace_id, host_workspace, created_at,
                      last_used_at, expires_at)
VALUES (:id, :tenant, CAST(:key AS uuid), CAST(:name AS text), 'building', CAST(:packages AS jsonb),
        CAST(:profile AS text), :network, CAST(:env AS jsonb), CAST(:writable AS jsonb),
        CAST(:agent AS text), CAST(:description AS text), :idle_ttl_ms, CAST(:workspace AS uuid),
        CAST(:host_workspace AS text), now(), now(),
        now() + make_interval(secs => :idle_ttl_seconds))
ON CONFLICT (tenant_id, name) WHERE status <> 'destroyed' AND name IS NOT NULL DO NOTHING

-- name: BuildJob
UPDATE sessions SET build_job_id = :job WHERE id = :id

-- name: Forget
DELETE FROM sessions WHERE id = :id AND tenant_id = :tenant

-- name: Find
-- The tenant's session with this id, or else the live (or, failing that, the newest) one of this name.
{Columns}
WHERE tenant_id = :tenant AND (id = CAST(:id AS uuid) OR name = CAST(:name AS text))
ORDER BY (id = CAST(:id AS uuid)) DESC, (status <> 'destroyed') DESC, created_at DESC LIMIT 1

-- name: ById
{Columns}
WHERE id = :id

-- name: List
{Columns}
WHERE tenant_id = :tenant AND status <> 'destroyed' ORDER BY created_at DESC, id

-- name: Settle
UPDATE sessions SET status = :status, store_path = CAST(:store_path AS text),
       nixpkgs_revision = CAST(:revision AS text), error = CAST(:error AS text)
WHERE id = :id AND status = 'building'

-- name: Touch
UPDATE sessions SET last_used_at = now(), expires_at = now() + make_interval(secs => idle_ttl_ms / 1000.0)
WHERE id = :id AND status <> 'destroyed'

-- name: Destroy
UPDATE sessions SET status = 'destroyed', destroyed_at = now()
WHERE id = :id AND tenant_id = :tenant AND status <> 'destroyed' RETURNING id

-- name: Expired
-- Live sessions whose idle time ran out, locked against a second expiry on another node.
{Columns}
WHERE status <> 'destroyed' AND expires_at < now() ORDER BY expires_at LIMIT :limit
FOR UPDATE SKIP LOCKED

-- name: CountByStatus
SELECT status, count(*) AS n FROM sessions WHERE status <> 'destroyed' GROUP BY status
