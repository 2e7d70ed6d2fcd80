-- Each job names the key that submitted it (issue 38): the key's name and role as they were at
-- submission, kept with the job, so an auditor reads "ci-bot (member)" rather than a UUID and a
-- list or export needs no join. Keys are never deleted (revocation stamps revoked_at) and their
-- name and role are fixed at creation, so the backfill of earlier jobs reads the same values.
ALTER TABLE jobs ADD COLUMN key_name text;
ALTER TABLE jobs ADD COLUMN key_role text;
UPDATE jobs j SET key_name = k.name, key_role = k.role FROM api_keys k WHERE k.id = j.key_id;
