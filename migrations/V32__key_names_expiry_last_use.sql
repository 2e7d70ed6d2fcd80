-- Keys with a name and an optional expiry, and when each was last used (issue 17). An expired key
-- is refused as an unknown one; last_used_at is written by each node at most once a minute, in one
-- statement for all the keys it saw used (tenant/KeyUses), so it may lag the last use by that much.
ALTER TABLE api_keys ADD COLUMN name text CHECK (char_length(name) BETWEEN 1 AND 100);
ALTER TABLE api_keys ADD COLUMN expires_at timestamptz;
ALTER TABLE api_keys ADD COLUMN last_used_at timestamptz;

-- a tenant's keys, oldest first (GET /v1/admin/tenants/{id}/keys)
CREATE INDEX api_keys_by_tenant ON api_keys (tenant_id, created_at);
