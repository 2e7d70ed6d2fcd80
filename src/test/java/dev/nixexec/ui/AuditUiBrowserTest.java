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
class AuditUiBrowserTest {

    static final Path REPO = Path.of(System.getProperty("nixexec-test.repo-dir", ".")).toAbsolutePath();
    static final Path CHROMIUM = Path.of("/usr/bin/chromium");

    static final String[] SHOTS = {"job-live.png", "job.png", "fleet.png", "artifacts.png", "audit.png", "operator.png",
        "job-limits.png", "session.png", "shell.png", "fleet-operator.png", "jobs.png"};

    @TestHTTPResource("/")
    URL base;

    @Test
    void reviewInABrowser() throws Exception {
        assumeTrue(Files.isExecutable(CHROMIUM), "chromium is not installed");
        assumeTrue(onPath("node"), "node is not installed");

        String tenantId = AuditInvestigationsTest.hookedTenant("browser");
        String member = namedKey(tenantId, "member", "ci-bot");
        String auditor = namedKey(tenantId, "auditor", "alice-review");
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
        String otherTenant = tenant("browser-other");
        String otherMember = key(otherTenant, "member");
        run(otherMember, Map.of("language", "bash", "code", "echo " + word));

        // a memory kill, for the limits beside the usage
        String killed = run(member, Map.of("language", "python", "limits", Map.of("memory", "64MiB"),
                "code", "print('allocating', flush=True)\nb = bytearray(512 * 1024 * 1024)"));
        // a session with a command and a shell, for the session's page and the replay
        String session = read(as(member).body(Map.of("name", "review", "packages", java.util.List.of("hello")))
                .post("/v1/sessions?wait=120").then().statusCode(201).extract().asString(), "id");
        as(member).body(Map.of("command", java.util.List.of("hello"))).post("/v1/sessions/" + session + "/exec?wait=60")
                .then().statusCode(200);
        shell(member, session, "printf 'typed in a shell\\n'; hello; echo answer-$((6*7))\n", "answer-42");
        // another tenant's job running while the operator looks at the fleet: past the default 30 s
        // run timeout, which a loaded machine's browser script can outlast before it gets there
        String running = read(as(otherMember).body(Map.of("language", "bash", "timeout", "5m", "code", "echo up; sleep 300"))
                .post("/v1/jobs").then().statusCode(201).extract().asString(), "id");
        dev.nixexec.testing.Api.awaitEvent(otherMember, running, "up");

        Path shots = REPO.resolve("target/ui-screenshots");
        for (String shot : SHOTS) {
            Files.deleteIfExists(shots.resolve(shot));
        }
        String baseUrl = base.toString().replaceAll("/$", "");
        NodeProject.Outcome outcome;
        try {
            outcome = new NodeProject("ui").run("audit-ui.mjs", 300, baseUrl, auditor, finished,
                    member, shots.toString(), ADMIN, artifacts, word, delivered, killed, session, running);
        } finally {
            as(otherMember).post("/v1/jobs/" + running + "/cancel").then().statusCode(202);
        }
        assertEquals(0, outcome.exitCode(), "the browser script failed:\n" + outcome.output());
        assertTrue(outcome.output().strip().endsWith("OK"), outcome.output());
        for (String shot : SHOTS) {
            assertTrue(Files.exists(shots.resolve(shot)) && Files.size(shots.resolve(shot)) > 1000, shot + " was saved");
        }
    }

    /** A new key of the tenant with a name; its secret. */
    private static String namedKey(String tenantId, String role, String name) {
        return read(as(ADMIN).body(Map.of("role", role, "name", name)).post("/v1/admin/tenants/" + tenantId + "/keys")
                .then().statusCode(201).extract().asString(), "key");
    }

    /** Attaches a shell to the session, types {@code typed}, waits for {@code shown}, and exits it. */
    private void shell(String key, String session, String typed, String shown) throws Exception {
        StringBuilder screen = new StringBuilder();
        java.util.concurrent.CompletableFuture<Void> seen = new java.util.concurrent.CompletableFuture<>();
        java.util.concurrent.CompletableFuture<Void> closed = new java.util.concurrent.CompletableFuture<>();
        java.net.http.WebSocket ws = java.net.http.HttpClient.newHttpClient().newWebSocketBuilder()
                .header("Authorization", "Bearer " + key)
                .buildAsync(java.net.URI.create(base.toString().replaceFirst("^http", "ws") + "v1/sessions/" + session
                        + "/attach"), new java.net.http.WebSocket.Listener() {
                            @Override
                            public java.util.concurrent.CompletionStage<?> onBinary(java.net.http.WebSocket w,
                                    java.nio.ByteBuffer data, boolean last) {
                                screen.append(java.nio.charset.StandardCharsets.UTF_8.decode(data));
                                if (screen.toString().contains(shown)) {
                                    seen.complete(null);
                                }
                                w.request(1);
                                return null;
                            }

                            @Override
                            public java.util.concurrent.CompletionStage<?> onClose(java.net.http.WebSocket w, int code,
                                    String reason) {
                                closed.complete(null);
                                return null;
                            }
                        }).join();
        ws.sendBinary(java.nio.ByteBuffer.wrap(typed.getBytes(java.nio.charset.StandardCharsets.UTF_8)), true).join();
        seen.get(60, java.util.concurrent.TimeUnit.SECONDS);
        ws.sendBinary(java.nio.ByteBuffer.wrap("exit 0\n".getBytes(java.nio.charset.StandardCharsets.UTF_8)), true).join();
        closed.get(60, java.util.concurrent.TimeUnit.SECONDS);
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
