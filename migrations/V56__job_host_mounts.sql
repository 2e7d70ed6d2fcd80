-- Local single-user mode only: the host paths a run_code call's files (read-only) and
-- writable_files (read-write) mount at their own paths, as checked at intake: [{"path", "writable"}].
ALTER TABLE jobs ADD COLUMN host_mounts jsonb;
