-- Local single-user mode only: the host directory (an MCP root) mounted at /workspace.
ALTER TABLE jobs ADD COLUMN host_workspace text;
