-- The statements of each worker's environments built ahead, by name (NodeEnvironments).

-- name: Delete
-- The node's rows, and those of nodes no longer listed.
DELETE FROM node_environments WHERE node_id = :node OR node_id NOT IN (SELECT id FROM nodes)

-- name: Insert
-- The node's rows, one array per column.
INSERT INTO node_environments (node_id, name, source, status, detail, updated_at)
SELECT :node, * FROM unnest(CAST(:names AS text[]), CAST(:sources AS text[]), CAST(:statuses AS text[]),
                            CAST(:details AS text[]), CAST(:updated_at AS timestamptz[]))

-- name: All
SELECT node_id, name, source, status, detail, updated_at
  FROM node_environments ORDER BY node_id, source DESC, name
