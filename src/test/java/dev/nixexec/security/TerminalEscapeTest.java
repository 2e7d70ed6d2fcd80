package dev.nixexec.security;

import static dev.nixexec.testing.Api.as;
import static dev.nixexec.testing.Api.memberKey;
import static dev.nixexec.testing.JsonBody.read;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.testing.NixSpy;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * What the command line prints from a server reaches an admin's terminal: a session whose labels
 * carry terminal escapes (stored before the service refused them, or sent by a hostile server)
 * must print as visible text, never as escapes the terminal acts on. The client runs as its own
 * process against this real server.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
class TerminalEscapeTest {

    /** OSC 52 (write the clipboard), OSC 0 (the window title), CSI 2J (clear the screen). */
    static final String ESCAPES = UntrustedBytesTest.TERMINAL_ATTACK;

    @TestHTTPResource("/")
    URL base;

    @Inject
    EntityManager em;

    @Test
    void statusListAndErrorsPrintControlCharactersVisibly() throws Exception {
        String member = memberKey("term");
        String id = read(as(member).body(Map.of("packages", List.of("hello"), "name", "box")).post("/v1/sessions")
                .then().statusCode(201).extract().asString(), "id");
        QuarkusTransaction.requiringNew().run(() -> em.createNativeQuery("UPDATE sessions SET description = :d, "
                        + "agent = :a, name = :n WHERE id = :id")
                .setParameter("d", ESCAPES + "\u009b2J").setParameter("a", "me\nstatus: destroyed\u007f")
                .setParameter("n", "box\u001b[2J").setParameter("id", UUID.fromString(id)).executeUpdate());

        Outcome status = client(member, "status", id);
        assertEquals(0, status.exit(), status.toString());
        assertNoControls(status.stdout());
        assertTrue(status.stdout().contains("description: \\x1b]52;c;cm0gLXJmIH4=\\x07\\x1b]0;pwned\\x07\\x1b[2J\\x9b2J"),
                status.stdout());
        assertTrue(status.stdout().contains("agent: me\\nstatus: destroyed\\x7f"), status.stdout());
        assertEquals(1, status.stdout().lines().filter(l -> l.startsWith("status: ")).count(), status.stdout());

        Outcome list = client(member, "list");
        assertEquals(0, list.exit(), list.toString());
        assertNoControls(list.stdout());
        assertTrue(list.stdout().contains("box\\x1b[2J"), list.stdout());

        // JSON escapes C0 itself; DEL and C1 too
        Outcome json = client(member, "status", "--json", id);
        assertEquals(0, json.exit(), json.toString());
        assertNoControls(json.stdout());
        assertTrue(json.stdout().contains("\\u009B2J") || json.stdout().contains("\\u009b2J"), json.stdout());

        // the server's refusal echoes the name it was given
        Outcome missing = client(member, "status", "gone" + ESCAPES);
        assertEquals(66, missing.exit(), missing.toString());
        assertNoControls(missing.stderr());
        assertTrue(missing.stderr().contains("no session gone\\x1b]52;c;"), missing.stderr());
    }

    /** logs replays a job's output for reading, unlike run and exec, which are the program. */
    @Test
    void logsShowsAJobsEscapesAsText() throws Exception {
        String member = memberKey("term-logs");
        String id = read(as(member).body(Map.of("language", "bash", "code", "printf '\\033]0;pwned\\007line\\r\\n\\tnext\\n'"))
                .post("/v1/jobs?wait=60").then().statusCode(200).extract().asString(), "id");
        Outcome logs = client(member, "logs", id);
        assertEquals(0, logs.exit(), logs.toString());
        assertEquals("\\x1b]0;pwned\\x07line\\r\n\tnext\n", logs.stdout(), logs.toString());
        Outcome run = client(member, "run", "-l", "bash", "printf '\\033[2J'");
        assertEquals("\u001b[2J", run.stdout(), "run is the program: its bytes as they are");
    }

    private static void assertNoControls(String printed) {
        String body = printed.endsWith("\n") ? printed.substring(0, printed.length() - 1) : printed;
        for (String line : body.split("\n", -1)) {
            assertFalse(line.chars().anyMatch(c -> c < 0x20 || c >= 0x7f && c <= 0x9f),
                    "a control character reached the terminal: " + line.replace("\u001b", "<ESC>"));
        }
    }

    record Outcome(int exit, String stdout, String stderr) {
    }

    /** The client's picocli entry in a JVM of its own, on this test's class path, against this server. */
    private Outcome client(String key, String... args) throws IOException, InterruptedException {
        List<String> argv = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), "dev.nixexec.cli.NixExecCommand"));
        argv.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(argv);
        builder.environment().put("NIXEXEC_SERVER", base.toString());
        builder.environment().put("NIXEXEC_KEY", key);
        Process process = builder.start();
        process.getOutputStream().close();
        CompletableFuture<String> out = drain(process.getInputStream());
        CompletableFuture<String> err = drain(process.getErrorStream());
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "the client did not end");
        return new Outcome(process.exitValue(), out.join(), err.join());
    }

    /** Read on a thread of its own: both pipes must drain at once. */
    private static CompletableFuture<String> drain(InputStream stream) {
        CompletableFuture<String> text = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> {
            try (stream) {
                text.complete(new String(stream.readAllBytes(), StandardCharsets.UTF_8));
            } catch (IOException e) {
                text.completeExceptionally(e);
            }
        });
        return text;
    }
}
