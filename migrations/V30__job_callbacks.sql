-- Job callbacks (docs/api.md "Callbacks"): each tenant's signing secret, and one delivery row for
-- each job submitted with a callback_url, written in the submission's transaction.

-- Kept as it is: it must be recoverable to sign. Never returned after it is made, never logged.
CREATE TABLE tenant_webhook_secrets (
    tenant_id  uuid PRIMARY KEY REFERENCES tenants (id) ON DELETE CASCADE,
    secret     text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);

-- Due once the job is terminal and next_attempt_at has passed; a claim moves next_attempt_at past
-- the attempt's timeout (a lease: a node that dies mid-attempt leaves it to another).
CREATE TABLE job_callbacks (
    job_id          uuid PRIMARY KEY REFERENCES jobs (id) ON DELETE CASCADE,
    tenant_id       uuid NOT NULL,
    url             text NOT NULL,
    attempts        integer NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL DEFAULT now(),
    finished_at     timestamptz,
    outcome         text CHECK (outcome IN ('delivered', 'failed', 'refused'))
);
CREATE INDEX job_callbacks_due ON job_callbacks (next_attempt_at) WHERE finished_at IS NULL;
