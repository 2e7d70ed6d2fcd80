package dev.nixexec.workspace;

import dev.nixexec.audit.AuditLog;
import dev.nixexec.config.NixExecConfig;
import io.quarkus.narayana.jta.QuarkusTransaction;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * Deletes MCP sessions' own workspaces once idle for {@code nixexec.workspaces.session-idle-ttl}:
 * no job on it is queued, building or running or ended within that time, and no file of it was
 * listed, read or written and no job submitted for it ({@code workspaces.used_at}). Workspaces
 * created by name are never touched. Safe on several nodes at once: one node sweeps at a time
 * (a transaction-scoped advisory lock; the others skip), and a workspace in use holds its row,
 * which the sweep passes by.
 */
@ApplicationScoped
public class SessionWorkspaceExpiry {

    static final String AUDIT_KIND = "workspace_expired";
    private static final int BATCH = 100;
    private static final long SWEEP_LOCK = 0x6e697865_78706972L;

    private record Expired(UUID id, UUID tenantId, String name, Object idleSince) {
    }

    private final NixExecConfig config;
    private final EntityManager em;
    private final WorkspaceStore store;
    private final AuditLog audit;

    public SessionWorkspaceExpiry(NixExecConfig config, EntityManager em, WorkspaceStore store, AuditLog audit) {
        this.config = config;
        this.em = em;
        this.store = store;
        this.audit = audit;
    }

    /** Deletes the idle session workspaces, a batch per transaction; how many it deleted. */
    public int expire(String nodeId) {
        Duration ttl = config.workspaces().sessionIdleTtl();
        if (ttl.isZero()) {
            return 0;
        }
        int total = 0;
        while (true) {
            int deleted = QuarkusTransaction.requiringNew().call(() -> expireBatch(ttl, nodeId));
            total += deleted;
            if (deleted < BATCH) {
                return total;
            }
        }
    }

    private int expireBatch(Duration ttl, String nodeId) {
        boolean sweeping = (Boolean) em.createNativeQuery("SELECT pg_try_advisory_xact_lock(?1)")
                .setParameter(1, SWEEP_LOCK).getSingleResult();
        if (!sweeping) {
            return 0;
        }
        // A job counts while it is open and for the TTL after it ended. Rows locked by a use in
        // progress (a submission, a session's lookup) are skipped; one used since this statement
        // began is re-read with its new used_at and so left alone.
        @SuppressWarnings("unchecked")
        List<Object[]> rows = em.createNativeQuery("SELECT w.id, w.tenant_id, w.name, greatest(w.used_at, "
                        + "(SELECT max(j.finished_at) FROM job_files f JOIN jobs j ON j.id = f.job_id "
                        + "WHERE f.workspace_id = w.id)) FROM workspaces w "
                        + "WHERE w.mcp_session AND w.used_at < now() - make_interval(secs => ?1) "
                        + "AND NOT EXISTS (SELECT 1 FROM job_files f JOIN jobs j ON j.id = f.job_id "
                        + "WHERE f.workspace_id = w.id AND (j.status IN ('queued', 'building', 'running') "
                        + "OR j.finished_at >= now() - make_interval(secs => ?1))) "
                        + "ORDER BY w.used_at LIMIT ?2 FOR UPDATE OF w SKIP LOCKED")
                .setParameter(1, ttl.toMillis() / 1000.0).setParameter(2, BATCH).getResultList();
        List<Expired> expired = rows.stream()
                .map(r -> new Expired((UUID) r[0], (UUID) r[1], (String) r[2], r[3])).toList();
        Map<UUID, List<UUID>> byTenant = expired.stream().collect(Collectors.groupingBy(Expired::tenantId,
                LinkedHashMap::new, Collectors.mapping(Expired::id, Collectors.toList())));
        byTenant.forEach(store::delete);
        for (Expired e : expired) {
            audit.record(AUDIT_KIND, e.tenantId(), null, null, nodeId, Map.of("workspace_id", e.id().toString(),
                    "name", e.name(), "idle_since", WorkspaceStore.toOffset(e.idleSince()).toString(),
                    "idle_ttl", ttl.toString()));
        }
        return expired.size();
    }
}
