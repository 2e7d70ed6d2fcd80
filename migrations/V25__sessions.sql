-- Sessions (nixo's persistent sandboxes): an environment built once by a job of its own, files kept
-- in a workspace of its own (/workspace, /home/sandbox, /cache), commands run in it as jobs.
CREATE TABLE sessions (
    id               uuid PRIMARY KEY,
    tenant_id        uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    key_id           uuid,
    name             text,
    status           text NOT NULL CHECK (status IN ('building', 'ready', 'failed', 'destroyed')),
    -- the environment request: packages (from packages, a profile or a spec), network, env, writable paths
    packages         jsonb NOT NULL,
    profile          text,
    network          boolean NOT NULL,
    env              jsonb NOT NULL,
    writable         jsonb NOT NULL,
    agent            text,
    description      text,
    idle_ttl_ms      bigint NOT NULL,
    -- the job that builds the environment, and the workspace that keeps the session's files
    build_job_id     uuid,
    workspace_id     uuid,
    store_path       text,
    nixpkgs_revision text,
    error            text,
    created_at       timestamptz NOT NULL DEFAULT now(),
    last_used_at     timestamptz NOT NULL DEFAULT now(),
    expires_at       timestamptz NOT NULL,
    destroyed_at     timestamptz
);
-- a name names one live session of its tenant; a destroyed session's name is free again
CREATE UNIQUE INDEX sessions_live_name ON sessions (tenant_id, name) WHERE status <> 'destroyed' AND name IS NOT NULL;
CREATE INDEX sessions_by_tenant ON sessions (tenant_id, created_at DESC);
-- what the expiry looks at
CREATE INDEX sessions_expiring ON sessions (expires_at) WHERE status <> 'destroyed';
