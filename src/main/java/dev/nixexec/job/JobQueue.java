package dev.nixexec.job;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.nixexec.config.NixExecConfig;
import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import javax.sql.DataSource;

/**
 * A node's bookkeeping around the queue: its heartbeat (which keeps its jobs' leases and picks up
 * cancels), live output, the fleet's node list, and retention. The status changes of jobs are
 * {@link JobTransitions}'.
 *
 * <p>Live output and heartbeats, like claims, commit without waiting for the disk (a crash of
 * PostgreSQL may lose the last fraction of a second of them): a lost claim puts the job back in
 * the queue, nothing runs before the synchronous commit of {@link JobTransitions#start} (which
 * also makes every earlier commit durable), and output and heartbeats are rewritten anyway.
 * Submissions, starts and results wait for the disk.
 */
@ApplicationScoped
public class JobQueue {

    private static final NamedStatement APPEND_OUTPUT = QueueSql.STATEMENTS.get("AppendOutput");
    private static final NamedStatement HEARTBEAT = QueueSql.STATEMENTS.get("Heartbeat");
    private static final NamedStatement EXTEND_LEASES = QueueSql.STATEMENTS.get("ExtendLeases");
    private static final NamedStatement DATABASE_NOW = QueueSql.STATEMENTS.get("DatabaseNow");
    private static final NamedStatement NODES = QueueSql.STATEMENTS.get("Nodes");
    private static final NamedStatement LEAVE_FLEET = QueueSql.STATEMENTS.get("LeaveFleet");
    private static final NamedStatement FORGET_SILENT_NODES = QueueSql.STATEMENTS.get("ForgetSilentNodes");
    private static final NamedStatement EXPIRE_JOBS = QueueSql.STATEMENTS.get("ExpireJobs");
    private static final NamedStatement EXPIRE_AUDIT_RECORDS = QueueSql.STATEMENTS.get("ExpireAuditRecords");
    private static final NamedStatement EXPIRE_SHELL_RECORDINGS = QueueSql.STATEMENTS.get("ExpireShellRecordings");

    private final NixExecConfig config;
    private final DataSource db;
    private final ObjectMapper json;

    public JobQueue(NixExecConfig config, AgroalDataSource db, ObjectMapper json) {
        this.config = config;
        this.db = db;
        this.json = json;
    }

    /**
     * Appends output for live followers: several chunks, one statement, one notification; only
     * while the job is this node's run of that attempt ({@code AppendOutput} in jobs.sql).
     */
    @Transactional
    public void output(UUID id, String nodeId, int attempt, List<JobTransitions.Chunk> chunks) {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (JobTransitions.Chunk chunk : chunks) {
            rows.add(Map.of("n", rows.size() + 1, "kind", chunk.stream(), "data", chunk.text()));
        }
        Map<String, Object> values = Map.of("id", id, "node", nodeId, "attempt", attempt,
                "chunks", JobRows.write(json, rows), "changed_channel", JobNotifications.CHANGED);
        QueueSql.run(db, c -> APPEND_OUTPUT.with(values).single(c, rs -> rs.getLong("appended")));
    }

    /** Extends the leases of this node's jobs; returns the ids whose cancel was requested. */
    @Transactional
    public List<UUID> heartbeat(String nodeId, String role, int concurrency, Set<UUID> running) {
        Map<String, Object> node = Map.of("node", nodeId, "role", role, "concurrency", concurrency,
                "running", running.size());
        QueueSql.run(db, c -> HEARTBEAT.with(node).single(c, rs -> rs.getString("setting")));
        if (running.isEmpty()) {
            return List.of();
        }
        String ids = running.stream().map(UUID::toString).collect(Collectors.joining(",", "{", "}"));
        Map<String, Object> leases = Map.of("ids", ids, "node", nodeId,
                "lease_seconds", (double) config.jobs().lease().toSeconds());
        return QueueSql.run(db, c -> EXTEND_LEASES.with(leases).query(c, rs -> rs.getObject("cancel", UUID.class)))
                .stream().filter(Objects::nonNull).toList();
    }

    /** The database's clock: leases are judged by it. */
    @Transactional
    public Instant databaseNow() {
        long micros = QueueSql.run(db, c -> DATABASE_NOW.with(Map.of()).single(c, rs -> rs.getLong("micros")));
        return Instant.EPOCH.plus(micros, ChronoUnit.MICROS);
    }

    /** A worker node as {@code GET /v1/nodes} shows it. */
    public record NodeView(String id, String role, int concurrency, int running, OffsetDateTime startedAt,
            OffsetDateTime heartbeatAt) {
    }

    @Transactional
    public List<NodeView> nodes() {
        return QueueSql.run(db, c -> NODES.with(Map.of()).query(c, rs -> new NodeView(rs.getString("id"),
                rs.getString("role"), rs.getInt("concurrency"), rs.getInt("running"),
                rs.getObject("started_at", OffsetDateTime.class), rs.getObject("heartbeat_at", OffsetDateTime.class))));
    }

    @Transactional
    public void leave(String nodeId) {
        QueueSql.run(db, c -> LEAVE_FLEET.with(Map.of("node", nodeId)).update(c));
    }

    /** Forgets nodes silent for four leases: the fleet list shows live nodes (their jobs are the reaper's). */
    @Transactional
    public void forgetSilentNodes() {
        double silent = (double) config.jobs().lease().toSeconds() * 4;
        QueueSql.run(db, c -> FORGET_SILENT_NODES.with(Map.of("silent_seconds", silent)).update(c));
    }

    /** Deletes finished jobs (with their events), audit records and shell recordings older than the retention. */
    @Transactional
    public int expire(Duration retention) {
        Map<String, Object> values = Map.of("retention_seconds", (double) retention.toSeconds());
        return QueueSql.run(db, c -> {
            int jobsDeleted = EXPIRE_JOBS.with(values).update(c);
            EXPIRE_AUDIT_RECORDS.with(values).update(c);
            EXPIRE_SHELL_RECORDINGS.with(values).update(c);
            return jobsDeleted;
        });
    }
}
