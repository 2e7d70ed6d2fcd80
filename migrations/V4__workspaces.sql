-- Workspaces: a tenant's files, kept in PostgreSQL so any worker node can materialise them.
CREATE TABLE workspaces (
    id uuid PRIMARY KEY,
    tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    name text NOT NULL,
    quota_bytes bigint NOT NULL,
    quota_files integer NOT NULL,
    version integer NOT NULL DEFAULT 0,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (tenant_id, name)
);

-- Content-addressed per tenant: an unchanged file costs nothing, and no tenant learns from
-- deduplication what another stored.
CREATE TABLE workspace_blobs (
    tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    sha256 text NOT NULL,
    size bigint NOT NULL,
    content bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, sha256)
);

CREATE TABLE workspace_files (
    workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    path text NOT NULL,
    tenant_id uuid NOT NULL,
    sha256 text NOT NULL,
    size bigint NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (workspace_id, path)
);
CREATE INDEX workspace_files_blob ON workspace_files (tenant_id, sha256);

-- One row per stored change set: which job (or upload) made which version.
CREATE TABLE workspace_versions (
    workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    version integer NOT NULL,
    job_id uuid,
    created integer NOT NULL,
    modified integer NOT NULL,
    deleted integer NOT NULL,
    at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (workspace_id, version)
);

-- What a job brings (a workspace, inline files, declared artifact paths); only jobs with any have a row.
CREATE TABLE job_files (
    job_id uuid PRIMARY KEY REFERENCES jobs (id) ON DELETE CASCADE,
    workspace_id uuid, -- no foreign key: a workspace deleted before the job runs is reported by the run
    inputs jsonb NOT NULL,
    artifact_paths jsonb NOT NULL
);

CREATE TABLE job_artifacts (
    job_id uuid NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    path text NOT NULL,
    tenant_id uuid NOT NULL,
    sha256 text NOT NULL,
    size bigint NOT NULL,
    content_type text NOT NULL,
    PRIMARY KEY (job_id, path)
);
CREATE INDEX job_artifacts_blob ON job_artifacts (tenant_id, sha256);

-- The artifacts as the job's result shows them (name, size, sha256, content type, URL).
ALTER TABLE jobs ADD COLUMN artifacts jsonb;
