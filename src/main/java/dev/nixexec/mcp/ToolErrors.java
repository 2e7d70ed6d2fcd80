package dev.nixexec.mcp;

import dev.nixexec.refusal.InvalidRequestException;
import dev.nixexec.refusal.Refusal;
import io.quarkiverse.mcp.server.ToolResponse;
import java.util.function.Supplier;

/** A tool's refusal is a tool error the model reads (one line), not a protocol error. */
final class ToolErrors {

    private ToolErrors() {
    }

    static ToolResponse refusalsAsErrors(Supplier<ToolResponse> call) {
        try {
            return call.get();
        } catch (InvalidRequestException | Refusal e) {
            return ToolResponse.error(e.getMessage().replace('\n', ' '));
        }
    }
}
