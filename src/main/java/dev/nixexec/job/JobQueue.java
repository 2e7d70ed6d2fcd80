package dev.nixexec.job;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.nixexec.audit.AuditLog;
import dev.nixexec.config.NixExecConfig;
import dev.nixexec.tenant.TenantPolicy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.transaction.Transactional;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.hibernate.jpa.HibernateHints;

/**
 * The worker's side of the queue: claim, mark started, stream output, finish, keep leases, and the
 * reaper that takes back jobs of nodes that stopped heartbeating. All of it is SQL on {@code jobs};
 * every state change is guarded by the expected status and owning node, so a job that was taken
 * back is never finished twice.
 */
@ApplicationScoped
public class JobQueue {

    /**
     * The claim rule, shared by {@link #CLAIM} and the local hand-off of {@code JobService.insert}
     * so the two cannot drift: CTEs {@code running} (each tenant's building and running jobs, all
     * and on this node) and {@code contending} (tenants with a job waiting that their running cap
     * lets run, or with a job submitted within the contention window). Formatted with the SQL of:
     * this node, the default running cap, the window in seconds.
     */
    static String fairShareCtes(String node, String defaultCap, String windowSeconds) {
        return """
                running AS (
                    SELECT tenant_id, count(*) AS n, count(*) FILTER (WHERE node_id = %1$s) AS here
                    FROM jobs WHERE status IN ('building', 'running') GROUP BY tenant_id
                ), contending AS (
                    SELECT t.id AS tenant_id FROM tenants t LEFT JOIN running r ON r.tenant_id = t.id
                    WHERE (EXISTS (SELECT 1 FROM jobs q WHERE q.tenant_id = t.id AND q.status = 'queued')
                           AND coalesce(r.n, 0) < coalesce((t.policy ->> 'max_running')::int, %2$s))
                       OR (%3$s > 0 AND EXISTS (SELECT 1 FROM jobs j WHERE j.tenant_id = t.id
                           AND j.created_at > now() - make_interval(secs => %3$s)))
                )""".formatted(node, defaultCap, windowSeconds);
    }

    /**
     * Whether tenant {@code t} (a tenants row; {@code r} its {@code running} row) may take a
     * {@code k}-th slot on this node: under its running cap, and, while another tenant contends,
     * within this node's share (its slots less the reserved ones). Formatted with the SQL of: k,
     * the default running cap, the node's share.
     */
    static String mayTake(String k, String defaultCap, String share) {
        return """
                (coalesce(r.n, 0) + %1$s <= coalesce((t.policy ->> 'max_running')::int, %2$s)
                 AND (coalesce(r.here, 0) + %1$s <= %3$s
                      OR NOT EXISTS (SELECT 1 FROM contending o WHERE o.tenant_id <> t.id)))""".formatted(k, defaultCap, share);
    }

    /**
     * Fairness: each tenant's oldest queued jobs are ranked 1, 2, 3… and a job's turn is its
     * tenant's running count plus its rank, so tenants with fewer running jobs go first and tenants
     * interleave; a tenant at its running cap, or at its share of this node while another tenant
     * contends ({@link #mayTake}), gets nothing. SKIP LOCKED lets many claimers run this
     * at once without ever taking the same row. The same statement appends each claimed job's
     * "building" event and "claimed" audit record, notifies its followers and lets the commit
     * return before the disk has it (see {@link #commitWithoutWaitingForDisk}), so a claim costs
     * one round trip and its commit. A queued job is claimable at once: its {@code run_after} comes
     * from the clock of the node that queued it, and comparing that with the database's would hold
     * jobs back by any skew between the two clocks. Parameters: ?1 node, ?2 how many, ?3 default
     * running cap, ?4 lease seconds, ?5 the node's share of its slots, ?6 contention window seconds.
     */
    public static final String CLAIM = """
            WITH %s, waiting AS (
                SELECT t.id AS tenant_id FROM tenants t
                WHERE EXISTS (SELECT 1 FROM jobs j WHERE j.tenant_id = t.id AND j.status = 'queued')
            ), candidates AS (
                SELECT q.id, q.created_at, w.tenant_id, row_number() OVER (PARTITION BY w.tenant_id ORDER BY q.created_at) AS k
                FROM waiting w
                CROSS JOIN LATERAL (
                    SELECT j.id, j.created_at FROM jobs j
                    WHERE j.tenant_id = w.tenant_id AND j.status = 'queued'
                    ORDER BY j.created_at LIMIT ?2
                ) q
            ), picked AS (
                SELECT c.id FROM candidates c
                JOIN tenants t ON t.id = c.tenant_id
                LEFT JOIN running r ON r.tenant_id = c.tenant_id
                WHERE %s
                ORDER BY coalesce(r.n, 0) + c.k, c.created_at
                LIMIT ?2
            ), claimed AS (
                UPDATE jobs SET status = 'building', node_id = ?1, attempt = attempt + 1,
                       lease_until = now() + make_interval(secs => ?4), claimed_at = now()
                WHERE id IN (SELECT id FROM jobs WHERE id IN (SELECT id FROM picked) AND status = 'queued'
                             FOR UPDATE SKIP LOCKED)
                RETURNING id, tenant_id, attempt, language, code, packages::text AS packages, env::text AS env, stdin,
                          timeout_ms, network, (SELECT t.policy::text FROM tenants t WHERE t.id = jobs.tenant_id) AS policy,
                          host_workspace, EXISTS (SELECT 1 FROM job_files f WHERE f.job_id = jobs.id) AS has_files
            ), events AS (
                INSERT INTO job_events (job_id, seq, kind, data)
                SELECT c.id, coalesce((SELECT max(e.seq) FROM job_events e WHERE e.job_id = c.id), 0) + 1, 'status', 'building'
                FROM claimed c
            ), audited AS (
                INSERT INTO audit_events (tenant_id, job_id, node_id, kind, detail, at)
                SELECT c.tenant_id, c.id, ?1, 'claimed', jsonb_build_object('attempt', c.attempt), now() FROM claimed c
            ), unhurried AS (
                SELECT set_config('synchronous_commit', 'off', true)
            )
            SELECT c.id, c.tenant_id, c.attempt, c.language, c.code, c.packages, c.env, c.stdin, c.timeout_ms, c.network,
                   c.policy, c.host_workspace, c.has_files, pg_notify('%s', c.id::text)
            FROM claimed c, unhurried
            """.formatted(fairShareCtes("?1", "?3", "?6"), mayTake("c.k", "?3", "?5"), JobNotifications.CHANGED);

    /**
     * The ends of runs, one statement for any number (its text never changes, so PostgreSQL plans
     * it once per connection): ?1 the ends as a JSON array, ?2 the node, ?3 the output not yet
     * stored as a JSON array. Only jobs still this node's (same attempt, not ended) are updated;
     * their audit, remaining output, status and result events (the result filled in when read)
     * and notifications go with them. A job whose cancel was requested ends {@code cancelled}
     * unless it succeeded.
     */
    private static final String FINISH = """
            WITH ends AS (
                SELECT * FROM json_to_recordset(CAST(?1 AS json)) AS v(id uuid, attempt integer, status text,
                    exit_code integer, signal integer, timed_out boolean, limit_hit text, duration_ms bigint, stdout text,
                    stderr text, stdout_bytes bigint, stderr_bytes bigint, stdout_truncated boolean,
                    stderr_truncated boolean, error_code text, error_message text)
            ), done AS (
                UPDATE jobs j SET status = CASE WHEN j.cancel_requested AND v.status <> 'succeeded' THEN 'cancelled'
                       ELSE v.status END, finished_at = now(), lease_until = NULL, exit_code = v.exit_code,
                       signal = v.signal, timed_out = v.timed_out, limit_hit = v.limit_hit, duration_ms = v.duration_ms,
                       stdout = v.stdout, stderr = v.stderr, stdout_bytes = v.stdout_bytes, stderr_bytes = v.stderr_bytes,
                       stdout_truncated = v.stdout_truncated, stderr_truncated = v.stderr_truncated,
                       error_code = v.error_code, error_message = v.error_message
                FROM ends v
                WHERE j.id = v.id AND j.attempt = v.attempt AND j.node_id = ?2 AND j.status IN ('building', 'running')
                RETURNING j.*
            ), audited AS (
                INSERT INTO audit_events (tenant_id, job_id, key_id, node_id, kind, detail, at)
                SELECT d.tenant_id, d.id, CASE WHEN d.status = 'cancelled' THEN d.cancelled_by END, ?2,
                       CASE WHEN d.status = 'cancelled' THEN 'cancelled' ELSE 'finished' END,
                       jsonb_strip_nulls(jsonb_build_object('status', d.status, 'exit_code', d.exit_code,
                                                            'error_code', d.error_code)), now()
                FROM done d
            ), output AS (
                SELECT o.id, o.n, o.kind, o.data
                FROM json_to_recordset(CAST(?3 AS json)) AS o(id uuid, n integer, kind text, data text)
            ), fresh AS (
                SELECT d.id, o.n, o.kind, o.data FROM done d JOIN output o ON o.id = d.id
                UNION ALL SELECT d.id, 2147483646, 'status', d.status FROM done d
                UNION ALL SELECT d.id, 2147483647, 'result', '' FROM done d
            ), events AS (
                INSERT INTO job_events (job_id, seq, kind, data)
                SELECT f.id, coalesce((SELECT max(e.seq) FROM job_events e WHERE e.job_id = f.id), 0)
                       + row_number() OVER (PARTITION BY f.id ORDER BY f.n), f.kind, f.data
                FROM fresh f
            )
            SELECT d.* FROM done d CROSS JOIN LATERAL (SELECT pg_notify('%s', d.id::text), pg_notify('%s', d.id::text)) n
            """.formatted(JobNotifications.CHANGED, JobNotifications.ENDED);

    private final NixExecConfig config;
    private final EntityManager em;
    private final AuditLog audit;
    private final JobService jobs;
    private final ObjectMapper json;
    @Inject
    JobMetrics metrics;
    @Inject
    JobNotifications notifications;

    public JobQueue(NixExecConfig config, EntityManager em, AuditLog audit, JobService jobs, ObjectMapper json) {
        this.config = config;
        this.em = em;
        this.audit = audit;
        this.jobs = jobs;
        this.json = json;
    }

    /** Claims up to {@code count} jobs for this node, with their events, audit and notifications. */
    @Transactional
    public List<ClaimedJob> claim(String nodeId, int count) {
        return claim(nodeId, count, config.node().concurrency());
    }

    /** As {@link #claim(String, int)} for a node with {@code slots} slots (a test's or benchmark's claimer). */
    @Transactional
    public List<ClaimedJob> claim(String nodeId, int count, int slots) {
        @SuppressWarnings("unchecked")
        List<Object[]> rows = em.createNativeQuery(CLAIM)
                .setParameter(1, nodeId).setParameter(2, count)
                .setParameter(3, config.jobs().maxRunningPerTenant())
                .setParameter(4, (double) config.jobs().lease().toSeconds())
                .setParameter(5, share(config.limits(), slots))
                .setParameter(6, (double) config.limits().contentionWindow().toSeconds())
                .getResultList();
        if (rows.isEmpty()) {
            return List.of();
        }
        List<ClaimedJob> claimed = new ArrayList<>();
        for (Object[] r : rows) {
            ClaimedJob job = new ClaimedJob((UUID) r[0], (UUID) r[1], ((Number) r[2]).intValue(), (String) r[3],
                    (String) r[4], read((String) r[5], new TypeReference<List<String>>() { }),
                    read((String) r[6], new TypeReference<Map<String, String>>() { }), (String) r[7],
                    Duration.ofMillis(((Number) r[8]).longValue()), (Boolean) r[9],
                    read((String) r[10], new TypeReference<TenantPolicy>() { }),
                    Optional.ofNullable((String) r[11]).map(Path::of), (Boolean) r[12]);
            claimed.add(job);
        }
        return claimed;
    }

    /**
     * Records the environment and marks that user code is about to start, in one transaction: from
     * here on a lost worker means {@code worker_lost}, never a retry. False when the job is no
     * longer this node's, or its cancel was requested.
     */
    @Transactional
    public boolean started(ClaimedJob job, String nodeId, String storePath, String revision, boolean cacheHit,
            long buildMs) {
        String environment = jobs.write(Map.of("store_path", storePath, "nixpkgs_revision", revision,
                "cache_hit", cacheHit, "build_ms", buildMs));
        // One statement: the update, the "running" event, both audit records and the notification.
        Number started = (Number) em.createNativeQuery("""
                        WITH s AS (
                            UPDATE jobs SET status = 'running', started_at = now(), store_path = ?3, nixpkgs_revision = ?4,
                                   cache_hit = ?5, build_ms = ?6
                            WHERE id = ?1 AND node_id = ?2 AND status = 'building' AND NOT cancel_requested
                            RETURNING id, tenant_id
                        ), events AS (
                            INSERT INTO job_events (job_id, seq, kind, data)
                            SELECT s.id, coalesce((SELECT max(e.seq) FROM job_events e WHERE e.job_id = s.id), 0) + 1,
                                   'status', 'running'
                            FROM s
                        ), audited AS (
                            INSERT INTO audit_events (tenant_id, job_id, node_id, kind, detail, at)
                            SELECT s.tenant_id, s.id, ?2, v.kind, CAST(v.detail AS jsonb), now()
                            FROM s, (VALUES (1, 'environment', CAST(?7 AS text)), (2, 'started', '{}')) AS v(n, kind, detail)
                            ORDER BY v.n
                        )
                        SELECT count(pg_notify('%s', s.id::text)) FROM s
                        """.formatted(JobNotifications.CHANGED))
                .setParameter(1, job.id()).setParameter(2, nodeId).setParameter(3, storePath).setParameter(4, revision)
                .setParameter(5, cacheHit).setParameter(6, buildMs).setParameter(7, environment).getSingleResult();
        return started.intValue() == 1;
    }

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

    /** Appends output for live followers: several chunks, one transaction, one notification. */
    @Transactional
    public void output(UUID id, List<Chunk> chunks) {
        commitWithoutWaitingForDisk();
        for (Chunk chunk : chunks) {
            JobEvents.append(em, id, chunk.stream(), chunk.text());
        }
        JobNotifications.notify(em, JobNotifications.CHANGED, id.toString());
    }

    /** How a run ended, in the job's terms. */
    public record Outcome(String status, Integer exitCode, Integer signal, boolean timedOut, String limitHit,
            Long durationMs, String stdout, String stderr, long stdoutBytes, long stderrBytes, boolean stdoutTruncated,
            boolean stderrTruncated, String errorCode, String errorMessage) {
        public Outcome {
            stdout = storable(stdout);
            stderr = storable(stderr);
            errorMessage = storable(errorMessage);
        }

        /** Whether the job's code ran to an end of its own (not stopped, never started, or refused). */
        public boolean codeRanToAnEnd() {
            return status.equals("succeeded") || status.equals("failed") || status.equals("timed_out");
        }

        /** The same run, ended as an {@code error} of the platform's after the code ran (its output kept). */
        public Outcome asError(String code, String message) {
            return new Outcome("error", exitCode, signal, timedOut, limitHit, durationMs, stdout, stderr, stdoutBytes,
                    stderrBytes, stdoutTruncated, stderrTruncated, code, message);
        }
    }

    /** The end of one run (attempt) of a job: its outcome and the output not yet stored for live followers. */
    public record Finish(UUID id, int attempt, Outcome outcome, List<Chunk> output) {
        public Finish {
            output = List.copyOf(output);
        }
    }

    /**
     * Stores the results of jobs that are still this node's, in one statement ({@link #FINISH});
     * returns the ids that were stored.
     */
    @Transactional
    public Set<UUID> finishAll(String nodeId, List<Finish> finishes) {
        Map<UUID, Finish> byId = new LinkedHashMap<>();
        finishes.forEach(f -> byId.put(f.id(), f));
        List<Map<String, Object>> ends = new ArrayList<>();
        List<Map<String, Object>> output = new ArrayList<>();
        for (Finish f : byId.values()) {
            Outcome o = f.outcome();
            Map<String, Object> end = new java.util.HashMap<>();
            end.put("id", f.id());
            end.put("attempt", f.attempt());
            end.put("status", o.status());
            end.put("exit_code", o.exitCode());
            end.put("signal", o.signal());
            end.put("timed_out", o.timedOut());
            end.put("limit_hit", o.limitHit());
            end.put("duration_ms", o.durationMs());
            end.put("stdout", o.stdout());
            end.put("stderr", o.stderr());
            end.put("stdout_bytes", o.stdoutBytes());
            end.put("stderr_bytes", o.stderrBytes());
            end.put("stdout_truncated", o.stdoutTruncated());
            end.put("stderr_truncated", o.stderrTruncated());
            end.put("error_code", o.errorCode());
            end.put("error_message", o.errorMessage());
            ends.add(end);
            for (Chunk c : f.output()) {
                output.add(Map.of("id", f.id(), "n", output.size(), "kind", c.stream(), "data", c.text()));
            }
        }
        // read-only: the rows are only turned into views, so Hibernate keeps no snapshots to compare at commit
        @SuppressWarnings("unchecked")
        List<Job> rows = em.createNativeQuery(FINISH, Job.class).setHint(HibernateHints.HINT_READ_ONLY, true)
                .setParameter(1, jobs.write(ends)).setParameter(2, nodeId).setParameter(3, jobs.write(output))
                .getResultList();
        Set<UUID> stored = new LinkedHashSet<>();
        List<JobView> views = new ArrayList<>();
        for (Job job : rows) {
            views.add(jobs.view(job));
            stored.add(job.id);
            metrics.ended(job);
        }
        notifications.handOverOnCommit(views);
        return stored;
    }

    /**
     * The slots of a node one tenant may hold while another tenant contends: all but the reserved
     * ones, and at least one.
     */
    static int share(NixExecConfig.Limits limits, int slots) {
        return Math.max(1, slots - Math.max(0, limits.reservedSlots()));
    }

    /** Extends the leases of this node's jobs; returns the ids whose cancel was requested. */
    @Transactional
    public List<UUID> heartbeat(String nodeId, String role, int concurrency, Set<UUID> running) {
        commitWithoutWaitingForDisk();
        em.createNativeQuery("INSERT INTO nodes (id, role, concurrency, running) VALUES (?1, ?2, ?3, ?4) "
                        + "ON CONFLICT (id) DO UPDATE SET role = ?2, concurrency = ?3, running = ?4, heartbeat_at = now()")
                .setParameter(1, nodeId).setParameter(2, role).setParameter(3, concurrency).setParameter(4, running.size())
                .executeUpdate();
        if (running.isEmpty()) {
            return List.of();
        }
        // Only the runs this node still has: a job whose end could not be stored is left to expire,
        // so the reaper ends it instead of its lease being renewed for ever.
        @SuppressWarnings("unchecked")
        List<UUID> cancels = em.createNativeQuery("UPDATE jobs SET lease_until = now() + make_interval(secs => :lease) "
                        + "WHERE id IN (:ids) AND node_id = :node AND status IN ('building', 'running') "
                        + "RETURNING CASE WHEN cancel_requested THEN id END", UUID.class)
                .setParameter("lease", (double) config.jobs().lease().toSeconds()).setParameter("ids", running)
                .setParameter("node", nodeId).getResultList();
        return cancels.stream().filter(java.util.Objects::nonNull).toList();
    }

    /** The database's clock: leases are judged by it. */
    @Transactional
    public Instant databaseNow() {
        long micros = ((Number) em.createNativeQuery("SELECT CAST(extract(epoch FROM clock_timestamp()) * 1000000 AS bigint)")
                .getSingleResult()).longValue();
        return Instant.EPOCH.plus(micros, ChronoUnit.MICROS);
    }

    /** A job this node claimed but will not run (shutting down before its code started): queued again. */
    @Transactional
    public boolean giveBack(UUID id, String nodeId) {
        int updated = em.createNativeQuery("UPDATE jobs SET status = 'queued', node_id = NULL, lease_until = NULL, "
                        + "attempt = attempt - 1, run_after = now() WHERE id = ?1 AND node_id = ?2 AND status = 'building'")
                .setParameter(1, id).setParameter(2, nodeId).executeUpdate();
        if (updated == 1) {
            JobEvents.append(em, id, "status", "queued");
            Job job = Job.findById(id);
            audit.record("requeued", job.tenantId, id, null, nodeId, Map.of("reason", "node shutting down"));
            JobNotifications.notify(em, JobNotifications.SUBMITTED, "");
            JobNotifications.notify(em, JobNotifications.CHANGED, id.toString());
        }
        return updated == 1;
    }

    /** A worker node as {@code GET /v1/nodes} shows it. */
    public record NodeView(String id, String role, int concurrency, int running, OffsetDateTime startedAt,
            OffsetDateTime heartbeatAt) {
    }

    @Transactional
    public List<NodeView> nodes() {
        @SuppressWarnings("unchecked")
        List<Object[]> rows = em.createNativeQuery("SELECT id, role, concurrency, running, started_at, heartbeat_at "
                + "FROM nodes ORDER BY id").getResultList();
        return rows.stream().map(r -> new NodeView((String) r[0], (String) r[1], ((Number) r[2]).intValue(),
                ((Number) r[3]).intValue(), toOffset(r[4]), toOffset(r[5]))).toList();
    }

    private static OffsetDateTime toOffset(Object value) {
        return switch (value) {
            case OffsetDateTime odt -> odt;
            case java.time.Instant instant -> instant.atOffset(ZoneOffset.UTC);
            case java.sql.Timestamp ts -> ts.toInstant().atOffset(ZoneOffset.UTC);
            default -> OffsetDateTime.parse(value.toString());
        };
    }

    @Transactional
    public void leave(String nodeId) {
        em.createNativeQuery("DELETE FROM nodes WHERE id = ?1").setParameter(1, nodeId).executeUpdate();
    }

    /**
     * Takes back jobs whose lease ran out: one whose user code never started is queued again (until
     * its attempts are used up); one that had started ends as {@code error}/{@code worker_lost},
     * so user code runs at most once. A cancel that was requested wins.
     */
    @Transactional
    public int reap() {
        @SuppressWarnings("unchecked")
        List<Job> expired = em.createNativeQuery("SELECT * FROM jobs WHERE status IN ('building', 'running') "
                + "AND lease_until < now() FOR UPDATE SKIP LOCKED", Job.class).getResultList();
        for (Job job : expired) {
            String lostNode = job.nodeId;
            if (job.cancelRequested) {
                job.status = JobStatus.CANCELLED.id();
                job.finishedAt = storedNow();
                end(job, lostNode, job.cancelledBy);
            } else if (job.jobStatus() == JobStatus.BUILDING && job.attempt < job.maxAttempts) {
                job.status = JobStatus.QUEUED.id();
                job.nodeId = null;
                job.leaseUntil = null;
                job.runAfter = OffsetDateTime.now(ZoneOffset.UTC);
                JobEvents.append(em, job.id, "status", "queued");
                audit.record("requeued", job.tenantId, job.id, null, lostNode, Map.of("attempt", job.attempt));
                JobNotifications.notify(em, JobNotifications.SUBMITTED, "");
                JobNotifications.notify(em, JobNotifications.CHANGED, job.id.toString());
            } else {
                boolean codeStarted = job.jobStatus() == JobStatus.RUNNING;
                job.status = JobStatus.ERROR.id();
                job.finishedAt = storedNow();
                job.errorCode = "worker_lost";
                job.errorMessage = codeStarted
                        ? "the node running the job stopped responding; the job is not retried because its code had started"
                        : "the job's node stopped responding " + job.attempt + " times before its code started";
                end(job, lostNode, null);
            }
        }
        em.createNativeQuery("DELETE FROM nodes WHERE heartbeat_at < now() - make_interval(secs => ?1)")
                .setParameter(1, (double) config.jobs().lease().toSeconds() * 4).executeUpdate();
        return expired.size();
    }

    /** Deletes finished jobs (with their events) and audit records older than the retention. */
    @Transactional
    public int expire(Duration retention) {
        double seconds = retention.toSeconds();
        int jobsDeleted = em.createNativeQuery("DELETE FROM jobs WHERE finished_at < now() - make_interval(secs => ?1)")
                .setParameter(1, seconds).executeUpdate();
        em.createNativeQuery("DELETE FROM audit_events WHERE at < now() - make_interval(secs => ?1)")
                .setParameter(1, seconds).executeUpdate();
        return jobsDeleted;
    }

    private void end(Job job, String nodeId, UUID cancelledBy) {
        job.leaseUntil = null;
        JobView view = jobs.view(job);
        JobEvents.appendFinal(em, job.id, job.status);
        audit.record(job.status.equals("cancelled") ? "cancelled" : "finished", job.tenantId, job.id, cancelledBy, nodeId,
                endDetail(job));
        notifications.ended(em, List.of(view));
        metrics.ended(job);
    }

    /**
     * This transaction's commit returns before its WAL reaches the disk (a crash of PostgreSQL
     * may lose the last fraction of a second of such commits). Only for writes whose loss is
     * harmless: a lost claim puts the job back in the queue, and nothing runs before the
     * synchronous commit of {@link #started} (which also makes every earlier commit durable);
     * live output and heartbeats are rewritten anyway. Submissions, starts and results wait for
     * the disk.
     */
    private void commitWithoutWaitingForDisk() {
        em.createNativeQuery("SET LOCAL synchronous_commit = off").executeUpdate();
    }

    /** Now, as PostgreSQL keeps it (microseconds), so a view handed over equals a later read. */
    static OffsetDateTime storedNow() {
        return OffsetDateTime.now(ZoneOffset.UTC).truncatedTo(ChronoUnit.MICROS);
    }

    private static Map<String, Object> endDetail(Job job) {
        Map<String, Object> detail = new java.util.HashMap<>();
        detail.put("status", job.status);
        if (job.exitCode != null) {
            detail.put("exit_code", job.exitCode);
        }
        if (job.errorCode != null) {
            detail.put("error_code", job.errorCode);
        }
        return detail;
    }

    private <T> T read(String text, TypeReference<T> type) {
        try {
            return json.readValue(text, type);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
