package dev.nixexec.job;

import dev.nixexec.config.NixExecConfig;
import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import javax.sql.DataSource;

/**
 * The fleet's nodes in {@code nodes}: each node's heartbeat (which keeps its jobs' leases and picks
 * up cancels), the list {@code GET /v1/nodes} shows, and the database's clock that leases are judged
 * by. Heartbeats, like claims, commit without waiting for the disk: they are rewritten anyway.
 */
@ApplicationScoped
public class FleetNodes {

    private final NixExecConfig config;
    private final DataSource db;

    public FleetNodes(NixExecConfig config, AgroalDataSource db) {
        this.config = config;
        this.db = db;
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
}
