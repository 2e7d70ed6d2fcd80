package dev.nixexec.job;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.nixexec.config.NixExecConfig;
import dev.nixexec.execution.ExecutionRequest;
import dev.nixexec.execution.RequestedLimits;
import dev.nixexec.tenant.TenantPolicy;
import dev.nixexec.workspace.JobFiles;
import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * Every change of a job's status, in one place and one idiom: each transition is ONE statement
 * that writes the job, its event ({@code job_events}), its audit record ({@code audit_events}) and
 * its notification ({@code pg_notify}), so all of them exist exactly when the change does. Every
 * change is guarded by the status it expects (and, for a worker's, the owning node and attempt), so
 * a job taken back is never finished twice. See {@link JobStatus} for which transition moves a job
 * in and out of each state.
 *
 * <p>The statements run on the current transaction's plain JDBC connection (in the service the
 * JTA transaction's, shared with Hibernate; in a database test the test's own), with named
 * parameters; rows are read by column name.
 */
@ApplicationScoped
public class JobTransitions {

    /** The numbers the claim rule and the leases depend on. */
    public record Settings(Duration lease, int defaultMaxRunning, Duration contentionWindow, int reservedSlots,
            int slots) {

        static Settings of(NixExecConfig config) {
            return new Settings(config.jobs().lease(), config.jobs().maxRunningPerTenant(),
                    config.limits().contentionWindow(), config.limits().reservedSlots(), config.node().concurrency());
        }

        /**
         * The slots of a node with {@code slots} slots that one tenant may hold while another tenant
         * contends: all but the reserved ones, and at least one.
         */
        int share(int slots) {
            return Math.max(1, slots - Math.max(0, reservedSlots));
        }
    }

    /** Told of jobs a committed transition ended (in the service: metrics, and this node's waiters). */
    @FunctionalInterface
    public interface Ends {
        void ended(List<Job> jobs);
    }

    // ---------------------------------------------------------------- the claim rule

    /**
     * The claim rule's CTEs, shared by {@link #CLAIM} and the hand-off of {@link #INSERT} so the
     * two cannot drift: {@code running} (each tenant's building and running jobs, all and on node
     * {@code :node}) and {@code contending} (tenants with a job waiting that their running cap lets
     * run, or with a job submitted within the last {@code :window_seconds}).
     */
    private static final String FAIR_SHARE = """
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
            )""";

    /**
     * Whether tenant {@code t} (a tenants row; {@code r} its {@code running} row) may take a
     * {@code c.k}-th slot on node {@code :node}: under its running cap, and, while another tenant
     * contends, within the node's share ({@code :share}: its slots less the reserved ones).
     */
    private static final String MAY_TAKE = """
            (coalesce(r.n, 0) + c.k <= coalesce((t.policy ->> 'max_running')::int, :default_cap)
             AND (coalesce(r.here, 0) + c.k <= :share
                  OR NOT EXISTS (SELECT 1 FROM contending o WHERE o.tenant_id <> t.id)))""";

    /**
     * Job ids per {@code changed} notification of a claim or finish: one notification names up to
     * this many, comma-separated (a payload must stay under 8,000 bytes; an id and its comma are 37),
     * so a batch costs the database and every listener one notification, not one per job.
     */
    static final int IDS_PER_NOTIFICATION = 200;

    private static String withRule(String sql) {
        return sql.replace("{fair_share}", FAIR_SHARE).replace("{may_take}", MAY_TAKE)
                .replace("{ids_per_notification}", Integer.toString(IDS_PER_NOTIFICATION));
    }

    // ---------------------------------------------------------------- insert (→ queued, or → building here)

    /**
     * Submit's statement, around the CTE {@code here}: the node that takes the job at once, if any
     * (one row with {@code node_id}, or none).
     */
    private static final String INSERT_TEMPLATE = """
            WITH queued AS (
                -- kept by triggers (migration V38): a few rows, where counting the jobs read every one
                SELECT CAST(coalesce(sum(queued), 0) AS bigint) AS n FROM queued_job_counts WHERE tenant_id = :tenant
            ), {here}, stored AS (
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
            """;

    /**
     * Submit: the tenant's queued cap, the job, its first event, its audit record, the wake-up of
     * idle workers. Given a free slot of node {@code :node} (null: none), a job whose tenant may
     * take it ({@link #MAY_TAKE}) and which would pass no job a worker could claim now is stored as
     * claimed by that node, with the claim's event and audit record, and no wake-up: nobody else
     * needs waking. Answers the tenant's queued count, whether it stored, and the claiming node.
     */
    static final NamedStatement INSERT = NamedStatement.of(withRule(INSERT_TEMPLATE.replace("{here}", """
            {fair_share}, here AS (
                SELECT CAST(:node AS text) AS node_id
                WHERE CAST(:node AS text) IS NOT NULL
                  AND EXISTS (SELECT 1 FROM tenants t LEFT JOIN running r ON r.tenant_id = t.id
                              CROSS JOIN (SELECT 1 AS k) c
                              WHERE t.id = :tenant AND {may_take})
                  AND NOT EXISTS (
                      SELECT 1 FROM tenants t LEFT JOIN running r ON r.tenant_id = t.id CROSS JOIN (SELECT 1 AS k) c
                      WHERE EXISTS (SELECT 1 FROM jobs q WHERE q.tenant_id = t.id AND q.status = 'queued' OFFSET 0)
                        AND {may_take})
            )""")))
            .plannedOnce();

    /**
     * {@link #INSERT} for a submission no local slot waits for: the job is queued, and the claim
     * rule is left out of the statement. PostgreSQL builds the executor state of every part of a
     * plan on each run, used or not, and a submission's statement cost the database more to set
     * up than to run (perf, docs/benchmarks.md).
     */
    static final NamedStatement INSERT_QUEUED = NamedStatement.of(INSERT_TEMPLATE.replace("{here}",
            "here AS (SELECT CAST(NULL AS text) AS node_id WHERE false)")).plannedOnce();

    // ---------------------------------------------------------------- claim (queued → building)

    /**
     * Fairness: each tenant's oldest queued jobs are ranked 1, 2, 3… and a job's turn is its
     * tenant's running count plus its rank, so tenants with fewer running jobs go first and tenants
     * interleave; a tenant at its running cap, or at its share of this node while another tenant
     * contends ({@link #MAY_TAKE}), gets nothing. SKIP LOCKED lets many claimers run this at once
     * without ever taking the same row, and a claimer whose picks another holds takes the next jobs
     * in turn, counting the held ones against the caps: nodes woken by one burst all get work, where
     * all but one came away empty and waited for the next wake-up. The same statement appends each
     * claimed job's "building" event and "claimed" audit record, notifies its followers (one
     * notification names the whole batch, {@link #IDS_PER_NOTIFICATION}) and lets the commit return
     * before the disk has it (see {@code JobQueue}), so a claim costs one round trip and its
     * commit. A queued job is claimable at once: its {@code run_after} comes from the clock of the
     * node that queued it, and comparing that with the database's would hold jobs back by any skew
     * between the two.
     */
    static final NamedStatement CLAIM = NamedStatement.of(withRule("""
            WITH {fair_share}, waiting AS (
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
                    WHERE {may_take}
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
                    FROM (SELECT id, (row_number() OVER () - 1) / {ids_per_notification} AS part FROM claimed) numbered
                    GROUP BY part) parts
            )
            SELECT c.* FROM claimed c, unhurried, notified
            """)).plannedOnce().withPlainIndexScans();

    // ---------------------------------------------------------------- start (building → running)

    /** The update, the "running" event, both audit records (environment, started) and the notification. */
    static final NamedStatement START = NamedStatement.of("""
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
            """);

    // ---------------------------------------------------------------- finish (building | running → an end)

    /**
     * The ends of runs, one statement for any number: {@code :ends} as a JSON array, the output not
     * yet stored ({@code :output}) as another. Only jobs still this node's (same attempt, not ended)
     * are updated; their audit, remaining output, status and result events (the result filled in
     * when read) and notifications go with them: one {@code changed} for the batch, one {@code ended}
     * per job (which a node before the batched form reads as one id). A job whose cancel was requested ends
     * {@code cancelled} unless it succeeded.
     */
    static final NamedStatement FINISH = NamedStatement.of(withRule("""
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
                    FROM (SELECT id, (row_number() OVER () - 1) / {ids_per_notification} AS part FROM done) numbered
                    GROUP BY part) parts
            )
            SELECT d.* FROM done d CROSS JOIN notified
            CROSS JOIN LATERAL (SELECT pg_notify(:ended_channel, d.id::text)) n
            """)).withPlainIndexScans();

    // ---------------------------------------------------------------- cancel (queued → cancelled; flag otherwise)

    /**
     * A queued job ends {@code cancelled} at once (final events, audit, end notifications); a
     * building or running one is flagged (audit, and a notification to the node running it), and
     * ends when its sandbox is gone. A terminal job, or one already flagged, is left as it is.
     * The row lock of the update orders it with a concurrent claim or finish.
     */
    static final NamedStatement CANCEL = NamedStatement.of("""
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
            """);

    // ---------------------------------------------------------------- give back (building → queued)

    /** A job its node claimed but will not run (shutting down before its code started): queued again. */
    static final NamedStatement GIVE_BACK = NamedStatement.of("""
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
            """);

    // ---------------------------------------------------------------- reap (building | running, lease expired → …)

    /** Jobs whose lease ran out, locked for this transaction; another reaper skips them. */
    static final NamedStatement EXPIRED = NamedStatement.of("""
            SELECT id, node_id, status, attempt, max_attempts, cancel_requested FROM jobs
            WHERE status IN ('building', 'running') AND lease_until < now()
            FOR UPDATE SKIP LOCKED
            """);

    /**
     * Applies the reaper's verdicts ({@link ExpiredLease#verdict}) given as a JSON array: queued
     * again (event, "requeued" audit, a wake-up), or ended cancelled or {@code worker_lost} (final
     * events, "cancelled"/"finished" audit, end notifications). Only jobs still held by the node
     * whose lease expired are touched.
     */
    static final NamedStatement REAP = NamedStatement.of("""
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
            """);

    private final Settings settings;
    private final DataSource db;
    private final ObjectMapper json;
    private final Ends ends;

    @Inject
    public JobTransitions(NixExecConfig config, AgroalDataSource db, ObjectMapper json, JobMetrics metrics,
            JobNotifications notifications) {
        this(Settings.of(config), db, json, jobs -> {
            jobs.forEach(metrics::ended);
            notifications.handOverOnCommit(jobs.stream().map(j -> JobRows.view(j, json)).toList());
        });
    }

    /** Transitions on {@code db}'s connections (a test's: the connection of its transaction). */
    public JobTransitions(Settings settings, DataSource db, ObjectMapper json, Ends ends) {
        this.settings = settings;
        this.db = db;
        this.json = json;
        this.ends = ends;
    }

    /** Now, as PostgreSQL keeps it (microseconds), so a view handed over equals a later read. */
    static OffsetDateTime storedNow() {
        return OffsetDateTime.now(ZoneOffset.UTC).truncatedTo(ChronoUnit.MICROS);
    }

    // ---------------------------------------------------------------- insert

    /**
     * A stored time as the intake's statement takes it: text, cast once in the statement. Bound as
     * a date-time, the driver builds its timestamp formatter (calendars and all) for each new
     * statement on its first such value: 8 of a submission's 213 samples in a flight recording.
     */
    private static final DateTimeFormatter TIMESTAMP = DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss.SSSSSSxxx");

    /** How a submission was stored: the tenant's queued jobs before it, and the node that claimed it here. */
    public record Inserted(long queuedBefore, boolean stored, Optional<String> claimedBy) {
    }

    /**
     * Stores {@code job} (its fields as submitted) as queued, unless its tenant has
     * {@code maxQueued} queued already; with {@code handOffNode}'s free slot, as claimed by that
     * node when the claim rule would give it that slot now. {@code submitted} is the audit detail.
     */
    @Transactional(Transactional.TxType.MANDATORY)
    public Inserted insert(Job job, int maxQueued, String submitted, Optional<String> handOffNode) {
        Map<String, Object> values = NamedStatement.values().set("id", job.id).set("tenant", job.tenantId)
                .set("key", job.keyId).set("key_name", job.keyName).set("key_role", job.keyRole).set("language", job.language).set("code", job.code).set("packages", job.packages)
                .set("env", job.env).set("stdin", job.stdin).set("timeout_ms", job.timeoutMs).set("network", job.network)
                .set("host_workspace", job.hostWorkspace).set("host_mounts", job.hostMounts)
                .set("metadata", job.metadata)
                .set("idempotency_key", job.idempotencyKey).set("request_hash", job.requestHash)
                .set("max_attempts", job.maxAttempts).set("created_at", TIMESTAMP.format(job.createdAt))
                .set("max_queued", maxQueued)
                .set("submitted", submitted).set("node", handOffNode.orElse(null)).set("session", job.sessionId)
                .set("limits", job.limits)
                .set("args", job.args).set("encoding", job.encoding).set("rerun_of", job.rerunOf)
                .set("required_revision", job.requiredNixpkgsRevision)
                .set("share", settings.share(settings.slots())).set("lease_seconds", leaseSeconds())
                .set("default_cap", settings.defaultMaxRunning())
                .set("window_seconds", (double) settings.contentionWindow().toSeconds())
                .set("submitted_channel", JobNotifications.SUBMITTED).map();
        NamedStatement statement = handOffNode.isPresent() ? INSERT : INSERT_QUEUED;
        return run(c -> statement.with(values).single(c, rs -> new Inserted(rs.getLong("queued"), rs.getLong("stored") == 1,
                Optional.ofNullable(rs.getString("claimed_by")))));
    }

    // ---------------------------------------------------------------- claim

    /** Claims up to {@code count} jobs for node {@code nodeId}, with their events, audit and notifications. */
    @Transactional
    public List<ClaimedJob> claim(String nodeId, int count) {
        return claim(nodeId, count, settings.slots());
    }

    /** As {@link #claim(String, int)} for a node with {@code slots} slots (a test's or benchmark's claimer). */
    @Transactional
    public List<ClaimedJob> claim(String nodeId, int count, int slots) {
        Map<String, Object> values = NamedStatement.values().set("node", nodeId).set("count", count)
                .set("default_cap", settings.defaultMaxRunning()).set("lease_seconds", leaseSeconds())
                .set("share", settings.share(slots))
                .set("window_seconds", (double) settings.contentionWindow().toSeconds())
                .set("changed_channel", JobNotifications.CHANGED).map();
        return run(c -> CLAIM.with(values).query(c, rs -> new ClaimedJob(rs.getObject("id", UUID.class),
                rs.getObject("tenant_id", UUID.class), rs.getInt("attempt"),
                JobRows.read(json, rs.getString("policy"), TenantPolicy.class),
                new Submission(new ExecutionRequest(rs.getString("language"), rs.getString("code"),
                        JobRows.read(json, rs.getString("packages"), JobRows.STRINGS),
                        JobRows.read(json, rs.getString("env"), JobRows.STRING_MAP), rs.getString("stdin"),
                        Optional.of(Duration.ofMillis(rs.getLong("timeout_ms"))), rs.getBoolean("network"),
                        Optional.ofNullable(rs.getString("limits"))
                                .map(text -> JobRows.read(json, text, RequestedLimits.class)).orElse(null),
                        JobRows.read(json, rs.getString("args"), JobRows.STRINGS)),
                        OutputEncoding.byId(rs.getString("encoding")).orElseThrow(), Map.of(),
                        Optional.ofNullable(rs.getString("host_workspace")).map(Path::of),
                        JobRows.hostMounts(json, rs.getString("host_mounts")), JobFiles.NONE,
                        Optional.ofNullable(rs.getObject("session_id", UUID.class)), Optional.empty(), Optional.empty()),
                rs.getBoolean("has_files"), Optional.ofNullable(rs.getString("required_nixpkgs_revision")))));
    }

    // ---------------------------------------------------------------- start

    /**
     * Records the environment and marks that user code is about to start: from here on a lost
     * worker means {@code worker_lost}, never a retry. False when the job is no longer this node's
     * run of that attempt (a run of an earlier attempt still alive after a reap and a new claim
     * here must not start the new one), or its cancel was requested.
     */
    @Transactional
    public boolean start(UUID id, int attempt, String nodeId, String storePath, String revision, boolean cacheHit,
            long buildMs) {
        String environment = JobRows.write(json, Map.of("store_path", storePath, "nixpkgs_revision", revision,
                "cache_hit", cacheHit, "build_ms", buildMs));
        Map<String, Object> values = NamedStatement.values().set("id", id).set("attempt", attempt).set("node", nodeId)
                .set("store_path", storePath).set("revision", revision).set("cache_hit", cacheHit)
                .set("build_ms", buildMs).set("environment", environment)
                .set("changed_channel", JobNotifications.CHANGED).map();
        return run(c -> START.with(values).single(c, rs -> rs.getLong("started"))) == 1;
    }

    // ---------------------------------------------------------------- finish

    /** Output of one stream, in the order it was printed. */
    public record Chunk(String stream, String text) {
        public Chunk {
            text = storable(text);
        }
    }

    /**
     * PostgreSQL text cannot hold U+0000, which output may have: it is kept as U+FFFD, as bytes
     * that are not UTF-8 are (the byte counts stay true).
     */
    static String storable(String text) {
        return text == null || text.indexOf('\0') < 0 ? text : text.replace('\0', '\uFFFD');
    }

    /** The exact bytes of a run's kept output (the same head, mark and tail as the text), for a base64 job. */
    public record ExactOutput(byte[] stdout, byte[] stderr) {
    }

    /**
     * The end of one run (attempt) of a job: its outcome, the output not yet stored for live
     * followers, and for a base64 job the kept output's exact bytes (null otherwise).
     */
    public record Finish(UUID id, int attempt, Outcome outcome, List<Chunk> output, ExactOutput exact) {
        public Finish {
            output = List.copyOf(output);
        }

        /** The end of a run whose output is kept as text only. */
        public Finish(UUID id, int attempt, Outcome outcome, List<Chunk> output) {
            this(id, attempt, outcome, output, null);
        }
    }

    /**
     * Stores the results of runs whose jobs are still this node's, in one statement
     * ({@link #FINISH}); returns the ids that were stored.
     */
    @Transactional
    public Set<UUID> finish(String nodeId, List<Finish> finishes) {
        Map<UUID, Finish> byId = new LinkedHashMap<>();
        finishes.forEach(f -> byId.put(f.id(), f));
        List<Map<String, Object>> endRows = new ArrayList<>();
        List<Map<String, Object>> output = new ArrayList<>();
        for (Finish f : byId.values()) {
            Outcome o = f.outcome();
            Map<String, Object> end = new HashMap<>();
            end.put("id", f.id());
            end.put("attempt", f.attempt());
            end.put("status", o.status().id());
            end.put("exit_code", o.exitCode());
            end.put("signal", o.signal());
            end.put("timed_out", o.timedOut());
            end.put("limit_hit", o.limitHit() == null ? null : o.limitHit().id());
            end.put("duration_ms", o.durationMs());
            end.put("stdout", o.stdout());
            end.put("stderr", o.stderr());
            end.put("stdout_bytes", o.stdoutBytes());
            end.put("stderr_bytes", o.stderrBytes());
            end.put("stdout_truncated", o.stdoutTruncated());
            end.put("stderr_truncated", o.stderrTruncated());
            end.put("error_code", o.errorCode());
            end.put("error_message", o.errorMessage());
            end.put("cpu_ms", o.usage() == null ? null : o.usage().cpuMs());
            end.put("max_rss_bytes", o.usage() == null ? null : o.usage().maxRssBytes());
            if (f.exact() != null) {
                end.put("stdout_exact", Base64.getEncoder().encodeToString(f.exact().stdout()));
                end.put("stderr_exact", Base64.getEncoder().encodeToString(f.exact().stderr()));
            }
            endRows.add(end);
            for (Chunk c : f.output()) {
                output.add(Map.of("id", f.id(), "n", output.size(), "kind", c.stream(), "data", c.text()));
            }
        }
        Map<String, Object> values = NamedStatement.values().set("ends", JobRows.write(json, endRows))
                .set("node", nodeId).set("output", JobRows.write(json, output))
                .set("changed_channel", JobNotifications.CHANGED).set("ended_channel", JobNotifications.ENDED).map();
        List<Job> done = run(c -> FINISH.with(values).query(c, JobRows::job));
        ends.ended(done);
        Set<UUID> stored = new LinkedHashSet<>();
        done.forEach(job -> stored.add(job.id));
        return stored;
    }

    // ---------------------------------------------------------------- cancel

    /**
     * Cancels the tenant's job {@code id} on behalf of key {@code keyId}: ends a queued job,
     * flags a building or running one. Empty when nothing changed (not the tenant's, already
     * terminal, or already flagged); else the job as it is now.
     */
    @Transactional(Transactional.TxType.MANDATORY)
    public Optional<Job> cancel(UUID tenantId, UUID id, UUID keyId) {
        Map<String, Object> values = NamedStatement.values().set("id", id).set("tenant", tenantId).set("key", keyId)
                .set("changed_channel", JobNotifications.CHANGED).set("ended_channel", JobNotifications.ENDED)
                .set("cancel_channel", JobNotifications.CANCEL).map();
        List<Job> changed = run(c -> CANCEL.with(values).query(c, JobRows::job));
        List<Job> ended = changed.stream().filter(j -> j.jobStatus().terminal()).toList();
        if (!ended.isEmpty()) {
            ends.ended(ended);
        }
        return changed.stream().findFirst();
    }

    // ---------------------------------------------------------------- give back

    /** A job node {@code nodeId} claimed but will not run (shutting down before its code started): queued again. */
    @Transactional
    public boolean giveBack(UUID id, String nodeId) {
        Map<String, Object> values = NamedStatement.values().set("id", id).set("node", nodeId)
                .set("submitted_channel", JobNotifications.SUBMITTED).set("changed_channel", JobNotifications.CHANGED)
                .map();
        return !run(c -> GIVE_BACK.with(values).query(c, rs -> rs.getObject("id", UUID.class))).isEmpty();
    }

    // ---------------------------------------------------------------- reap

    /** What one reap did: the jobs queued again and the jobs it ended. */
    public record Reaped(List<UUID> requeued, List<Job> ended) {
        public int count() {
            return requeued.size() + ended.size();
        }
    }

    /**
     * Takes back the jobs whose lease ran out, as {@link ExpiredLease#verdict} decides: two
     * statements, one that finds and locks them and one that applies every verdict.
     */
    @Transactional
    public Reaped reap() {
        List<ExpiredLease> expired = run(c -> EXPIRED.with(Map.of()).query(c, rs -> new ExpiredLease(
                rs.getObject("id", UUID.class), rs.getString("node_id"),
                JobStatus.byId(rs.getString("status")).orElseThrow(), rs.getInt("attempt"), rs.getInt("max_attempts"),
                rs.getBoolean("cancel_requested"))));
        if (expired.isEmpty()) {
            return new Reaped(List.of(), List.of());
        }
        List<Map<String, Object>> verdicts = new ArrayList<>();
        for (ExpiredLease lease : expired) {
            ExpiredLease.Verdict verdict = lease.verdict();
            Map<String, Object> row = new HashMap<>();
            row.put("id", lease.id());
            row.put("node", lease.nodeId());
            row.put("status", verdict.status().id());
            row.put("error_message", verdict.errorMessage());
            verdicts.add(row);
        }
        Map<String, Object> values = NamedStatement.values().set("verdicts", JobRows.write(json, verdicts))
                .set("changed_channel", JobNotifications.CHANGED).set("submitted_channel", JobNotifications.SUBMITTED)
                .set("ended_channel", JobNotifications.ENDED).map();
        List<Job> taken = run(c -> REAP.with(values).query(c, JobRows::job));
        List<UUID> requeued = taken.stream().filter(j -> j.jobStatus() == JobStatus.QUEUED).map(j -> j.id).toList();
        List<Job> ended = taken.stream().filter(j -> j.jobStatus().terminal()).toList();
        if (!ended.isEmpty()) {
            ends.ended(ended);
        }
        return new Reaped(requeued, ended);
    }

    private double leaseSeconds() {
        return (double) settings.lease().toSeconds();
    }

    @FunctionalInterface
    private interface Work<T> {
        T apply(Connection connection) throws SQLException;
    }

    /** On the current transaction's connection (closing the handle leaves it to the transaction). */
    private <T> T run(Work<T> work) {
        try (Connection connection = db.getConnection()) {
            return work.apply(connection);
        } catch (SQLException e) {
            throw new SqlFailure(e);
        }
    }

    /** A statement of a transition failed (a persistence failure, as Hibernate's would be). */
    public static final class SqlFailure extends jakarta.persistence.PersistenceException {
        SqlFailure(SQLException cause) {
            super(cause.getMessage(), cause);
        }
    }
}
