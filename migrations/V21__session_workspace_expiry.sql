-- MCP session workspaces expire when idle: which workspaces a session made for itself (never one
-- created by name), and when a file of a workspace was last listed, read or written or a job
-- submitted for it (jobs on it count through job_files as well).
ALTER TABLE workspaces ADD COLUMN mcp_session boolean NOT NULL DEFAULT false;
ALTER TABLE workspaces ADD COLUMN used_at timestamptz NOT NULL DEFAULT now();
-- Until now a session's workspace was known only by its name (the prefix and the session's random
-- id): the existing ones of that name are taken for sessions' and expire from now on too, since
-- they are what piled up; only one a user created by hand with such a name is mistaken.
UPDATE workspaces SET mcp_session = (name LIKE 'mcp-session-%'), used_at = updated_at;
-- The expiry asks for the jobs of a workspace.
CREATE INDEX job_files_workspace ON job_files (workspace_id) WHERE workspace_id IS NOT NULL;
