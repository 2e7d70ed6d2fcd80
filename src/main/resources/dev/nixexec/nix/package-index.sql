-- The statements of the package search index, by name (PackageIndexStore): whole-line comments are
-- not sent.

-- name: State
SELECT status, node_id, started_at, error, coalesce(packages, 0) AS packages FROM package_indexes
WHERE nar_hash = :nar_hash

-- name: NewestReady
SELECT nar_hash FROM package_indexes WHERE status = 'ready' ORDER BY finished_at DESC LIMIT 1

-- name: Claim
INSERT INTO package_indexes (nar_hash, revision, status, node_id) VALUES (:nar_hash, :revision, 'building', :node)
ON CONFLICT (nar_hash) DO UPDATE SET status = 'building', node_id = EXCLUDED.node_id, started_at = now(),
    finished_at = NULL, error = NULL
WHERE package_indexes.status = 'building' AND package_indexes.started_at < now() - make_interval(secs => :stale)
   OR package_indexes.status = 'failed' AND package_indexes.finished_at < now() - make_interval(secs => :retry)
RETURNING nar_hash

-- name: Insert
-- A batch of entries, one array per column.
INSERT INTO package_index_entries (nar_hash, attribute, package_set, name, version, description)
SELECT :nar_hash, * FROM unnest(CAST(:attributes AS text[]), CAST(:package_sets AS text[]),
                                CAST(:names AS text[]), CAST(:versions AS text[]), CAST(:descriptions AS text[]))
ON CONFLICT DO NOTHING

-- name: Ready
UPDATE package_indexes SET status = 'ready', finished_at = now(),
    packages = (SELECT count(*) FROM package_index_entries WHERE nar_hash = :nar_hash)
WHERE nar_hash = :nar_hash AND node_id = :node AND status = 'building'

-- name: DeleteOld
DELETE FROM package_indexes WHERE nar_hash <> :nar_hash AND started_at < now() - interval '1 day'

-- name: Failed
UPDATE package_indexes SET status = 'failed', finished_at = now(), error = :error
WHERE nar_hash = :nar_hash AND node_id = :node AND status = 'building'

-- name: Versions
SELECT attribute, version FROM package_index_entries
WHERE nar_hash = :nar_hash AND attribute = ANY (CAST(:attributes AS text[])) AND version <> ''

-- name: Search
-- Exact name or attribute first, then a name or attribute that starts with the query, then one
-- that contains it, then a description that does; shorter attributes first within each.
SELECT attribute, version, description FROM package_index_entries
WHERE nar_hash = :nar_hash AND (CAST(:package_set AS text) IS NULL OR package_set = CAST(:package_set AS text))
  AND (attribute ILIKE :contains OR description ILIKE :contains)
ORDER BY CASE WHEN lower(name) = lower(:query) OR lower(attribute) = lower(:query) THEN 0
              WHEN name ILIKE :prefix OR attribute ILIKE :prefix THEN 1
              WHEN attribute ILIKE :contains THEN 2
              ELSE 3 END,
         length(attribute), attribute
LIMIT :limit
