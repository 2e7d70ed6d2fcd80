package dev.nixexec.ui;

import static dev.nixexec.testing.Api.ADMIN;
import static dev.nixexec.testing.Api.as;
import static dev.nixexec.testing.Api.key;
import static dev.nixexec.testing.JsonBody.read;
import static dev.nixexec.ui.AuditUiTest.run;
import static dev.nixexec.testing.Api.tenant;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.nixexec.testing.NixSpy;
import dev.nixexec.testing.NodeProject;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The audit UI in a real browser: headless Chromium driven by playwright-core
 * ({@code src/test/js/ui/audit-ui.mjs}) against this running service, real jobs included.
 * Its npm packages are installed by {@link NodeProject}; skipped only when node or Chromium is
 * missing ({@code .ci/run} installs both).
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
class AuditUiBrowserIT {

    static final Path REPO = Path.of(System.getProperty("nixexec-test.repo-dir", ".")).toAbsolutePath();
    static final Path CHROMIUM = Path.of("/usr/bin/chromium");

    static final String[] SHOTS = {"job-live.png", "job.png", "fleet.png", "artifacts.png", "audit.png", "operator.png"};

    @TestHTTPResource("/")
    URL base;

    @Test
    void reviewInABrowser() throws Exception {
        assumeTrue(Files.isExecutable(CHROMIUM), "chromium is not installed");
        assumeTrue(onPath("node"), "node is not installed");

        String tenantId = AuditInvestigationsTest.hookedTenant("browser");
        String member = key(tenantId, "member");
        String auditor = key(tenantId, "auditor");
        String delivered = AuditInvestigationsTest.jobWithADelivery(member, auditor);
        // a key and a policy change, for the audit log page
        String revoked = read(as(ADMIN).body(Map.of("role", "member")).post("/v1/admin/tenants/" + tenantId + "/keys")
                .then().statusCode(201).extract().asString(), "id");
        as(ADMIN).delete("/v1/admin/keys/" + revoked).then().statusCode(204);
        as(ADMIN).body(Map.of("policy", Map.of("max_queued", 40))).patch("/v1/admin/tenants/" + tenantId).then().statusCode(200);
        String finished = run(member, Map.of("language", "bash",
                "code", "echo '<script>alert(\"pwned\")</script>'; echo '<script>' >&2; exit 1"));

        String word = "numbat" + java.util.concurrent.ThreadLocalRandom.current().nextLong(1_000_000, 9_999_999);
        String artifacts = run(member, Map.of("language", "bash", "artifacts", java.util.List.of("out"),
                "metadata", Map.of("case", word), "code", String.join("\n", "mkdir -p out",
                        "echo " + AuditInvestigationsTest.PNG_BASE64 + " | base64 -d > out/dot.png",
                        "echo '<script>alert(1)</script>' > out/fake.png", "echo " + word)));
        // the same word in another tenant: the operator sees both, the auditor only its own
        run(key(tenant("browser-other"), "member"), Map.of("language", "bash", "code", "echo " + word));

        Path shots = REPO.resolve("target/ui-screenshots");
        for (String shot : SHOTS) {
            Files.deleteIfExists(shots.resolve(shot));
        }
        String baseUrl = base.toString().replaceAll("/$", "");
        NodeProject.Outcome outcome = new NodeProject("ui").run("audit-ui.mjs", 300, baseUrl, auditor, finished,
                member, shots.toString(), ADMIN, artifacts, word, delivered);
        assertEquals(0, outcome.exitCode(), "the browser script failed:\n" + outcome.output());
        assertTrue(outcome.output().strip().endsWith("OK"), outcome.output());
        for (String shot : SHOTS) {
            assertTrue(Files.exists(shots.resolve(shot)) && Files.size(shots.resolve(shot)) > 1000, shot + " was saved");
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
