-- A session's host directory at /workspace (nixo's create --workspace DIR): local mode only,
-- checked against nixexec.mcp.roots.allowed-prefixes at create and again before each run.
ALTER TABLE sessions ADD COLUMN host_workspace text;
