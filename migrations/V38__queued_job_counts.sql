-- How many queued jobs each tenant has, for the cap every submission checks. Counting them in the
-- submission read one index entry and a heap visit per queued job (hundreds of buffers per
-- submission with a backlog); summing these rows reads a few.
--
-- Kept by triggers, so every statement that moves a job into or out of 'queued' keeps it, whichever
-- node's version wrote the statement (a fleet upgrades node by node). Each connection adds to rows
-- of its own (backend: its pg_backend_pid()), so submissions and claims on different connections
-- never wait for one another on a counter; a tenant's count is the sum of its rows, exact in the
-- reading statement's snapshot as a count of the jobs was. Backend 0 holds what the fold
-- (dev.nixexec.job.QueuedCounts) moved out of the connections' rows; a later connection reusing a
-- pid only adds to that pid's row, which is as good as a new one.
CREATE TABLE queued_job_counts (
    tenant_id uuid NOT NULL,
    backend   integer NOT NULL,
    queued    bigint NOT NULL,
    PRIMARY KEY (tenant_id, backend)
);

CREATE FUNCTION count_queued_jobs() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.status = 'queued' THEN
        INSERT INTO queued_job_counts AS c (tenant_id, backend, queued) VALUES (OLD.tenant_id, pg_backend_pid(), -1)
        ON CONFLICT (tenant_id, backend) DO UPDATE SET queued = c.queued - 1;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.status = 'queued' THEN
        INSERT INTO queued_job_counts AS c (tenant_id, backend, queued) VALUES (NEW.tenant_id, pg_backend_pid(), 1)
        ON CONFLICT (tenant_id, backend) DO UPDATE SET queued = c.queued + 1;
    END IF;
    RETURN NULL;
END $$;

-- The conditions leave the function uncalled for every other row (a finish, a start, a heartbeat).
CREATE TRIGGER jobs_queued_inserted AFTER INSERT ON jobs FOR EACH ROW
    WHEN (NEW.status = 'queued') EXECUTE FUNCTION count_queued_jobs();
CREATE TRIGGER jobs_queued_moved AFTER UPDATE OF status, tenant_id ON jobs FOR EACH ROW
    WHEN ((OLD.status = 'queued' OR NEW.status = 'queued')
          AND (OLD.status <> NEW.status OR OLD.tenant_id <> NEW.tenant_id))
    EXECUTE FUNCTION count_queued_jobs();
CREATE TRIGGER jobs_queued_deleted AFTER DELETE ON jobs FOR EACH ROW
    WHEN (OLD.status = 'queued') EXECUTE FUNCTION count_queued_jobs();

CREATE FUNCTION forget_queued_counts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM queued_job_counts;
    RETURN NULL;
END $$;

CREATE TRIGGER jobs_truncated AFTER TRUNCATE ON jobs FOR EACH STATEMENT EXECUTE FUNCTION forget_queued_counts();

-- The jobs queued before this migration. Creating the triggers took a lock that waits for the
-- writes to jobs in flight and holds off new ones until this transaction commits, so this count
-- and the triggers together miss and repeat no job.
INSERT INTO queued_job_counts (tenant_id, backend, queued)
SELECT tenant_id, 0, count(*) FROM jobs WHERE status = 'queued' GROUP BY tenant_id;
