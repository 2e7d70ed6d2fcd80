package dev.nixexec.security;

import static dev.nixexec.testing.Api.as;
import static dev.nixexec.testing.Api.submit;
import static dev.nixexec.testing.Api.tenant;
import static dev.nixexec.testing.JsonBody.read;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.security.McpWire.Session;
import dev.nixexec.security.McpWire.ToolResult;
import dev.nixexec.testing.Api;
import dev.nixexec.testing.NixSpy;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 36, item 3: a key is checked when a request comes, and what the request opened must not
 * outlive the key. After a revoke (or the key's expiry), its open event streams (SSE and NDJSON)
 * end with a {@code closed} event saying why, its {@code ?wait} long-poll answers 401, its MCP
 * {@code run_code} that follows a job answers a one-line tool error, and its attached shell closes
 * with 4005: each within a few seconds, while the job itself still runs.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
class RevokedKeyStreamsTest {

    /** How long a revoke may take to reach what is open: the check runs every second. */
    private static final int WITHIN_SECONDS = 10;
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @TestHTTPResource("/")
    URI base;

    String tenant;
    String admin;
    final List<String> jobs = new ArrayList<>();

    record Key(String id, String secret) {
    }

    Key member(OffsetDateTime expiresAt) {
        Map<String, Object> body = expiresAt == null ? Map.of("role", "member")
                : Map.of("role", "member", "expires_at", expiresAt.toString());
        String made = as(Api.ADMIN).body(body).post("/v1/admin/tenants/" + tenant + "/keys").then().statusCode(201)
                .extract().asString();
        return new Key(read(made, "id"), read(made, "key"));
    }

    void revoke(Key key) {
        as(Api.ADMIN).delete("/v1/admin/keys/" + key.id()).then().statusCode(204);
    }

    /** A job that runs long after the test, already running: the stream would go on for a minute. */
    String runningJob(Key key) throws Exception {
        String id = submit(key.secret(), Map.of("language", "bash", "code", "echo started; sleep 120",
                "timeout", 110));
        jobs.add(id);
        Api.awaitEvent(key.secret(), id, "started");
        return id;
    }

    @BeforeEach
    void aTenant() {
        tenant = tenant("revoked");
        admin = Api.key(tenant, "admin");
    }

    @AfterEach
    void cancelTheJobs() {
        jobs.forEach(id -> as(admin).post("/v1/jobs/" + id + "/cancel"));
    }

    /** The lines of the job's event stream in this format, read to its end in the background. */
    CompletableFuture<List<String>> stream(Key key, String job, String accept) throws Exception {
        HttpResponse<Stream<String>> response = HTTP.send(HttpRequest.newBuilder(base.resolve("/v1/jobs/" + job + "/events"))
                .header("Authorization", "Bearer " + key.secret()).header("Accept", accept).build(),
                HttpResponse.BodyHandlers.ofLines());
        assertEquals(200, response.statusCode());
        Iterator<String> lines = response.body().iterator();
        List<String> read = new ArrayList<>();
        // the first line is there: the stream is open and following before the revoke
        read.add(lines.next());
        return CompletableFuture.supplyAsync(() -> {
            lines.forEachRemaining(read::add);
            return read;
        });
    }

    static List<String> ended(CompletableFuture<List<String>> stream) throws Exception {
        try {
            return stream.get(WITHIN_SECONDS, TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("the stream was still open " + WITHIN_SECONDS + "s after its key was revoked", e);
        }
    }

    @Test
    void aRevokeEndsTheKeysEventStreamsWithAClosedEvent() throws Exception {
        Key key = member(null);
        String job = runningJob(key);
        CompletableFuture<List<String>> sse = stream(key, job, "text/event-stream");
        CompletableFuture<List<String>> ndjson = stream(key, job, "application/x-ndjson");
        revoke(key);
        List<String> events = ended(sse);
        int closed = events.indexOf("event:closed");
        assertTrue(closed >= 0, "no closed event: " + events);
        assertEquals("data:the API key was revoked", events.get(closed + 1), events.toString());
        List<String> lines = ended(ndjson);
        String last = lines.get(lines.size() - 1);
        assertEquals("closed", read(last, "type"), last);
        assertEquals("the API key was revoked", read(last, "payload.reason"), last);
        as(admin).get("/v1/jobs/" + job).then().statusCode(200)
                .body(dev.nixexec.testing.JsonBody.json("status", org.hamcrest.Matchers.equalTo("running")));
    }

    @Test
    void anExpiryEndsTheKeysEventStream() throws Exception {
        Key key = member(OffsetDateTime.now(ZoneOffset.UTC).plusSeconds(15));
        String job = runningJob(key);
        CompletableFuture<List<String>> sse = stream(key, job, "text/event-stream");
        List<String> events = sse.get(15 + WITHIN_SECONDS, TimeUnit.SECONDS);
        int closed = events.indexOf("event:closed");
        assertTrue(closed >= 0, "no closed event: " + events);
        assertEquals("data:the API key expired", events.get(closed + 1), events.toString());
    }

    @Test
    void aRevokeAnswersTheKeysLongPoll401() throws Exception {
        Key key = member(null);
        // submitted by the waiting request itself: once the job runs, the request is in its wait
        CompletableFuture<HttpResponse<String>> poll = HTTP.sendAsync(HttpRequest.newBuilder(
                base.resolve("/v1/jobs?wait=60")).header("Authorization", "Bearer " + key.secret())
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"language\":\"bash\",\"code\":\"echo started; sleep 120\",\"timeout\":110}"))
                .build(), HttpResponse.BodyHandlers.ofString());
        String job = awaitRunning(key);
        jobs.add(job);
        revoke(key);
        HttpResponse<String> answer = poll.get(WITHIN_SECONDS, TimeUnit.SECONDS);
        assertEquals(401, answer.statusCode(), answer.body());
        assertEquals("application/problem+json", answer.headers().firstValue("Content-Type").orElse(""));
        assertEquals("the API key was revoked", read(answer.body(), "detail"));
    }

    @Test
    void aRevokeEndsTheKeysRunCodeWithAToolError() throws Exception {
        Key key = member(null);
        McpWire wire = new McpWire(base);
        Session session = wire.open(key.secret());
        CompletableFuture<HttpResponse<String>> run = wire.postAsync(key.secret(), session.id(),
                McpWire.toolCall(5, "run_code", Map.of("language", "bash", "code", "echo started; sleep 120", "timeout", 110)));
        String job = awaitRunning(key);
        jobs.add(job);
        Api.awaitEvent(key.secret(), job, "started");
        revoke(key);
        ToolResult result = ToolResult.of(McpWire.answer(run.get(WITHIN_SECONDS, TimeUnit.SECONDS), 5));
        assertTrue(result.isError(), result.text());
        assertEquals("the API key was revoked", result.text());
    }

    @Test
    void aRevokeClosesTheKeysShell() throws Exception {
        Key key = member(null);
        String session = ShellPolicyTest.session(key.secret(), Map.of());
        ShellWire shell = ShellWire.attach(base, key.secret(), session);
        shell.type("echo up-$((6*7))\n");
        shell.await("up-42");
        revoke(key);
        assertEquals("4005 the API key was revoked", shell.closedWithin(WITHIN_SECONDS));
    }

    /** The key's job once it is listed running (the run_code call submitted it). */
    String awaitRunning(Key key) {
        return org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(60)).until(
                () -> read(as(key.secret()).get("/v1/jobs?status=running").then().statusCode(200).extract().asString(),
                        "items.id"), (List<String> ids) -> !ids.isEmpty()).get(0);
    }
}
