package dev.nixexec.job;

import dev.nixexec.config.NixExecConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.Tuple;
import jakarta.transaction.Transactional;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * A node's bookkeeping around the queue: its heartbeat (which keeps its jobs' leases and picks up
 * cancels), live output, the fleet's node list, and retention. The status changes of jobs are
 * {@link JobTransitions}'.
 */
@ApplicationScoped
public class JobQueue {

    private final NixExecConfig config;
    private final EntityManager em;

    public JobQueue(NixExecConfig config, EntityManager em) {
        this.config = config;
        this.em = em;
    }

    /**
     * Appends output for live followers: several chunks, one transaction, one notification. Only
     * while the job is this node's run of that attempt, building or running: a run that is not
     * (started before its submission was refused or stored the job queued; an earlier attempt
     * still alive after a reap) writes nothing into the events of a job it does not have. The row
     * is locked for share, so an end or a reap commits either before (nothing is appended) or
     * after (the output comes before the result).
     */
    @Transactional
    public void output(UUID id, String nodeId, int attempt, List<JobTransitions.Chunk> chunks) {
        commitWithoutWaitingForDisk();
        boolean runHere = !em.createNativeQuery("SELECT 1 FROM jobs WHERE id = :id AND node_id = :node "
                        + "AND attempt = :attempt AND status IN ('building', 'running') FOR SHARE")
                .setParameter("id", id).setParameter("node", nodeId).setParameter("attempt", attempt)
                .getResultList().isEmpty();
        if (!runHere) {
            return;
        }
        for (JobTransitions.Chunk chunk : chunks) {
            JobEvents.append(em, id, chunk.stream(), chunk.text());
        }
        JobNotifications.notify(em, JobNotifications.CHANGED, id.toString());
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

    /** A worker node as {@code GET /v1/nodes} shows it. */
    public record NodeView(String id, String role, int concurrency, int running, OffsetDateTime startedAt,
            OffsetDateTime heartbeatAt) {
    }

    @Transactional
    public List<NodeView> nodes() {
        List<Tuple> rows = em.createNativeQuery("SELECT id, role, concurrency, running, started_at, heartbeat_at "
                + "FROM nodes ORDER BY id", Tuple.class).getResultList();
        return rows.stream().map(r -> new NodeView(r.get("id", String.class), r.get("role", String.class),
                r.get("concurrency", Number.class).intValue(), r.get("running", Number.class).intValue(),
                toOffset(r.get("started_at")), toOffset(r.get("heartbeat_at")))).toList();
    }

    private static OffsetDateTime toOffset(Object value) {
        return switch (value) {
            case OffsetDateTime odt -> odt;
            case Instant instant -> instant.atOffset(ZoneOffset.UTC);
            case java.sql.Timestamp ts -> ts.toInstant().atOffset(ZoneOffset.UTC);
            default -> OffsetDateTime.parse(value.toString());
        };
    }

    @Transactional
    public void leave(String nodeId) {
        em.createNativeQuery("DELETE FROM nodes WHERE id = ?1").setParameter(1, nodeId).executeUpdate();
    }

    /** Forgets nodes silent for four leases: the fleet list shows live nodes (their jobs are the reaper's). */
    @Transactional
    public void forgetSilentNodes() {
        em.createNativeQuery("DELETE FROM nodes WHERE heartbeat_at < now() - make_interval(secs => ?1)")
                .setParameter(1, (double) config.jobs().lease().toSeconds() * 4).executeUpdate();
    }

    /** Deletes finished jobs (with their events), audit records and shell recordings older than the retention. */
    @Transactional
    public int expire(Duration retention) {
        double seconds = retention.toSeconds();
        int jobsDeleted = em.createNativeQuery("DELETE FROM jobs WHERE finished_at < now() - make_interval(secs => ?1)")
                .setParameter(1, seconds).executeUpdate();
        em.createNativeQuery("DELETE FROM audit_events WHERE at < now() - make_interval(secs => ?1)")
                .setParameter(1, seconds).executeUpdate();
        em.createNativeQuery("DELETE FROM shell_recordings WHERE ended_at < now() - make_interval(secs => ?1)")
                .setParameter(1, seconds).executeUpdate();
        return jobsDeleted;
    }

    /**
     * This transaction's commit returns before its WAL reaches the disk (a crash of PostgreSQL
     * may lose the last fraction of a second of such commits). Only for writes whose loss is
     * harmless: a lost claim puts the job back in the queue, and nothing runs before the
     * synchronous commit of {@link JobTransitions#start} (which also makes every earlier commit durable);
     * live output and heartbeats are rewritten anyway. Submissions, starts and results wait for
     * the disk.
     */
    private void commitWithoutWaitingForDisk() {
        em.createNativeQuery("SET LOCAL synchronous_commit = off").executeUpdate();
    }
}
