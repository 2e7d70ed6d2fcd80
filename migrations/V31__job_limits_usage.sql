-- Per-job limits as asked ({memory, pids, cpu_seconds, output_bytes}, bytes/processes/seconds; NULL:
-- the service's defaults), and what the sandbox measured of the run (NULL: not measured).
ALTER TABLE jobs ADD COLUMN limits jsonb;
ALTER TABLE jobs ADD COLUMN cpu_ms bigint;
ALTER TABLE jobs ADD COLUMN max_rss_bytes bigint;
