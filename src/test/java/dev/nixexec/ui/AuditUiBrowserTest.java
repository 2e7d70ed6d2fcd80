package dev.nixexec.ui;

import static dev.nixexec.ui.AuditUiTest.api;
import static dev.nixexec.ui.AuditUiTest.key;
import static dev.nixexec.ui.AuditUiTest.run;
import static dev.nixexec.ui.AuditUiTest.tenant;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The audit UI in a real browser: headless Chromium driven by playwright-core
 * ({@code src/test/js/ui/audit-ui.mjs}) against this running service, real jobs included.
 * Skipped only when node, Chromium or the script's npm packages are missing ({@code .ci/run}
 * installs all three).
 */
@QuarkusTest
class AuditUiBrowserTest {

    static final Path REPO = Path.of(System.getProperty("nixexec-test.repo-dir", ".")).toAbsolutePath();
    static final Path SCRIPT_DIR = REPO.resolve("src/test/js/ui");
    static final Path CHROMIUM = Path.of("/usr/bin/chromium");

    @TestHTTPResource("/")
    URL base;

    @Test
    void reviewInABrowser() throws Exception {
        assumeTrue(Files.isExecutable(CHROMIUM), "chromium is not installed");
        assumeTrue(Files.isDirectory(SCRIPT_DIR.resolve("node_modules/playwright-core")),
                "run (cd src/test/js/ui && npm ci) first");
        assumeTrue(onPath("node"), "node is not installed");

        String tenantId = tenant("browser");
        String member = key(tenantId, "member");
        String auditor = key(tenantId, "auditor");
        String finished = run(member, Map.of("language", "bash",
                "code", "echo '<script>alert(\"pwned\")</script>'; echo '<script>' >&2; exit 1"));
        String running = api(member).body(Map.of("language", "bash",
                "code", "for i in $(seq 1 12); do echo tick $i; sleep 1; done; echo done")).post("/v1/jobs")
                .then().statusCode(201).extract().path("id");

        Path shots = REPO.resolve("target/ui-screenshots");
        String baseUrl = base.toString().replaceAll("/$", "");
        Process node = new ProcessBuilder("node", SCRIPT_DIR.resolve("audit-ui.mjs").toString(), baseUrl, auditor,
                finished, running, shots.toString()).redirectErrorStream(true).start();
        node.getOutputStream().close();
        String output = new String(node.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(node.waitFor(3, TimeUnit.MINUTES), "the browser script did not end:\n" + output);
        assertEquals(0, node.exitValue(), "the browser script failed:\n" + output);
        assertTrue(output.strip().endsWith("OK"), output);
        for (String shot : new String[] {"job-live.png", "job.png", "fleet.png"}) {
            assertTrue(Files.size(shots.resolve(shot)) > 1000, shot + " was saved");
        }
    }

    private static boolean onPath(String command) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (Files.isExecutable(Path.of(dir, command))) {
                return true;
            }
        }
        return false;
    }
}
