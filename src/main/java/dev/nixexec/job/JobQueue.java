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
 * Live output and heartbeats, like claims, commit without waiting for the disk: nothing runs before
 * {@link JobTransitions#start}'s synchronous commit, and output and heartbeats are rewritten anyway.
 */
@ApplicationScoped
public class JobQueue {

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
        QueueSql.single(db, "AppendOutput", values, rs -> rs.getLong("appended"));
    }

    /** Extends the leases of this node's jobs; returns the ids whose cancel was requested. */
    @Transactional
    public List<UUID> heartbeat(String nodeId, String role, int concurrency, Set<UUID> running) {
        Map<String, Object> values = Map.of("node", nodeId, "role", role, "concurrency", concurrency,
                "running", running.size(), "lease_seconds", (double) config.jobs().lease().toSeconds(),
                "ids", running.stream().map(UUID::toString).collect(Collectors.joining(",", "{", "}")));
        return QueueSql.query(db, "Heartbeat", values, rs -> rs.getObject("cancel", UUID.class)).stream()
                .filter(Objects::nonNull).toList();
    }

    /** The database's clock: leases are judged by it. */
    @Transactional
    public Instant databaseNow() {
        long micros = QueueSql.single(db, "DatabaseNow", Map.of(), rs -> rs.getLong("micros"));
        return Instant.EPOCH.plus(micros, ChronoUnit.MICROS);
    }

    /** A worker node as {@code GET /v1/nodes} shows it. */
    public record NodeView(String id, String role, int concurrency, int running, OffsetDateTime startedAt,
            OffsetDateTime heartbeatAt) {
    }

    @Transactional
    public List<NodeView> nodes() {
        return QueueSql.query(db, "Nodes", Map.of(), rs -> new NodeView(rs.getString("id"), rs.getString("role"),
                rs.getInt("concurrency"), rs.getInt("running"), rs.getObject("started_at", OffsetDateTime.class),
                rs.getObject("heartbeat_at", OffsetDateTime.class)));
    }

    @Transactional
    public void leave(String nodeId) {
        QueueSql.update(db, "LeaveFleet", Map.of("node", nodeId));
    }

    /** Forgets nodes silent for four leases: the fleet list shows live nodes (their jobs are the reaper's). */
    @Transactional
    public void forgetSilentNodes() {
        QueueSql.update(db, "ForgetSilentNodes", Map.of("silent_seconds", (double) config.jobs().lease().toSeconds() * 4));
    }

    /** Deletes finished jobs (with their events), audit records and shell recordings older than the retention. */
    @Transactional
    public int expire(Duration retention) {
        Map<String, Object> values = Map.of("retention_seconds", (double) retention.toSeconds());
        int jobsDeleted = QueueSql.update(db, "ExpireJobs", values);
        QueueSql.update(db, "ExpireAuditRecords", values);
        QueueSql.update(db, "ExpireShellRecordings", values);
        return jobsDeleted;
    }
}
