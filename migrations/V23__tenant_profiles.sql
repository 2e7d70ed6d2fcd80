-- Tenant profiles (issue 15): a named spec a tenant's admin defines beside nixo's built-ins, which
-- live in code (session/BuiltInProfiles) and are never stored. spec holds {packages, env, network,
-- writable}; limits {timeout_ms?}. A tenant's profiles go with the tenant.
CREATE TABLE tenant_profiles (
    tenant_id   uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    name        text NOT NULL,
    description text NOT NULL DEFAULT '',
    spec        jsonb NOT NULL,
    limits      jsonb NOT NULL DEFAULT '{}'::jsonb,
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, name)
);
