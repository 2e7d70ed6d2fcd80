package dev.nixexec.mcp;

import dev.nixexec.tenant.Caller;
import dev.nixexec.workspace.WorkspaceService;
import io.quarkiverse.mcp.server.McpConnection;
import jakarta.enterprise.context.ApplicationScoped;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Each MCP session's own workspace: its name, and its id once it was found or made, so the
 * session's later jobs skip that look-up: the submission resolves the id anyway (tenant-scoped,
 * and marking the workspace used), and a session whose workspace has gone since forgets it and
 * gets a fresh one.
 */
@ApplicationScoped
class SessionWorkspaces {

    private static final int MAX_SESSIONS = 10_000;

    private final WorkspaceService workspaces;
    private final Map<String, UUID> ids = new ConcurrentHashMap<>();
    /**
     * Names the session workspaces of this process. A session lives in one process's memory and
     * ends with it, so a key of the process's own is enough to keep its name stable.
     */
    private final SecretKeySpec nameKey;

    SessionWorkspaces(WorkspaceService workspaces) {
        this.workspaces = workspaces;
        byte[] key = new byte[32];
        new SecureRandom().nextBytes(key);
        this.nameKey = new SecretKeySpec(key, "HmacSHA256");
    }

    /**
     * The session's workspace name: kept across its run_code calls, like a project directory. The
     * tenant's every key lists it, so it must not give the session id away (that id is all it takes
     * to use a session): a keyed hash of the id, which names the session without telling it.
     */
    String name(McpConnection connection) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(nameKey);
            byte[] digest = mac.doFinal(connection.id().getBytes(StandardCharsets.UTF_8));
            return "mcp-session-" + HexFormat.of().formatHex(digest, 0, 16);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every Java runtime", e);
        }
    }

    UUID id(Caller caller, McpConnection connection) {
        UUID known = ids.get(key(caller, connection));
        if (known != null) {
            return known;
        }
        UUID id = workspaces.sessionId(caller, name(connection));
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
