-- An idempotency key is unique within its tenant. The unique constraint's index held an entry for
-- every version of every job's row, and most jobs have no key (NULLs never conflict): each
-- submission, claim, start and finish wrote one (none of them is a HOT update, the status being
-- indexed). Kept for keyed jobs only, it enforces the same rule, and the lookup of a key
-- (tenant_id = ? AND idempotency_key = ?) implies the predicate, so it still uses the index.
ALTER TABLE jobs DROP CONSTRAINT jobs_tenant_id_idempotency_key_key;
CREATE UNIQUE INDEX jobs_idempotency ON jobs (tenant_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
