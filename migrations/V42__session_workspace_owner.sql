-- An MCP session's workspace belongs to the key that opened the session (issue 36): no other key
-- of the tenant lists, reads or changes it; reviewers (auditor, admin, operator) read it. Null: an
-- ordinary workspace of the tenant.
ALTER TABLE workspaces ADD COLUMN owner_key_id uuid;
-- The sessions that made the existing ones ended with their process (a session lives in one
-- process's memory), so no key may write them any more: the nil id is no key's (local mode, which
-- has no keys and is one user, stays their writer). Reviewers still read them until they expire.
UPDATE workspaces SET owner_key_id = '00000000-0000-0000-0000-000000000000' WHERE mcp_session;
