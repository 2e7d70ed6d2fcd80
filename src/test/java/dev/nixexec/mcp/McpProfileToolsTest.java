package dev.nixexec.mcp;

import static dev.nixexec.mcp.McpToolsTest.bearer;
import static dev.nixexec.mcp.McpToolsTest.text;
import static dev.nixexec.testing.Api.key;
import static dev.nixexec.testing.Api.tenant;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.testing.NixSpy;
import io.quarkiverse.mcp.server.test.McpAssured;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** The MCP side of profiles and package search: list_profiles, search_packages, and run_code under a profile. */
@QuarkusTest
@WithTestResource(NixSpy.class)
class McpProfileToolsTest {

    @Test
    void theTwoToolsAreReadOnlyAndAnAuditorSeesThem() {
        String auditor = key(tenant("mcp-profiles"), "auditor");
        try (var client = McpAssured.newStreamableClient().setAdditionalHeaders(bearer(auditor)).build().connect()) {
            client.when().toolsList(page -> {
                for (String tool : new String[] {"list_profiles", "search_packages"}) {
                    McpAssured.ToolAnnotations hints = page.findByName(tool).annotations().orElseThrow();
                    assertTrue(hints.readOnlyHint(), tool);
                    assertFalse(hints.destructiveHint(), tool);
                }
            }).toolsCall("list_profiles", Map.of(), r -> {
                assertFalse(r.isError());
                assertTrue(text(r).startsWith("strict (built-in): network off; packages coreutils, bash, cacert; "
                        + "writable /workspace, /tmp"), text(r));
                assertTrue(text(r).contains("build-install (built-in): network full"), text(r));
            }).thenAssertResults();
        }
    }

    @Test
    void searchPackagesRefusesBadArgumentsAndFindsFixturePackages() {
        String member = key(tenant("mcp-packages"), "member");
        try (var client = McpAssured.newStreamableClient().setAdditionalHeaders(bearer(member)).build().connect()) {
            client.when().toolsCall("search_packages", Map.of("query", " "), r -> {
                assertTrue(r.isError());
                assertEquals("query: what to search for is required", text(r));
            }).toolsCall("search_packages", Map.of("query", "jq", "language", "cobol", "q", "x"), r -> {
                assertTrue(r.isError());
                assertEquals("q: unknown argument", text(r));
            }).thenAssertResults();
            AtomicReference<String> found = new AtomicReference<>();
            // until the pin's index is listed the tool says to try again shortly
            Awaitility.await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(250)).until(() -> {
                client.when().toolsCall("search_packages", Map.of("query", "tinylua"), r -> {
                    if (r.isError()) {
                        assertTrue(text(r).contains("try again shortly"), text(r));
                    } else {
                        found.set(text(r));
                    }
                }).thenAssertResults();
                return found.get() != null;
            });
            assertEquals("lua5_4Packages.tinylua 1.0: lua5.4-tinylua-1.0 (offline test fixture)", found.get());
        }
    }

    @Test
    void runCodeTakesAProfile() {
        String member = key(tenant("mcp-run-profile"), "member");
        try (var client = McpAssured.newStreamableClient().setAdditionalHeaders(bearer(member)).build().connect()) {
            client.when().toolsCall("run_code", Map.of("language", "bash", "code", "echo in-strict", "profile", "strict"),
                    r -> {
                        assertFalse(r.isError(), text(r));
                        assertTrue(text(r).contains("in-strict"), text(r));
                    })
                    .toolsCall("submit_job", Map.of("language", "bash", "code", "echo x", "profile", "nope"), r -> {
                        assertTrue(r.isError());
                        assertTrue(text(r).startsWith("profile: unknown profile 'nope'"), text(r));
                    })
                    .toolsCall("run_code", Map.of("language", "bash", "code", "echo x", "profile", "debug-network"), r -> {
                        assertTrue(r.isError());
                        assertTrue(text(r).contains("needs a tenant policy that allows it"), text(r));
                    })
                    .thenAssertResults();
        }
    }
}
