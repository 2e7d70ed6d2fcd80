package dev.nixexec.job;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.nixexec.config.NixExecConfig;
import dev.nixexec.database.JsonColumns;
import dev.nixexec.database.NamedStatement;
import dev.nixexec.database.SqlFile;
import dev.nixexec.tenant.TenantPolicy;
import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
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
 * in and out of each state. The statements are jobs.sql's, run through {@link QueueSql}.
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

    static final NamedStatement INSERT = QueueSql.statement("Insert").plannedOnce();
    static final NamedStatement INSERT_QUEUED = QueueSql.statement("InsertQueued").plannedOnce();
    static final NamedStatement CLAIM = QueueSql.statement("Claim").plannedOnce().withPlainIndexScans();
    static final NamedStatement FINISH = QueueSql.statement("Finish").withPlainIndexScans();

    private final Settings settings;
    private final DataSource db;
    private final ObjectMapper json;
    private final Ends ends;

    @Inject
    public JobTransitions(NixExecConfig config, AgroalDataSource db, ObjectMapper json, JobMetrics metrics,
            JobNotifications notifications) {
        this(Settings.of(config), db, json, jobs -> {
            jobs.forEach(metrics::ended);
            notifications.handOverOnCommit(jobs.stream().map(j -> JobView.of(j, json)).toList());
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
        Submission request = job.request();
        Map<String, Object> values = NamedStatement.values().set("id", job.id()).set("tenant", job.tenantId())
                .set("key", job.keyId()).set("key_name", job.keyName()).set("key_role", job.keyRole())
                .set("request", JsonColumns.write(json, request)).set("metadata", JsonColumns.write(json, request.metadata()))
                .set("idempotency_key", job.idempotencyKey()).set("request_hash", job.requestHash())
                .set("max_attempts", job.maxAttempts()).set("created_at", TIMESTAMP.format(job.createdAt()))
                .set("max_queued", maxQueued)
                .set("submitted", submitted).set("node", handOffNode.orElse(null))
                .set("session", request.session().orElse(null))
                .set("rerun_of", request.rerunOf().map(Submission.RerunOf::job).orElse(null))
                .set("required_revision", request.rerunOf().flatMap(Submission.RerunOf::nixpkgsRevision).orElse(null))
                .set("share", settings.share(settings.slots())).set("lease_seconds", leaseSeconds())
                .set("default_cap", settings.defaultMaxRunning())
                .set("window_seconds", (double) settings.contentionWindow().toSeconds())
                .set("submitted_channel", JobNotifications.SUBMITTED).map();
        NamedStatement statement = handOffNode.isPresent() ? INSERT : INSERT_QUEUED;
        return SqlFile.run(db, c -> statement.with(values).single(c, rs -> new Inserted(rs.getLong("queued"), rs.getLong("stored") == 1,
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
        return SqlFile.run(db, c -> CLAIM.with(values).query(c, rs -> new ClaimedJob(rs.getObject("id", UUID.class),
                rs.getObject("tenant_id", UUID.class), rs.getInt("attempt"),
                JobRows.read(json, rs.getString("policy"), TenantPolicy.class),
                JobRows.request(json, rs.getString("request"), Map.of(), rs.getObject("session_id", UUID.class),
                        null, null),
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
        String environment = JsonColumns.write(json, Map.of("store_path", storePath, "nixpkgs_revision", revision,
                "cache_hit", cacheHit, "build_ms", buildMs));
        Map<String, Object> values = NamedStatement.values().set("id", id).set("attempt", attempt).set("node", nodeId)
                .set("store_path", storePath).set("revision", revision).set("cache_hit", cacheHit)
                .set("build_ms", buildMs).set("environment", environment)
                .set("changed_channel", JobNotifications.CHANGED).map();
        return QueueSql.single(db, "Start", values, rs -> rs.getLong("started")) == 1;
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
        Map<String, Object> values = NamedStatement.values().set("ends", JsonColumns.write(json, endRows))
                .set("node", nodeId).set("output", JsonColumns.write(json, output))
                .set("changed_channel", JobNotifications.CHANGED).set("ended_channel", JobNotifications.ENDED).map();
        List<Job> done = SqlFile.run(db, c -> FINISH.with(values).query(c, rs -> JobRows.job(rs, json)));
        ends.ended(done);
        Set<UUID> stored = new LinkedHashSet<>();
        done.forEach(job -> stored.add(job.id()));
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
        List<Job> changed = QueueSql.query(db, "Cancel", values, rs -> JobRows.job(rs, json));
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
        return !QueueSql.query(db, "GiveBack", values, rs -> rs.getObject("id", UUID.class)).isEmpty();
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
        List<ExpiredLease> expired = QueueSql.query(db, "Expired", Map.of(), rs -> new ExpiredLease(
                rs.getObject("id", UUID.class), rs.getString("node_id"),
                JobStatus.byId(rs.getString("status")).orElseThrow(), rs.getInt("attempt"), rs.getInt("max_attempts"),
                rs.getBoolean("cancel_requested")));
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
        Map<String, Object> values = NamedStatement.values().set("verdicts", JsonColumns.write(json, verdicts))
                .set("changed_channel", JobNotifications.CHANGED).set("submitted_channel", JobNotifications.SUBMITTED)
                .set("ended_channel", JobNotifications.ENDED).map();
        List<Job> taken = QueueSql.query(db, "Reap", values, rs -> JobRows.job(rs, json));
        List<UUID> requeued = taken.stream().filter(j -> j.jobStatus() == JobStatus.QUEUED).map(Job::id).toList();
        List<Job> ended = taken.stream().filter(j -> j.jobStatus().terminal()).toList();
        if (!ended.isEmpty()) {
            ends.ended(ended);
        }
        return new Reaped(requeued, ended);
    }

    private double leaseSeconds() {
        return (double) settings.lease().toSeconds();
    }

    /** The end of a job's life: finished jobs (their events with them) older than the retention are deleted. */
    @Transactional
    public int expire(Duration retention) {
        return QueueSql.update(db, "ExpireJobs", Map.of("retention_seconds", (double) retention.toSeconds()));
    }
}
