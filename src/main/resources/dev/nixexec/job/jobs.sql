-- The queue's statements, by name (NamedStatement.file): {Name} stands for that block's text, and
-- whole-line comments are not sent. Each transition writes its job, events, audit and notifications.

-- name: FairShare
-- The claim rule's CTEs, shared by Claim and Insert: running (per tenant, all and on :node) and
-- contending (tenants with a job their cap lets run, or one submitted in the last :window_seconds).
running AS (
    SELECT tenant_id, count(*) AS n, count(*) FILTER (WHERE node_id = :node) AS here
    FROM jobs WHERE status IN ('building', 'running') GROUP BY tenant_id
), contending AS MATERIALIZED (
    -- once per statement: inlined, the claim evaluated it again for every candidate job;
    -- OFFSET 0 (here and below): each tenant probed through an index, where PostgreSQL
    -- would hash every queued or recent job of all tenants first
    SELECT t.id AS tenant_id FROM tenants t LEFT JOIN running r ON r.tenant_id = t.id
    WHERE (EXISTS (SELECT 1 FROM jobs q WHERE q.tenant_id = t.id AND q.status = 'queued' OFFSET 0)
           AND coalesce(r.n, 0) < coalesce((t.policy ->> 'max_running')::int, :default_cap))
       OR (:window_seconds > 0 AND EXISTS (SELECT 1 FROM jobs j WHERE j.tenant_id = t.id
           AND j.created_at > now() - make_interval(secs => :window_seconds) OFFSET 0))
)

-- name: MayTake
-- Whether tenant t may take a c.k-th slot on :node: under its cap, and within :share while another contends.
(coalesce(r.n, 0) + c.k <= coalesce((t.policy ->> 'max_running')::int, :default_cap)
 AND (coalesce(r.here, 0) + c.k <= :share
      OR NOT EXISTS (SELECT 1 FROM contending o WHERE o.tenant_id <> t.id)))

-- name: QueuedOfTenant
queued AS (
    -- kept by triggers (migration V38): a few rows, where counting the jobs read every one
    SELECT CAST(coalesce(sum(queued), 0) AS bigint) AS n FROM queued_job_counts WHERE tenant_id = :tenant
)

-- name: StoreJob
-- The job (queued, or claimed by here's node), its events, audit and wake-up; the tenant's count.
stored AS (
    INSERT INTO jobs (id, tenant_id, key_id, key_name, key_role, status, request, metadata, idempotency_key,
                      request_hash, max_attempts, created_at, run_after, node_id, attempt, lease_until, claimed_at,
                      session_id, rerun_of, required_nixpkgs_revision)
    SELECT :id, :tenant, CAST(:key AS uuid), CAST(:key_name AS text), CAST(:key_role AS text),
           CASE WHEN h.node_id IS NULL THEN 'queued' ELSE 'building' END,
           CAST(:request AS jsonb), CAST(:metadata AS jsonb), CAST(:idempotency_key AS text),
           :request_hash, :max_attempts, p.at, p.at, h.node_id,
           CASE WHEN h.node_id IS NULL THEN 0 ELSE 1 END,
           CASE WHEN h.node_id IS NOT NULL THEN now() + make_interval(secs => :lease_seconds) END,
           CASE WHEN h.node_id IS NOT NULL THEN p.at END,
           CAST(:session AS uuid), CAST(:rerun_of AS uuid), CAST(:required_revision AS text)
    FROM (SELECT CAST(:created_at AS timestamptz) AS at) p LEFT JOIN here h ON true
    WHERE (SELECT n FROM queued) < :max_queued
    RETURNING id, tenant_id, key_id, node_id
), events AS (
    INSERT INTO job_events (job_id, seq, kind, data)
    SELECT id, 1, 'status', 'queued' FROM stored
    UNION ALL SELECT id, 2, 'status', 'building' FROM stored WHERE node_id IS NOT NULL
), audited AS (
    INSERT INTO audit_events (tenant_id, job_id, key_id, node_id, kind, detail, at)
    SELECT tenant_id, id, key_id, NULL, 'submitted', CAST(:submitted AS jsonb), now() FROM stored
    UNION ALL SELECT tenant_id, id, NULL, node_id, 'claimed', jsonb_build_object('attempt', 1), now()
    FROM stored WHERE node_id IS NOT NULL
)
SELECT (SELECT n FROM queued) AS queued, (SELECT count(*) FROM stored) AS stored,
       (SELECT node_id FROM stored) AS claimed_by,
       (SELECT count(pg_notify(:submitted_channel, '')) FROM stored WHERE node_id IS NULL) AS woken

-- name: Insert
-- Stored as claimed by :node's free slot when its tenant may take it and it passes no claimable job.
WITH {QueuedOfTenant}, {FairShare}, here AS (
    SELECT CAST(:node AS text) AS node_id
    WHERE CAST(:node AS text) IS NOT NULL
      AND EXISTS (SELECT 1 FROM tenants t LEFT JOIN running r ON r.tenant_id = t.id
                  CROSS JOIN (SELECT 1 AS k) c
                  WHERE t.id = :tenant AND {MayTake})
      AND NOT EXISTS (
          SELECT 1 FROM tenants t LEFT JOIN running r ON r.tenant_id = t.id CROSS JOIN (SELECT 1 AS k) c
          WHERE EXISTS (SELECT 1 FROM jobs q WHERE q.tenant_id = t.id AND q.status = 'queued' OFFSET 0)
            AND {MayTake})
), {StoreJob}

-- name: InsertQueued
-- Insert without the claim rule: PostgreSQL sets up every part of a plan on each run, used or not.
WITH {QueuedOfTenant}, here AS (SELECT CAST(NULL AS text) AS node_id WHERE false), {StoreJob}

-- name: Claim
-- Fair turns (the tenant's running count plus the job's rank), caps and shares (MayTake); SKIP LOCKED
-- passes jobs another claimer holds. Up to 200 ids a notification (a payload stays under 8,000 bytes).
WITH {FairShare}, waiting AS (
    SELECT t.id AS tenant_id FROM tenants t
    WHERE EXISTS (SELECT 1 FROM jobs j WHERE j.tenant_id = t.id AND j.status = 'queued' OFFSET 0)
), candidates AS (
    SELECT q.id, q.created_at, w.tenant_id, row_number() OVER (PARTITION BY w.tenant_id ORDER BY q.created_at) AS k
    FROM waiting w
    CROSS JOIN LATERAL (
        SELECT j.id, j.created_at FROM jobs j
        WHERE j.tenant_id = w.tenant_id AND j.status = 'queued'
        -- twice the count: room to pass over a batch another claimer holds
        ORDER BY j.created_at LIMIT 2 * :count
    ) q
), picked AS (
    -- locked in turn order, one by one, until :count are held: a job another claimer
    -- holds is passed over for the next, its rank still counted against the caps (it
    -- is as good as running). OFFSET 0 keeps the turns a sorted subquery, so the
    -- lateral lock by primary key runs only for the turns the LIMIT takes.
    SELECT h.id FROM (
        SELECT c.id, coalesce(r.n, 0) + c.k AS turn, c.created_at FROM candidates c
        JOIN tenants t ON t.id = c.tenant_id
        LEFT JOIN running r ON r.tenant_id = c.tenant_id
        WHERE {MayTake}
        ORDER BY turn, c.created_at
        OFFSET 0
    ) e
    CROSS JOIN LATERAL (SELECT j.id FROM jobs j WHERE j.id = e.id AND j.status = 'queued'
                        FOR UPDATE SKIP LOCKED) h
    ORDER BY e.turn, e.created_at
    LIMIT :count
), claimed AS (
    -- by primary key only: picked holds each row locked and still queued, and a test of
    -- the status here let PostgreSQL join picked with a scan of every queued job instead
    UPDATE jobs SET status = 'building', node_id = :node, attempt = attempt + 1,
           lease_until = now() + make_interval(secs => :lease_seconds), claimed_at = now()
    WHERE id = ANY (ARRAY(SELECT id FROM picked))
    RETURNING id, tenant_id, attempt, request::text AS request,
              (SELECT t.policy::text FROM tenants t WHERE t.id = jobs.tenant_id) AS policy,
              EXISTS (SELECT 1 FROM job_files f WHERE f.job_id = jobs.id) AS has_files,
              session_id, required_nixpkgs_revision
), events AS (
    INSERT INTO job_events (job_id, seq, kind, data)
    SELECT c.id, coalesce((SELECT max(e.seq) FROM job_events e WHERE e.job_id = c.id), 0) + 1, 'status', 'building'
    FROM claimed c
), audited AS (
    INSERT INTO audit_events (tenant_id, job_id, node_id, kind, detail, at)
    SELECT c.tenant_id, c.id, :node, 'claimed', jsonb_build_object('attempt', c.attempt), now() FROM claimed c
), unhurried AS (
    SELECT set_config('synchronous_commit', 'off', true)
), notified AS (
    SELECT count(pg_notify(:changed_channel, ids)) AS n FROM (SELECT string_agg(id::text, ',') AS ids
        FROM (SELECT id, (row_number() OVER () - 1) / 200 AS part FROM claimed) numbered
        GROUP BY part) parts
)
SELECT c.* FROM claimed c, unhurried, notified

-- name: Start
WITH s AS (
    UPDATE jobs SET status = 'running', started_at = now(), store_path = :store_path,
           nixpkgs_revision = :revision, cache_hit = :cache_hit, build_ms = :build_ms
    WHERE id = :id AND node_id = :node AND attempt = :attempt AND status = 'building'
          AND NOT cancel_requested
    RETURNING id, tenant_id
), events AS (
    INSERT INTO job_events (job_id, seq, kind, data)
    SELECT s.id, coalesce((SELECT max(e.seq) FROM job_events e WHERE e.job_id = s.id), 0) + 1,
           'status', 'running'
    FROM s
), audited AS (
    INSERT INTO audit_events (tenant_id, job_id, node_id, kind, detail, at)
    SELECT s.tenant_id, s.id, :node, v.kind, CAST(v.detail AS jsonb), now()
    FROM s, (VALUES (1, 'environment', CAST(:environment AS text)), (2, 'started', '{}')) AS v(n, kind, detail)
    ORDER BY v.n
)
SELECT count(pg_notify(:changed_channel, s.id::text)) AS started FROM s

-- name: Finish
-- The ends of runs (:ends, and the output not yet stored, :output, as JSON) of jobs still this node's;
-- a job whose cancel was requested ends cancelled unless it succeeded.
WITH ends AS (
    SELECT * FROM json_to_recordset(CAST(:ends AS json)) AS v(id uuid, attempt integer, status text,
        exit_code integer, signal integer, timed_out boolean, limit_hit text, duration_ms bigint, stdout text,
        stderr text, stdout_bytes bigint, stderr_bytes bigint, stdout_truncated boolean,
        stderr_truncated boolean, error_code text, error_message text, cpu_ms bigint, max_rss_bytes bigint,
        stdout_exact text, stderr_exact text)
), done AS (
    UPDATE jobs j SET status = CASE WHEN j.cancel_requested AND v.status <> 'succeeded' THEN 'cancelled'
           ELSE v.status END, finished_at = now(), lease_until = NULL, exit_code = v.exit_code,
           signal = v.signal, timed_out = v.timed_out, limit_hit = v.limit_hit, duration_ms = v.duration_ms,
           stdout = v.stdout, stderr = v.stderr, stdout_bytes = v.stdout_bytes, stderr_bytes = v.stderr_bytes,
           stdout_truncated = v.stdout_truncated, stderr_truncated = v.stderr_truncated,
           error_code = v.error_code, error_message = v.error_message, cpu_ms = v.cpu_ms,
           max_rss_bytes = v.max_rss_bytes,
           stdout_exact = decode(v.stdout_exact, 'base64'), stderr_exact = decode(v.stderr_exact, 'base64')
    FROM ends v
    -- the jobs by primary key: joined with the ends alone, PostgreSQL took every building
    -- and running job from jobs_active instead, reading the entry of every job that left
    -- it since the last vacuum (18,000 for 200 running jobs in QueueBenchmark)
    WHERE j.id = ANY (ARRAY(SELECT id FROM ends))
      AND j.id = v.id AND j.attempt = v.attempt AND j.node_id = :node AND j.status IN ('building', 'running')
    RETURNING j.*
), audited AS (
    INSERT INTO audit_events (tenant_id, job_id, key_id, node_id, kind, detail, at)
    SELECT d.tenant_id, d.id, CASE WHEN d.status = 'cancelled' THEN d.cancelled_by END, :node,
           CASE WHEN d.status = 'cancelled' THEN 'cancelled' ELSE 'finished' END,
           jsonb_strip_nulls(jsonb_build_object('status', d.status, 'exit_code', d.exit_code,
                                                'error_code', d.error_code)), now()
    FROM done d
), output AS (
    SELECT o.id, o.n, o.kind, o.data
    FROM json_to_recordset(CAST(:output AS json)) AS o(id uuid, n integer, kind text, data text)
), fresh AS (
    SELECT d.id, o.n, o.kind, o.data FROM done d JOIN output o ON o.id = d.id
    UNION ALL SELECT d.id, 2147483646, 'status', d.status FROM done d
    UNION ALL SELECT d.id, 2147483647, 'result', '' FROM done d
), events AS (
    INSERT INTO job_events (job_id, seq, kind, data)
    SELECT f.id, coalesce((SELECT max(e.seq) FROM job_events e WHERE e.job_id = f.id), 0)
           + row_number() OVER (PARTITION BY f.id ORDER BY f.n), f.kind, f.data
    FROM fresh f
), notified AS (
    SELECT count(pg_notify(:changed_channel, ids)) AS n FROM (SELECT string_agg(id::text, ',') AS ids
        FROM (SELECT id, (row_number() OVER () - 1) / 200 AS part FROM done) numbered
        GROUP BY part) parts
)
SELECT d.* FROM done d CROSS JOIN notified
CROSS JOIN LATERAL (SELECT pg_notify(:ended_channel, d.id::text)) n

-- name: Cancel
WITH c AS (
    UPDATE jobs j SET cancel_requested = true, cancelled_by = :key,
           status = CASE WHEN j.status = 'queued' THEN 'cancelled' ELSE j.status END,
           finished_at = CASE WHEN j.status = 'queued' THEN now() ELSE j.finished_at END
    WHERE j.id = :id AND j.tenant_id = :tenant AND j.status IN ('queued', 'building', 'running')
      AND NOT j.cancel_requested
    RETURNING j.*, CASE WHEN j.status = 'cancelled' THEN 'queued' ELSE j.status END AS was
), events AS (
    INSERT INTO job_events (job_id, seq, kind, data)
    SELECT c.id, coalesce((SELECT max(e.seq) FROM job_events e WHERE e.job_id = c.id), 0) + v.n, v.kind, v.data
    FROM c, (VALUES (1, 'status', 'cancelled'), (2, 'result', '')) AS v(n, kind, data)
    WHERE c.status = 'cancelled'
), audited AS (
    INSERT INTO audit_events (tenant_id, job_id, key_id, node_id, kind, detail, at)
    SELECT c.tenant_id, c.id, c.cancelled_by, NULL,
           CASE WHEN c.status = 'cancelled' THEN 'cancelled' ELSE 'cancel_requested' END,
           jsonb_build_object('was', c.was), now()
    FROM c
)
SELECT c.* FROM c CROSS JOIN LATERAL (
    SELECT CASE WHEN c.status = 'cancelled' THEN pg_notify(:changed_channel, c.id::text) END,
           CASE WHEN c.status = 'cancelled' THEN pg_notify(:ended_channel, c.id::text) END,
           CASE WHEN c.status <> 'cancelled' THEN pg_notify(:cancel_channel, c.id::text) END) n

-- name: GiveBack
WITH back AS (
    UPDATE jobs SET status = 'queued', node_id = NULL, lease_until = NULL, attempt = attempt - 1,
           run_after = now()
    WHERE id = :id AND node_id = :node AND status = 'building'
    RETURNING id, tenant_id
), events AS (
    INSERT INTO job_events (job_id, seq, kind, data)
    SELECT b.id, coalesce((SELECT max(e.seq) FROM job_events e WHERE e.job_id = b.id), 0) + 1, 'status', 'queued'
    FROM back b
), audited AS (
    INSERT INTO audit_events (tenant_id, job_id, node_id, kind, detail, at)
    SELECT b.tenant_id, b.id, :node, 'requeued', jsonb_build_object('reason', 'node shutting down'), now()
    FROM back b
)
SELECT b.id, pg_notify(:submitted_channel, ''), pg_notify(:changed_channel, b.id::text) FROM back b

-- name: Expired
-- Locked for this transaction: another reaper skips them.
SELECT id, node_id, status, attempt, max_attempts, cancel_requested FROM jobs
WHERE status IN ('building', 'running') AND lease_until < now()
FOR UPDATE SKIP LOCKED

-- name: Reap
WITH verdicts AS (
    SELECT * FROM json_to_recordset(CAST(:verdicts AS json)) AS v(id uuid, node text, status text,
        error_message text)
), taken AS (
    UPDATE jobs j SET status = v.status,
           node_id = CASE WHEN v.status = 'queued' THEN NULL ELSE j.node_id END,
           lease_until = NULL,
           run_after = CASE WHEN v.status = 'queued' THEN now() ELSE j.run_after END,
           finished_at = CASE WHEN v.status = 'queued' THEN j.finished_at ELSE now() END,
           error_code = CASE WHEN v.status = 'error' THEN 'worker_lost' ELSE j.error_code END,
           error_message = CASE WHEN v.status = 'error' THEN v.error_message ELSE j.error_message END
    FROM verdicts v
    WHERE j.id = v.id AND j.node_id = v.node AND j.status IN ('building', 'running')
    RETURNING j.*, v.node AS lost_node
), events AS (
    INSERT INTO job_events (job_id, seq, kind, data)
    SELECT t.id, coalesce((SELECT max(e.seq) FROM job_events e WHERE e.job_id = t.id), 0) + v.n, v.kind,
           CASE WHEN v.kind = 'status' THEN t.status ELSE '' END
    FROM taken t, (VALUES (1, 'status'), (2, 'result')) AS v(n, kind)
    WHERE v.n = 1 OR t.status <> 'queued'
), audited AS (
    INSERT INTO audit_events (tenant_id, job_id, key_id, node_id, kind, detail, at)
    SELECT t.tenant_id, t.id, CASE WHEN t.status = 'cancelled' THEN t.cancelled_by END, t.lost_node,
           CASE t.status WHEN 'queued' THEN 'requeued' WHEN 'cancelled' THEN 'cancelled' ELSE 'finished' END,
           CASE WHEN t.status = 'queued' THEN jsonb_build_object('attempt', t.attempt)
                ELSE jsonb_strip_nulls(jsonb_build_object('status', t.status, 'exit_code', t.exit_code,
                                                          'error_code', t.error_code)) END, now()
    FROM taken t
)
SELECT t.* FROM taken t CROSS JOIN LATERAL (
    SELECT pg_notify(:changed_channel, t.id::text),
           CASE WHEN t.status = 'queued' THEN pg_notify(:submitted_channel, '') END,
           CASE WHEN t.status <> 'queued' THEN pg_notify(:ended_channel, t.id::text) END) n

-- name: QueuedOfAllTenants
SELECT coalesce(sum(queued), 0) AS queued FROM queued_job_counts

-- name: FoldQueuedCounts
-- Rows in use are passed over, so the fold never waits for a submission or a claim; totals are
-- written in tenant order, so two folds never wait for each other in a cycle.
WITH held AS (
    SELECT tenant_id, backend FROM queued_job_counts WHERE backend <> 0 FOR UPDATE SKIP LOCKED
), folded AS (
    DELETE FROM queued_job_counts c USING held h
    WHERE c.tenant_id = h.tenant_id AND c.backend = h.backend
    RETURNING c.tenant_id, c.queued
), totals AS (
    INSERT INTO queued_job_counts AS c (tenant_id, backend, queued)
    SELECT tenant_id, 0, sum(queued) FROM folded GROUP BY tenant_id ORDER BY tenant_id
    ON CONFLICT (tenant_id, backend) DO UPDATE SET queued = c.queued + excluded.queued
)
SELECT count(*) AS rows FROM folded

-- name: AppendOutput
-- Only while the job is this node's run of that attempt; the share lock orders it with an end or a reap.
WITH unhurried AS (
    SELECT set_config('synchronous_commit', 'off', true)
), run AS (
    SELECT id FROM jobs
    WHERE id = :id AND node_id = :node AND attempt = :attempt AND status IN ('building', 'running')
    FOR SHARE
), appended AS (
    INSERT INTO job_events (job_id, seq, kind, data)
    SELECT r.id, coalesce((SELECT max(e.seq) FROM job_events e WHERE e.job_id = r.id), 0) + c.n, c.kind, c.data
    FROM run r, json_to_recordset(CAST(:chunks AS json)) AS c(n integer, kind text, data text)
)
SELECT count(pg_notify(:changed_channel, r.id::text)) AS appended FROM run r, unhurried

-- name: Heartbeat
-- The node's row and the leases of the runs it still has (:ids): a job whose end could not be stored
-- is left to the reaper. Answers the ids whose cancel was requested (and a null).
WITH unhurried AS (
    SELECT set_config('synchronous_commit', 'off', true)
), node AS (
    INSERT INTO nodes (id, role, concurrency, running) VALUES (:node, :role, :concurrency, :running)
    ON CONFLICT (id) DO UPDATE SET role = :role, concurrency = :concurrency, running = :running, heartbeat_at = now()
), leases AS (
    UPDATE jobs SET lease_until = now() + make_interval(secs => :lease_seconds)
    WHERE id = ANY (CAST(:ids AS uuid[])) AND node_id = :node AND status IN ('building', 'running')
    RETURNING CASE WHEN cancel_requested THEN id END AS cancel
)
SELECT l.cancel FROM unhurried LEFT JOIN leases l ON true

-- name: DatabaseNow
SELECT CAST(extract(epoch FROM clock_timestamp()) * 1000000 AS bigint) AS micros

-- name: Nodes
SELECT id, role, concurrency, running, started_at, heartbeat_at FROM nodes ORDER BY id

-- name: LeaveFleet
DELETE FROM nodes WHERE id = :node

-- name: ForgetSilentNodes
DELETE FROM nodes WHERE heartbeat_at < now() - make_interval(secs => :silent_seconds)

-- name: ExpireJobs
DELETE FROM jobs WHERE finished_at < now() - make_interval(secs => :retention_seconds)

-- name: EventsAfter
SELECT e.seq, e.kind, e.data, e.created_at
FROM job_events e JOIN jobs j ON j.id = e.job_id AND j.tenant_id = :tenant
WHERE e.job_id = :job AND e.seq > :after
ORDER BY e.seq
LIMIT :page

-- name: ResultSeq
SELECT e.seq
FROM job_events e JOIN jobs j ON j.id = e.job_id AND j.tenant_id = :tenant
WHERE e.job_id = :job AND e.kind = 'result'

-- name: HoldIfStillClaimed
-- Key-share: the reaper (FOR UPDATE SKIP LOCKED) passes it by, the heartbeat's lease updates do not wait.
SELECT id FROM jobs
WHERE id = :job AND node_id = :node AND attempt = :attempt AND status IN ('building', 'running')
FOR KEY SHARE

-- name: ShowArtifacts
UPDATE jobs SET artifacts = CAST(:artifacts AS jsonb) WHERE id = :job

-- name: JobById
SELECT * FROM jobs WHERE id = :id

-- name: JobByIdempotencyKey
SELECT * FROM jobs WHERE tenant_id = :tenant AND idempotency_key = :idempotency_key

-- name: JobsOfSession
SELECT * FROM jobs WHERE tenant_id = :tenant AND session_id = :session ORDER BY created_at DESC LIMIT :limit

-- name: UnfinishedOfSession
SELECT id FROM jobs
WHERE tenant_id = :tenant AND session_id = :session AND status IN ('queued', 'building', 'running')

-- name: RegisterCallback
INSERT INTO job_callbacks (job_id, tenant_id, url) VALUES (:job, :tenant, :url)

-- name: MarkSessionBuild
UPDATE jobs SET build = 'session' WHERE id = :job

-- name: FinishedPerBucket
-- The fleet charts (JobStats), over :tenant's jobs or every tenant's (null): jobs finished per
-- status in each bucket of :seconds from :start to :end.
SELECT floor(extract(epoch FROM finished_at - CAST(:start AS timestamptz)) / :seconds)::int AS bucket, status,
       count(*) AS n
FROM jobs
WHERE (CAST(:tenant AS uuid) IS NULL OR tenant_id = :tenant) AND finished_at >= :start AND finished_at < :end
GROUP BY 1, 2

-- name: RunTimesPerBucket
SELECT floor(extract(epoch FROM finished_at - CAST(:start AS timestamptz)) / :seconds)::int AS bucket,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY duration_ms) AS p50,
       percentile_cont(0.95) WITHIN GROUP (ORDER BY duration_ms) AS p95
FROM jobs
WHERE (CAST(:tenant AS uuid) IS NULL OR tenant_id = :tenant) AND finished_at >= :start AND finished_at < :end
  AND duration_ms IS NOT NULL
GROUP BY 1

-- name: QueuedPerBucket
-- A job is queued at t when it was made by t and not yet claimed (or ended unclaimed) at t.
SELECT g.i AS bucket, count(j.id) AS n
FROM generate_series(0, :buckets - 1) AS g(i)
JOIN jobs j ON (CAST(:tenant AS uuid) IS NULL OR j.tenant_id = :tenant)
    AND j.created_at <= CAST(:start AS timestamptz) + make_interval(secs => :seconds * (g.i + 1))
    AND coalesce(j.claimed_at, j.finished_at, 'infinity')
        > CAST(:start AS timestamptz) + make_interval(secs => :seconds * (g.i + 1))
WHERE coalesce(j.claimed_at, j.finished_at, 'infinity') > :start
GROUP BY g.i

-- name: QueueNow
-- The queue's size and the age of its oldest job, for the gauges (JobMetrics).
SELECT count(*) AS queued, coalesce(extract(epoch FROM now() - min(created_at)) * 1000, 0)::bigint AS oldest_ms
FROM jobs WHERE status = 'queued'
