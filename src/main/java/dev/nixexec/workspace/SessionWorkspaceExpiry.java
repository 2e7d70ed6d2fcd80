package dev.nixexec.workspace;

import dev.nixexec.audit.AuditLog;
import dev.nixexec.config.NixExecConfig;
import io.quarkus.narayana.jta.QuarkusTransaction;
import jakarta.enterprise.context.ApplicationScoped;
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

    private final NixExecConfig config;
    private final WorkspaceRepository repository;
    private final AuditLog audit;

    SessionWorkspaceExpiry(NixExecConfig config, WorkspaceRepository repository, AuditLog audit) {
        this.config = config;
        this.repository = repository;
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
        if (!repository.trySweepLock()) {
            return 0;
        }
        List<WorkspaceRepository.IdleWorkspace> expired = repository.idleSessionWorkspaces(ttl, BATCH);
        Map<UUID, List<UUID>> byTenant = expired.stream().collect(Collectors.groupingBy(
                WorkspaceRepository.IdleWorkspace::tenantId, LinkedHashMap::new,
                Collectors.mapping(WorkspaceRepository.IdleWorkspace::id, Collectors.toList())));
        byTenant.forEach(repository::delete);
        for (WorkspaceRepository.IdleWorkspace e : expired) {
            audit.record(AUDIT_KIND, e.tenantId(), null, null, nodeId, Map.of("workspace_id", e.id().toString(),
                    "name", e.name(), "idle_since", e.idleSince().toString(), "idle_ttl", ttl.toString()));
        }
        return expired.size();
    }
}
