package dev.nixexec.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** What {@link McpNullArguments} makes of a {@code tools/call}: only its null arguments change. */
class McpNullArgumentsRewriteTest {

    private final McpNullArguments rewrite = new McpNullArguments();

    private String rewritten(String message) {
        return new String(rewrite.withoutNullArguments(message.getBytes(StandardCharsets.UTF_8)), StandardCharsets.UTF_8);
    }

    @Test
    void nullArgumentsAreLeftOutAndEverythingElseKept() {
        assertEquals("{\"id\":null,\"method\":\"tools/call\",\"params\":{\"name\":\"submit_job\",\"arguments\":"
                        + "{\"code\":\"echo x\",\"env\":{\"A\":null},\"timeout\":1.00000000000000000001E+400},\"_meta\":null}}",
                rewritten("{\"id\":null,\"method\":\"tools/call\",\"params\":{\"name\":\"submit_job\",\"arguments\":"
                        + "{\"stdin\":null,\"code\":\"echo x\",\"env\":{\"A\":null},\"language\":null,"
                        + "\"timeout\":1.00000000000000000001e400},\"_meta\":null}}"));
    }

    /** A lone surrogate or NUL reaches the tool's checks as sent (escaped), not as '?' or an encoding failure. */
    @Test
    void textIsKeptExactly() {
        assertEquals("{\"params\":{\"arguments\":{\"code\":\"\\uD800 \\u00E9 \\u0000\"}}}",
                rewritten("{\"params\":{\"arguments\":{\"code\":\"\\ud800 é \\u0000\",\"stdin\":null}}}"));
    }

    @Test
    void nullOrMissingArgumentsAreNone() {
        assertEquals("{\"params\":{\"name\":\"get_job\",\"arguments\":{}}}",
                rewritten("{\"params\":{\"name\":\"get_job\",\"arguments\":null}}"));
        assertEquals("{\"params\":{\"name\":\"list_jobs\",\"arguments\":{}},\"id\":1}",
                rewritten("{\"params\":{\"name\":\"list_jobs\"},\"id\":1}"));
    }
}
