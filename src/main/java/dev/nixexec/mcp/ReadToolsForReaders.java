package dev.nixexec.mcp;

import io.quarkiverse.mcp.server.FilterContext;
import io.quarkiverse.mcp.server.McpMethod;
import io.quarkiverse.mcp.server.ToolFilter;
import io.quarkiverse.mcp.server.ToolManager;
import jakarta.inject.Singleton;

/**
 * Lists the tools that submit, cancel or write (every tool not annotated {@code readOnlyHint}) only
 * to keys that may use them: an auditor's session sees the read tools. A call of one is not
 * filtered, so that the tool itself refuses it with a line the agent can read
 * ({@link CallerIdentity#writer}) rather than "no such tool".
 */
@Singleton
public class ReadToolsForReaders implements ToolFilter {

    private final McpSessions sessions;

    public ReadToolsForReaders(McpSessions sessions) {
        this.sessions = sessions;
    }

    @Override
    public boolean test(ToolManager.ToolInfo tool, FilterContext context) {
        if (context.method() != McpMethod.TOOLS_LIST || readOnly(tool)) {
            return true;
        }
        return sessions.opener(context.connection().id()).map(caller -> caller.role().canSubmit()).orElse(false);
    }

    private static boolean readOnly(ToolManager.ToolInfo tool) {
        return tool.annotations().map(ToolManager.ToolAnnotations::readOnlyHint).orElse(false);
    }
}
