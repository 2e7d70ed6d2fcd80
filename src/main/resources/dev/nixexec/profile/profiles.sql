-- The statements of tenant profiles, by name (ProfileRepository): {Name} stands for that block's
-- text, and whole-line comments are not sent. A change and its audit record are one statement.

-- name: Columns
SELECT name, description, spec, limits FROM tenant_profiles

-- name: List
{Columns} WHERE tenant_id = :tenant ORDER BY name

-- name: Find
{Columns} WHERE tenant_id = :tenant AND name = :name

-- name: Put
WITH saved AS (
    INSERT INTO tenant_profiles (tenant_id, name, description, spec, limits)
    VALUES (:tenant, :name, :description, CAST(:spec AS jsonb), CAST(:limits AS jsonb))
    ON CONFLICT (tenant_id, name) DO UPDATE SET description = EXCLUDED.description,
        spec = EXCLUDED.spec, limits = EXCLUDED.limits, updated_at = now()
    RETURNING (xmax = 0) AS created)
INSERT INTO audit_events (tenant_id, key_id, kind, detail)
SELECT :tenant, :key, CASE WHEN created THEN 'profile_created' ELSE 'profile_replaced' END, CAST(:detail AS jsonb)
FROM saved RETURNING kind

-- name: Delete
WITH gone AS (DELETE FROM tenant_profiles WHERE tenant_id = :tenant AND name = :name RETURNING name)
INSERT INTO audit_events (tenant_id, key_id, kind, detail)
SELECT :tenant, :key, 'profile_deleted', jsonb_build_object('name', name) FROM gone RETURNING id
