-- Tenants, keys, jobs and their events, audit, nodes. Times are timestamptz (UTC on the wire).

CREATE TABLE tenants (
    id          uuid PRIMARY KEY,
    name        text NOT NULL UNIQUE,
    policy      jsonb NOT NULL DEFAULT '{}'::jsonb,
    created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE api_keys (
    id          uuid PRIMARY KEY,
    tenant_id   uuid NOT NULL REFERENCES tenants (id),
    role        text NOT NULL CHECK (role IN ('admin', 'member', 'auditor')),
    -- SHA-256 of the secret; the secret itself is shown once and never stored
    secret_hash bytea NOT NULL UNIQUE,
    created_at  timestamptz NOT NULL DEFAULT now(),
    revoked_at  timestamptz
);

CREATE TABLE jobs (
    id                  uuid PRIMARY KEY,
    tenant_id           uuid NOT NULL REFERENCES tenants (id),
    key_id              uuid REFERENCES api_keys (id),
    status              text NOT NULL CHECK (status IN ('queued', 'building', 'running', 'succeeded', 'failed',
                                                        'timed_out', 'cancelled', 'error')),
    language            text NOT NULL,
    code                text NOT NULL,
    packages            jsonb NOT NULL,
    env                 jsonb NOT NULL,
    stdin               text NOT NULL,
    timeout_ms          bigint NOT NULL,
    network             boolean NOT NULL,
    metadata            jsonb NOT NULL DEFAULT '{}'::jsonb,
    idempotency_key     text,
    request_hash        text,
    attempt             integer NOT NULL DEFAULT 0,
    max_attempts        integer NOT NULL DEFAULT 3,
    node_id             text,
    lease_until         timestamptz,
    run_after           timestamptz NOT NULL DEFAULT now(),
    cancel_requested    boolean NOT NULL DEFAULT false,
    cancelled_by        uuid,
    created_at          timestamptz NOT NULL DEFAULT now(),
    claimed_at          timestamptz,
    started_at          timestamptz,
    finished_at         timestamptz,
    exit_code           integer,
    signal              integer,
    timed_out           boolean NOT NULL DEFAULT false,
    limit_hit           text,
    duration_ms         bigint,
    stdout              text,
    stderr              text,
    stdout_bytes        bigint NOT NULL DEFAULT 0,
    stderr_bytes        bigint NOT NULL DEFAULT 0,
    stdout_truncated    boolean NOT NULL DEFAULT false,
    stderr_truncated    boolean NOT NULL DEFAULT false,
    store_path          text,
    nixpkgs_revision    text,
    cache_hit           boolean,
    build_ms            bigint,
    error_code          text,
    error_message       text,
    UNIQUE (tenant_id, idempotency_key)
);

-- the claim query's scan: queued jobs, oldest first, per tenant
CREATE INDEX jobs_queued ON jobs (tenant_id, created_at) WHERE status = 'queued';
-- leases the reaper looks at
CREATE INDEX jobs_active ON jobs (lease_until) WHERE status IN ('building', 'running');
-- a tenant's jobs, newest first (keyset pagination)
CREATE INDEX jobs_by_tenant ON jobs (tenant_id, created_at DESC, id DESC);
CREATE INDEX jobs_finished ON jobs (finished_at) WHERE finished_at IS NOT NULL;

-- status changes and output chunks, in order, for live followers on any node
CREATE TABLE job_events (
    job_id      uuid NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    seq         integer NOT NULL,
    kind        text NOT NULL CHECK (kind IN ('status', 'stdout', 'stderr', 'result')),
    data        text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (job_id, seq)
);

-- append-only: no update or delete but by retention
CREATE TABLE audit_events (
    id          bigserial PRIMARY KEY,
    tenant_id   uuid,
    job_id      uuid,
    key_id      uuid,
    node_id     text,
    kind        text NOT NULL,
    detail      jsonb NOT NULL DEFAULT '{}'::jsonb,
    at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX audit_by_tenant ON audit_events (tenant_id, id DESC);
CREATE INDEX audit_by_job ON audit_events (job_id, id);

CREATE TABLE nodes (
    id            text PRIMARY KEY,
    role          text NOT NULL,
    concurrency   integer NOT NULL,
    running       integer NOT NULL DEFAULT 0,
    started_at    timestamptz NOT NULL DEFAULT now(),
    heartbeat_at  timestamptz NOT NULL DEFAULT now()
);
