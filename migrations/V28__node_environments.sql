-- What each worker has built ahead (the prebuild list, the most used environments): shown per
-- node by GET /v1/nodes. Rows of a node that left are dropped by the next write of any node.
CREATE TABLE node_environments (
    node_id     text NOT NULL,
    name        text NOT NULL,
    source      text NOT NULL CHECK (source IN ('prebuild', 'most_used')),
    status      text NOT NULL CHECK (status IN ('building', 'built', 'failed')),
    detail      text NOT NULL,
    updated_at  timestamptz NOT NULL,
    PRIMARY KEY (node_id, name)
);

-- the most used environments of the last day: jobs by submission time
CREATE INDEX jobs_created ON jobs (created_at);
