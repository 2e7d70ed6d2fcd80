-- The statements of workspaces, their files, versions and contents, of jobs' input files and of
-- artifacts, by name (WorkspaceRepository): {Name} stands for that block's text, and whole-line
-- comments are not sent.

-- name: View
-- A workspace as clients see it; followed by a WHERE over w.
SELECT w.id, w.name, w.quota_bytes, w.quota_files,
       (SELECT coalesce(sum(f.size), 0) FROM workspace_files f WHERE f.workspace_id = w.id) AS bytes,
       (SELECT count(*) FROM workspace_files f WHERE f.workspace_id = w.id) AS files,
       w.version,
       (SELECT v.job_id FROM workspace_versions v
         WHERE v.workspace_id = w.id AND v.version = w.version) AS version_job_id,
       w.created_at, w.updated_at
  FROM workspaces w

-- name: Seen
-- A workspace the reader may see: not another key's MCP session's, unless the reader reviews.
(w.owner_key_id IS NULL OR w.owner_key_id = :key OR :reviewer)

-- name: Insert
INSERT INTO workspaces (id, tenant_id, name, quota_bytes, quota_files)
VALUES (:id, :tenant, :name, :quota_bytes, :quota_files)
ON CONFLICT (tenant_id, name) DO NOTHING

-- name: UpsertSession
INSERT INTO workspaces (id, tenant_id, name, quota_bytes, quota_files, mcp_session, owner_key_id)
VALUES (:id, :tenant, :name, :quota_bytes, :quota_files, true, CAST(:owner AS uuid))
ON CONFLICT (tenant_id, name) DO UPDATE SET used_at = now()
RETURNING id

-- name: ViewById
{View}
WHERE w.tenant_id = :tenant AND w.id = :id AND {Seen}

-- name: Views
{View}
WHERE w.tenant_id = :tenant AND {Seen} ORDER BY w.name

-- name: ViewByIdOrName
-- Id before name: a workspace named like another's id is found by its name only.
{View}
WHERE w.tenant_id = :tenant AND (w.id = :id OR w.name = :name) AND {Seen}
ORDER BY (w.id = :id) DESC LIMIT 1

-- name: Ownership
SELECT owner_key_id FROM workspaces WHERE id = :id AND tenant_id = :tenant

-- name: IdByName
SELECT id FROM workspaces WHERE tenant_id = :tenant AND name = :name

-- name: Delete
DELETE FROM workspaces WHERE id = :id AND tenant_id = :tenant

-- name: MarkUsed
UPDATE workspaces SET used_at = now() WHERE id = :id AND tenant_id = :tenant

-- name: MarkRead
UPDATE workspaces SET used_at = now()
 WHERE id = :id AND used_at < now() - interval '1 minute'

-- name: Quota
SELECT quota_bytes, quota_files FROM workspaces WHERE id = :id

-- name: TenantUsage
SELECT coalesce(sum(size), 0) AS bytes, count(*) AS files
  FROM workspace_files WHERE tenant_id = :tenant

-- name: LockTenant
SELECT pg_advisory_xact_lock(:key)

-- name: LockWorkspace
SELECT id FROM workspaces WHERE id = :id FOR UPDATE

-- name: NextVersion
UPDATE workspaces SET version = version + 1, updated_at = now()
 WHERE id = :id RETURNING version

-- name: InsertVersion
INSERT INTO workspace_versions (workspace_id, version, job_id, created, modified, deleted)
VALUES (:id, :version, :job, :created, :modified, :deleted)

-- name: Listing
SELECT w.id, w.name, w.quota_bytes, w.quota_files, w.version,
       (SELECT v.job_id FROM workspace_versions v
         WHERE v.workspace_id = w.id AND v.version = w.version) AS version_job_id,
       w.created_at, w.updated_at,
       f.path, f.size, f.sha256, f.updated_at AS file_updated_at
  FROM workspaces w LEFT JOIN workspace_files f ON f.workspace_id = w.id
 WHERE w.id = :id AND w.tenant_id = :tenant AND {Seen}
 ORDER BY f.path

-- name: Files
SELECT path, sha256, size, executable FROM workspace_files WHERE workspace_id = :id

-- name: Snapshot
SELECT w.tenant_id, w.version, w.quota_bytes, w.quota_files, f.path, f.sha256, f.size, f.executable
  FROM workspaces w LEFT JOIN workspace_files f ON f.workspace_id = w.id
 WHERE w.id = :id

-- name: UpsertFile
INSERT INTO workspace_files (workspace_id, path, tenant_id, sha256, size, executable)
VALUES (:id, :path, :tenant, :sha256, :size, :executable)
ON CONFLICT (workspace_id, path) DO UPDATE
   SET sha256 = excluded.sha256, size = excluded.size, executable = excluded.executable,
       updated_at = now()

-- name: DeleteFile
DELETE FROM workspace_files WHERE workspace_id = :id AND path = :path

-- name: PutContent
INSERT INTO workspace_blobs (tenant_id, sha256, size, content)
VALUES (:tenant, :sha256, :size, :content)
ON CONFLICT (tenant_id, sha256) DO UPDATE SET created_at = now()

-- name: Content
SELECT content FROM workspace_blobs WHERE tenant_id = :tenant AND sha256 = :sha256

-- name: UnreferencedAndIdle
-- Not referred to by a workspace file or an artifact, and not touched by a write for an hour.
b.created_at < now() - interval '1 hour'
AND NOT EXISTS (SELECT 1 FROM workspace_files f WHERE f.tenant_id = b.tenant_id AND f.sha256 = b.sha256)
AND NOT EXISTS (SELECT 1 FROM job_artifacts a WHERE a.tenant_id = b.tenant_id AND a.sha256 = b.sha256)

-- name: CollectContents
DELETE FROM workspace_blobs b WHERE b.tenant_id = :tenant AND {UnreferencedAndIdle}

-- name: CollectAllContents
DELETE FROM workspace_blobs b WHERE {UnreferencedAndIdle}

-- name: InsertJobFiles
-- The tenant's workspace of this id or else this name, not another key's MCP session's.
WITH used AS (
    UPDATE workspaces SET used_at = now()
     WHERE tenant_id = :tenant
       AND id = (SELECT w.id FROM workspaces w
                  WHERE w.tenant_id = :tenant AND (w.id = :id OR w.name = :name) AND (w.owner_key_id IS NULL OR w.owner_key_id = :key)
                  ORDER BY (w.id = :id) DESC LIMIT 1)
    RETURNING id)
INSERT INTO job_files (job_id, workspace_id, inputs, artifact_paths)
SELECT :job, used.id, CAST(:inputs AS jsonb), CAST(:artifact_paths AS jsonb) FROM used

-- name: InsertJobFilesAlone
INSERT INTO job_files (job_id, inputs, artifact_paths)
VALUES (:job, CAST(:inputs AS jsonb), CAST(:artifact_paths AS jsonb))

-- name: JobFiles
SELECT workspace_id, CAST(inputs AS text) AS inputs, CAST(artifact_paths AS text) AS artifact_paths
  FROM job_files WHERE job_id = :job

-- name: Artifact
SELECT sha256, content_type FROM job_artifacts
 WHERE job_id = :job AND path = :path AND tenant_id = :tenant

-- name: DeleteArtifacts
DELETE FROM job_artifacts WHERE job_id = :job

-- name: InsertArtifact
INSERT INTO job_artifacts (job_id, path, tenant_id, sha256, size, content_type)
VALUES (:job, :path, :tenant, :sha256, :size, :content_type)

-- name: TrySweepLock
SELECT pg_try_advisory_xact_lock(:key) AS locked

-- name: IdleSessionWorkspaces
SELECT w.id, w.tenant_id, w.name,
       greatest(w.used_at, (SELECT max(j.finished_at) FROM job_files f JOIN jobs j ON j.id = f.job_id
                             WHERE f.workspace_id = w.id)) AS idle_since
  FROM workspaces w
 WHERE w.mcp_session AND w.used_at < now() - make_interval(secs => :ttl)
   AND NOT EXISTS (SELECT 1 FROM job_files f JOIN jobs j ON j.id = f.job_id
                    WHERE f.workspace_id = w.id
                      AND (j.status IN ('queued', 'building', 'running')
                           OR j.finished_at >= now() - make_interval(secs => :ttl)))
 ORDER BY w.used_at LIMIT :limit
   FOR UPDATE OF w SKIP LOCKED
