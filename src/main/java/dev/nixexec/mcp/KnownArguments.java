package dev.nixexec.mcp;

import io.quarkiverse.mcp.server.ToolCallException;
import io.quarkiverse.mcp.server.ToolInputGuardrail;
import io.quarkiverse.mcp.server.ToolManager;
import io.vertx.core.json.JsonObject;
import jakarta.inject.Singleton;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Refuses a tool call with an argument the tool does not declare, as REST refuses an unknown
 * field: a misspelt {@code timeuot} would otherwise be dropped and the run go ahead on the default.
 */
@Singleton
public class KnownArguments implements ToolInputGuardrail {

    @Override
    public void apply(ToolInputContext context) {
        if (context.getArguments() == null) {
            // a call without "arguments": the extension (1.13) reads them back after a guardrail
            context.setArguments(new JsonObject());
            return;
        }
        Set<String> known = context.getTool().arguments().stream().map(ToolManager.ToolArgument::name)
                .collect(Collectors.toSet());
        List<String> unknown = context.getArguments().fieldNames().stream()
                .filter(name -> !known.contains(name)).sorted().toList();
        if (!unknown.isEmpty()) {
            throw new ToolCallException((unknown.size() == 1 ? "unknown argument " : "unknown arguments ")
                    + unknown.stream().map(name -> "'" + name.replaceAll("\\p{Cntrl}", "?") + "'")
                            .collect(Collectors.joining(", ")));
        }
    }
}
