-- The package search index (issue 15): the pinned nixpkgs' packages, listed once per pin (by its
-- NAR hash) by one node and kept here, so a search is one query rather than a nix process.
-- package_indexes is also the claim: the node whose row says 'building' lists the pin; the others
-- wait for 'ready'. package_set is '' for a top-level attribute, else the language's set
-- (python3Packages, ...); name is the attribute inside its set.
CREATE TABLE package_indexes (
    nar_hash    text PRIMARY KEY,
    revision    text NOT NULL,
    status      text NOT NULL CHECK (status IN ('building', 'ready', 'failed')),
    node_id     text NOT NULL,
    started_at  timestamptz NOT NULL DEFAULT now(),
    finished_at timestamptz,
    packages    integer,
    error       text
);

CREATE TABLE package_index_entries (
    nar_hash    text NOT NULL REFERENCES package_indexes (nar_hash) ON DELETE CASCADE,
    attribute   text NOT NULL,
    package_set text NOT NULL,
    name        text NOT NULL,
    version     text NOT NULL,
    description text NOT NULL,
    PRIMARY KEY (nar_hash, attribute)
);
CREATE INDEX package_index_entries_set ON package_index_entries (nar_hash, package_set);
