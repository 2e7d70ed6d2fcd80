-- The queue's statements on jobs, job_events and queued_job_counts, by name (NamedStatement.file):
-- each begins at its "-- name:" line; {Name} stands for the named block's text (a fragment several
-- statements share). Whole-line comments stay here and are not sent. Each transition is ONE statement
-- that writes the job, its events, its audit record and its notification (JobTransitions).

-- name: FairShare
-- The claim rule's CTEs, shared by Claim and the hand-off of Insert so the two cannot drift: running
-- (each tenant's building and running jobs, all and on node :node) and contending (tenants with a job
-- waiting that their running cap lets run, or with a job submitted within the last :window_seconds).
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
-- Whether tenant t (a tenants row; r its running row) may take a c.k-th slot on node :node: under its
-- running cap, and, while another tenant contends, within the node's share (:share: its slots less the
-- reserved ones).
(coalesce(r.n, 0) + c.k <= coalesce((t.policy ->> 'max_running')::int, :default_cap)
 AND (coalesce(r.here, 0) + c.k <= :share
      OR NOT EXISTS (SELECT 1 FROM contending o WHERE o.tenant_id <> t.id)))

-- name: QueuedOfTenant
queued AS (
    -- kept by triggers (migration V38): a few rows, where counting the jobs read every one
    SELECT CAST(coalesce(sum(queued), 0) AS bigint) AS n FROM queued_job_counts WHERE tenant_id = :tenant
)

-- name: StoreJob
-- The job (queued, or claimed by here's node), its first events, its audit records and, queued, the
-- wake-up of idle workers; answers the tenant's queued count, whether it stored, and the claiming node.
stored AS (
    INSERT INTO jobs (id, tenant_id, key_id, key_name, key_role, status, language, code, packages, env, stdin,
                      timeout_ms, network, host_workspace, host_mounts, metadata, idempotency_key,
                      request_hash, max_attempts, created_at, run_after, node_id, attempt,
                      lease_until, claimed_at, session_id, limits, args, encoding, rerun_of,
                      required_nixpkgs_revision)
    SELECT :id, :tenant, CAST(:key AS uuid), CAST(:key_name AS text), CAST(:key_role AS text), CASE WHEN h.node_id IS NULL THEN 'queued' ELSE 'building' END,
           :language, :code, CAST(:packages AS jsonb), CAST(:env AS jsonb), :stdin, :timeout_ms, :network,
           CAST(:host_workspace AS text), CAST(:host_mounts AS jsonb), CAST(:metadata AS jsonb),
           CAST(:idempotency_key AS text),
           :request_hash, :max_attempts, p.at, p.at, h.node_id,
           CASE WHEN h.node_id IS NULL THEN 0 ELSE 1 END,
           CASE WHEN h.node_id IS NOT NULL THEN now() + make_interval(secs => :lease_seconds) END,
           CASE WHEN h.node_id IS NOT NULL THEN p.at END,
           CAST(:session AS uuid), CAST(:limits AS jsonb), coalesce(CAST(:args AS jsonb), '[]'),
           coalesce(CAST(:encoding AS text), 'utf-8'), CAST(:rerun_of AS uuid),
           CAST(:required_revision AS text)
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
-- Submit given a free slot of node :node (null: none): a job whose tenant may take it (MayTake) and
-- which would pass no job a worker could claim now is stored as claimed by that node, with the claim's
-- event and audit record, and no wake-up: nobody else needs waking.
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
-- Insert for a submission no local slot waits for: the job is queued, and the claim rule is left out.
-- PostgreSQL builds the executor state of every part of a plan on each run, used or not, and a
-- submission's statement cost the database more to set up than to run (perf, docs/benchmarks.md).
WITH {QueuedOfTenant}, here AS (SELECT CAST(NULL AS text) AS node_id WHERE false), {StoreJob}

-- name: Claim
-- Fairness: each tenant's oldest queued jobs are ranked 1, 2, 3... and a job's turn is its tenant's
-- running count plus its rank, so tenants with fewer running jobs go first and tenants interleave; a
-- tenant at its running cap, or at its share of this node while another tenant contends (MayTake),
-- gets nothing. SKIP LOCKED lets many claimers run this at once without ever taking the same row, and
-- a claimer whose picks another holds takes the next jobs in turn, counting the held ones against the
-- caps. The same statement appends each claimed job's "building" event and "claimed" audit record,
-- notifies its followers (one notification names up to 200 ids, comma-separated: a payload must stay
-- under 8,000 bytes) and lets the commit return before the disk has it (see JobQueue). A queued job is
-- claimable at once: its run_after comes from the clock of the node that queued it.
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
    RETURNING id, tenant_id, attempt, language, code, packages::text AS packages, env::text AS env, stdin,
              timeout_ms, network, (SELECT t.policy::text FROM tenants t WHERE t.id = jobs.tenant_id) AS policy,
              host_workspace, EXISTS (SELECT 1 FROM job_files f WHERE f.job_id = jobs.id) AS has_files,
              session_id, limits::text AS limits, args::text AS args, encoding, required_nixpkgs_revision,
              host_mounts::text AS host_mounts
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
-- building -> running: the update, the "running" event, both audit records (environment, started) and
-- the notification.
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
-- The ends of runs, one statement for any number: :ends as a JSON array, the output not yet stored
-- (:output) as another. Only jobs still this node's (same attempt, not ended) are updated; their
-- audit, remaining output, status and result events (the result filled in when read) and
-- notifications go with them: one changed for the batch (up to 200 ids each), one ended per job
-- (which a node before the batched form reads as one id). A job whose cancel was requested ends
-- cancelled unless it succeeded.
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
-- A queued job ends cancelled at once (final events, audit, end notifications); a building or running
-- one is flagged (audit, and a notification to the node running it), and ends when its sandbox is
-- gone. A terminal job, or one already flagged, is left as it is. The row lock of the update orders it
-- with a concurrent claim or finish.
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
-- building -> queued: a job its node claimed but will not run (shutting down before its code started).
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
-- Jobs whose lease ran out, locked for this transaction; another reaper skips them.
SELECT id, node_id, status, attempt, max_attempts, cancel_requested FROM jobs
WHERE status IN ('building', 'running') AND lease_until < now()
FOR UPDATE SKIP LOCKED

-- name: Reap
-- Applies the reaper's verdicts (ExpiredLease.verdict) given as a JSON array: queued again (event,
-- "requeued" audit, a wake-up), or ended cancelled or worker_lost (final events, "cancelled" or
-- "finished" audit, end notifications). Only jobs still held by the node whose lease expired are touched.
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
-- Moves the connections' rows of queued_job_counts into each tenant's total. Rows in use by an open
-- transaction are passed over until the next fold, so the fold never waits for a submission or a
-- claim, nor one for the fold for longer than its own short transaction (a connection whose row was
-- folded starts a new one). Each tenant's total row is written in tenant order: two folds at once wait
-- for each other there, never in a cycle.
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
-- Output for live followers (:chunks, a JSON array of n, kind, data), appended only while the job is
-- this node's run of that attempt, building or running: a run that is not (started before its
-- submission was refused or stored the job queued; an earlier attempt still alive after a reap) writes
-- nothing into the events of a job it does not have. The row is locked for share, so an end or a reap
-- commits either before (nothing is appended) or after (the output comes before the result). The
-- commit need not wait for the disk (see JobQueue).
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
SELECT count(pg_notify(:changed_channel, r.id::text)) AS appended FROM unhurried LEFT JOIN run r ON true

-- name: Heartbeat
-- The node's row in the fleet list; the commit need not wait for the disk (see JobQueue).
WITH unhurried AS (
    SELECT set_config('synchronous_commit', 'off', true) AS setting
), node AS (
    INSERT INTO nodes (id, role, concurrency, running) VALUES (:node, :role, :concurrency, :running)
    ON CONFLICT (id) DO UPDATE SET role = :role, concurrency = :concurrency, running = :running, heartbeat_at = now()
)
SELECT setting FROM unhurried

-- name: ExtendLeases
-- Only the runs this node still has (:ids, a uuid[] literal): a job whose end could not be stored is
-- left to expire, so the reaper ends it instead of its lease being renewed for ever.
UPDATE jobs SET lease_until = now() + make_interval(secs => :lease_seconds)
WHERE id = ANY (CAST(:ids AS uuid[])) AND node_id = :node AND status IN ('building', 'running')
RETURNING CASE WHEN cancel_requested THEN id END AS cancel

-- name: DatabaseNow
SELECT CAST(extract(epoch FROM clock_timestamp()) * 1000000 AS bigint) AS micros

-- name: Nodes
SELECT id, role, concurrency, running, started_at, heartbeat_at FROM nodes ORDER BY id

-- name: LeaveFleet
DELETE FROM nodes WHERE id = :node

-- name: ForgetSilentNodes
DELETE FROM nodes WHERE heartbeat_at < now() - make_interval(secs => :silent_seconds)

-- name: ExpireJobs
-- A job's events go with it (job_events' foreign key, ON DELETE CASCADE).
DELETE FROM jobs WHERE finished_at < now() - make_interval(secs => :retention_seconds)

-- name: ExpireAuditRecords
DELETE FROM audit_events WHERE at < now() - make_interval(secs => :retention_seconds)

-- name: ExpireShellRecordings
DELETE FROM shell_recordings WHERE ended_at < now() - make_interval(secs => :retention_seconds)

-- name: EventsAfter
-- The job's events after :after, at most :page; none for another tenant's job.
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
-- The row is key-share locked to the end of the transaction: the reaper (FOR UPDATE SKIP LOCKED)
-- passes it by meanwhile, while the heartbeat's lease updates are not held up. "building" counts too,
-- in case the start of the run is written after its end is near; a reaped building job has no node or
-- another attempt.
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
-- The job's callback, due once the job ends; in the submission's transaction, so never lost.
INSERT INTO job_callbacks (job_id, tenant_id, url) VALUES (:job, :tenant, :url)
