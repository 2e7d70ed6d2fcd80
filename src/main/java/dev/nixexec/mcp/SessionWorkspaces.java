package dev.nixexec.mcp;

import dev.nixexec.tenant.Caller;
import dev.nixexec.workspace.WorkspaceStore;
import io.quarkiverse.mcp.server.McpConnection;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The id of each MCP session's own workspace once it was found or made, so the session's later
 * jobs skip that look-up: the submission resolves the id anyway (tenant-scoped, and marking the
 * workspace used), and a session whose workspace has gone since forgets it and gets a fresh one.
 */
@ApplicationScoped
class SessionWorkspaces {

    private static final int MAX_SESSIONS = 10_000;

    private final WorkspaceStore workspaces;
    private final Map<String, UUID> ids = new ConcurrentHashMap<>();

    SessionWorkspaces(WorkspaceStore workspaces) {
        this.workspaces = workspaces;
    }

    UUID id(Caller caller, McpConnection connection) {
        UUID known = ids.get(key(caller, connection));
        if (known != null) {
            return known;
        }
        UUID id = workspaces.sessionId(caller, WorkspaceTools.sessionName(connection));
        if (ids.size() >= MAX_SESSIONS) {
            ids.clear();
        }
        ids.put(key(caller, connection), id);
        return id;
    }

    /** Whether the session had a workspace id kept (now forgotten). */
    boolean forget(Caller caller, McpConnection connection) {
        return ids.remove(key(caller, connection)) != null;
    }

    private static String key(Caller caller, McpConnection connection) {
        return caller.tenantId() + "/" + connection.id();
    }
}
