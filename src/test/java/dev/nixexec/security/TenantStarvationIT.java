package dev.nixexec.security;

import static dev.nixexec.testing.Api.as;
import static dev.nixexec.testing.Api.key;
import static dev.nixexec.testing.JsonBody.read;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.execution.ExecutionRequest;
import dev.nixexec.job.JobReads;
import dev.nixexec.job.JobWaits;
import dev.nixexec.job.JobService;
import dev.nixexec.job.Submission;
import dev.nixexec.job.JobView;
import dev.nixexec.tenant.Caller;
import dev.nixexec.tenant.Role;
import dev.nixexec.tenant.TenantPolicy;
import dev.nixexec.tenant.Tenants;
import dev.nixexec.testing.Api;
import dev.nixexec.testing.NixSpy;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.response.Response;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * One tenant or key cannot starve the others: on a node of 2 slots a tenant with long jobs leaves
 * one slot to a tenant that is also using the service; a key over its request rate, or with too
 * many waiting requests open, is told 429 with Retry-After while other keys go on; so is a tenant
 * whose many keys together are over the tenant's rate or waits; a JSON-RPC batch does not carry
 * many calls in one request. A fresh database (this profile's own start), so the first test sees
 * a tenant truly alone.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
@TestProfile(TenantStarvationIT.Contended.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class TenantStarvationIT {
    private static final int WAITS = 3;
    private static final int TENANT_WAITS = 4;
    private static final int KEY_BURST = 40;
    private static final int TENANT_BURST = 60;

    public static class Contended implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("nixexec.node.concurrency", "2", "nixexec.limits.reserved-slots", "1",
                    "nixexec.limits.contention-window", "5m", "nixexec.limits.requests-per-second", "2",
                    "nixexec.limits.request-burst", Integer.toString(KEY_BURST),
                    "nixexec.limits.waits-per-key", Integer.toString(WAITS),
                    "nixexec.limits.tenant-requests-per-second", "3",
                    "nixexec.limits.tenant-request-burst", Integer.toString(TENANT_BURST),
                    "nixexec.limits.waits-per-tenant", Integer.toString(TENANT_WAITS));
        }
    }

    @Inject
    JobService jobs;

    @Inject
    JobReads reads;

    @Inject
    JobWaits waits;

    @Inject
    Tenants tenants;

    @TestHTTPResource("/")
    URI base;

    private Caller tenant(String name, Integer maxRunning) {
        return new Caller(tenants.create(name + "-" + UUID.randomUUID().toString().substring(0, 8),
                new TenantPolicy(null, null, null, null, null, null, null, maxRunning), null).id, null, Role.MEMBER);
    }

    private static Submission bash(String code) {
        return Submission.of(ExecutionRequest.of("bash", code));
    }

    private JobView until(Caller caller, UUID id, String status) {
        return await().atMost(Duration.ofSeconds(60))
                .until(() -> reads.get(caller, id), job -> job.status().equals(status) || job.terminal());
    }

    @Test
    @Order(1)
    void aTenantAloneUsesEverySlot() throws InterruptedException {
        Caller alone = tenant("alone", null);
        UUID first = jobs.submit(alone, bash("sleep 60"), null).job().id();
        UUID second = jobs.submit(alone, bash("sleep 60"), null).job().id();
        assertEquals("running", until(alone, first, "running").status());
        assertEquals("running", until(alone, second, "running").status(), "nobody else wants a slot: both run");
        jobs.cancel(alone, first);
        jobs.cancel(alone, second);
        assertEquals("cancelled", waits.await(alone, first, Duration.ofSeconds(30)).status());
        assertEquals("cancelled", waits.await(alone, second, Duration.ofSeconds(30)).status());
    }

    @Test
    @Order(2)
    void anotherTenantsJobRunsWhileOneTenantsLongJobsFillTheQueue() {
        Caller a = tenant("flood", null);
        Caller b = tenant("short", null);
        // b uses the service: its warm-up job also builds the bash environment
        assertEquals("succeeded", waits.submit(b, bash("echo warm"), null, Duration.ofSeconds(60)).job().status());
        List<UUID> flood = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            flood.add(jobs.submit(a, bash("sleep 20"), null).job().id());
        }
        JobView mine = waits.submit(b, bash("echo short"), null, Duration.ofSeconds(60)).job();
        List<String> floodNow = flood.stream().map(id -> reads.get(a, id).status()).toList();
        flood.forEach(id -> jobs.cancel(a, id));
        assertEquals("succeeded", mine.status());
        assertTrue(floodNow.stream().noneMatch(s -> s.equals("succeeded") || s.equals("cancelled")
                || s.equals("failed") || s.equals("error")), "b's job waited for one of a's: " + floodNow);
        assertTrue(floodNow.stream().filter(s -> !s.equals("queued")).count() <= 1, "a held more than its share: " + floodNow);
    }

    private static void assertTooMany(Response response) {
        assertEquals(429, response.statusCode(), response.asString());
        assertTrue(response.contentType().startsWith("application/problem+json"), response.contentType());
        assertEquals(429, response.jsonPath().getInt("status"));
        String after = response.header("Retry-After");
        assertNotNull(after, "no Retry-After");
        assertTrue(Long.parseLong(after) >= 1, after);
    }

    @Test
    @Order(3)
    void aKeyOverItsRequestRateIsToldToComeBackAndOtherKeysAreNot() {
        String greedy = key(Api.tenant("greedy", Map.of()), "member");
        String other = key(Api.tenant("other", Map.of()), "member");
        Response last = null;
        for (int i = 0; i < 200; i++) {
            last = as(greedy).get("/v1/jobs");
            if (last.statusCode() != 200) {
                break;
            }
        }
        assertTooMany(last);
        // the same bucket answers on /mcp (a token may have come back meanwhile: it is taken first)
        for (int i = 0; i < 20; i++) {
            last = as(greedy).accept("application/json, text/event-stream")
                    .body("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}").post("/mcp");
            if (last.statusCode() != 200) {
                break;
            }
        }
        assertTooMany(last);
        as(other).get("/v1/jobs").then().statusCode(200);
    }

    @Test
    @Order(4)
    void aKeyWithTooManyWaitsOpenIsToldToComeBackAndAnotherKeyStillWaits() throws Exception {
        // a job that never runs (its tenant may run none) keeps every wait on it open
        String waiter = key(Api.tenant("waiter", Map.of("max_running", 0)), "member");
        String id = read(as(waiter).body(Map.of("language", "bash", "code", "true")).post("/v1/jobs")
                .then().statusCode(201).extract().asString(), "id");
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        HttpRequest waitRequest = HttpRequest.newBuilder(base.resolve("/v1/jobs/" + id + "?wait=60"))
                .header("Authorization", "Bearer " + waiter).build();
        List<CompletableFuture<HttpResponse<String>>> open = new ArrayList<>();
        for (int i = 0; i < WAITS; i++) {
            open.add(http.sendAsync(waitRequest, HttpResponse.BodyHandlers.ofString()));
        }
        // once the open waits are all in, one more is refused; until then it is just a short wait.
        // A probe holds a place while it waits, so an open wait arriving then is refused: it asks again.
        Response more = null;
        for (int i = 0; i < 30; i++) {
            for (int w = 0; w < open.size(); w++) {
                if (open.get(w).isDone() && open.get(w).join().statusCode() == 429) {
                    open.set(w, http.sendAsync(waitRequest, HttpResponse.BodyHandlers.ofString()));
                }
            }
            more = as(waiter).get("/v1/jobs/" + id + "?wait=1");
            if (more.statusCode() != 200 && open.stream().noneMatch(CompletableFuture::isDone)) {
                break;
            }
        }
        assertEquals(429, more.statusCode(), "open waits: " + open.stream().map(f -> f.isDone() ? f.join().statusCode() + " "
                + f.join().body() : "open").toList());
        assertTooMany(more);
        assertTooMany(as(waiter).accept("text/event-stream").get("/v1/jobs/" + id + "/events"));
        as(waiter).get("/v1/jobs/" + id).then().statusCode(200); // not waiting: answered

        String patient = key(Api.tenant("patient", Map.of()), "member");
        String quick = read(as(patient).body(Map.of("language", "bash", "code", "echo quick")).post("/v1/jobs?wait=60")
                .then().statusCode(200).extract().asString(), "status");
        assertEquals("succeeded", quick, "another key's wait");

        as(waiter).post("/v1/jobs/" + id + "/cancel").then().statusCode(202);
        for (CompletableFuture<HttpResponse<String>> wait : open) {
            assertEquals(200, wait.get().statusCode());
        }
        as(waiter).get("/v1/jobs/" + id + "?wait=1").then().statusCode(200); // its waits were given back
    }

    @Test
    @Order(5)
    void keysMintedByOneTenantShareTheTenantsRate() {
        String crowd = Api.tenant("crowd", Map.of());
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            keys.add(key(crowd, "member"));
        }
        String other = key(Api.tenant("other", Map.of()), "member");
        // without a tenant-wide rate twelve keys make twelve bursts: 480 requests at once
        Response last = null;
        int answered = 0;
        for (int i = 0; i < keys.size() * KEY_BURST; i++) {
            last = as(keys.get(i % keys.size())).get("/v1/jobs");
            if (last.statusCode() != 200) {
                break;
            }
            answered++;
        }
        assertTooMany(last);
        assertTrue(answered < 2 * TENANT_BURST, answered + " requests answered");
        assertTrue(last.jsonPath().getString("detail").contains("tenant"), last.asString());
        // the tenant's rate holds on /mcp too, whichever of its keys asks
        Response mcp = as(keys.getLast()).accept("application/json, text/event-stream")
                .body("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}").post("/mcp");
        for (int i = 0; i < 20 && mcp.statusCode() == 200; i++) {
            mcp = as(keys.get(i % keys.size())).accept("application/json, text/event-stream")
                    .body("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}").post("/mcp");
        }
        assertTooMany(mcp);
        assertTrue(mcp.jsonPath().getString("detail").contains("tenant"), mcp.asString());
        as(other).get("/v1/jobs").then().statusCode(200);
    }

    @Test
    @Order(6)
    void keysMintedByOneTenantShareTheTenantsWaits() throws Exception {
        // a job that never runs (its tenant may run none) keeps every wait on it open
        String crowd = Api.tenant("crowd-waits", Map.of("max_running", 0));
        String first = key(crowd, "member");
        String second = key(crowd, "member");
        String id = read(as(first).body(Map.of("language", "bash", "code", "true")).post("/v1/jobs")
                .then().statusCode(201).extract().asString(), "id");
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        HttpRequest.Builder waitRequest = HttpRequest.newBuilder(base.resolve("/v1/jobs/" + id + "?wait=60"));
        List<HttpRequest> requests = new ArrayList<>();
        for (int i = 0; i < WAITS; i++) {
            requests.add(waitRequest.copy().header("Authorization", "Bearer " + first).build());
        }
        for (int i = WAITS; i < TENANT_WAITS; i++) {
            requests.add(waitRequest.copy().header("Authorization", "Bearer " + second).build());
        }
        List<CompletableFuture<HttpResponse<String>>> open = new ArrayList<>();
        requests.forEach(r -> open.add(http.sendAsync(r, HttpResponse.BodyHandlers.ofString())));
        // the second key has a wait to spare, its tenant has none once every open wait is in;
        // a probe holds a place while it waits, so an open wait refused meanwhile asks again
        Response more = null;
        for (int i = 0; i < 15; i++) {
            for (int w = 0; w < open.size(); w++) {
                if (open.get(w).isDone() && open.get(w).join().statusCode() == 429) {
                    open.set(w, http.sendAsync(requests.get(w), HttpResponse.BodyHandlers.ofString()));
                }
            }
            more = as(second).get("/v1/jobs/" + id + "?wait=1");
            if (more.statusCode() != 200 && open.stream().noneMatch(CompletableFuture::isDone)) {
                break;
            }
        }
        assertTooMany(more);
        assertTrue(more.jsonPath().getString("detail").contains("tenant"), more.asString());
        // another tenant's key still waits
        String patient = key(Api.tenant("patient", Map.of()), "member");
        String other = read(as(patient).body(Map.of("language", "bash", "code", "true")).post("/v1/jobs")
                .then().statusCode(201).extract().asString(), "id");
        as(patient).get("/v1/jobs/" + other + "?wait=1").then().statusCode(200);

        as(first).post("/v1/jobs/" + id + "/cancel").then().statusCode(202);
        for (CompletableFuture<HttpResponse<String>> wait : open) {
            assertEquals(200, wait.get().statusCode());
        }
        as(second).get("/v1/jobs/" + id + "?wait=1").then().statusCode(200); // the tenant's waits were given back
    }

    @Test
    @Order(7)
    void aJsonRpcBatchCannotCarryManyCallsInOneRequest() {
        String tenant = Api.tenant("batcher", Map.of());
        String member = key(tenant, "member");
        McpWire wire = new McpWire(base);
        McpWire.Session session = wire.open(member);
        JsonArray batch = new JsonArray();
        for (int i = 0; i < 300; i++) {
            batch.add(McpWire.toolCall(i, "submit_job", Map.of("language", "bash", "code", "echo " + i)));
        }
        HttpResponse<String> answer = McpWire.send(wire.mcp(member, session.id())
                .POST(HttpRequest.BodyPublishers.ofString(batch.encode())).build());
        assertEquals(400, answer.statusCode(), answer.body());
        JsonObject error = new JsonObject(answer.body()).getJsonObject("error");
        assertEquals(-32600, error.getInteger("code"), answer.body());
        assertTrue(error.getString("message").contains("batches are not supported"), answer.body());
        // the SSE transport's message endpoint takes no batch either
        try (McpWire.SseSession sse = wire.openSse(member)) {
            HttpResponse<String> sseAnswer = McpWire.send(HttpRequest.newBuilder(base.resolve(sse.endpoint()))
                    .header("Content-Type", "application/json").header("Authorization", "Bearer " + member)
                    .POST(HttpRequest.BodyPublishers.ofString(batch.encode())).build());
            assertEquals(400, sseAnswer.statusCode(), sseAnswer.body());
            assertEquals(-32600, new JsonObject(sseAnswer.body()).getJsonObject("error").getInteger("code"));
        }
        // the refusals were answered: nothing of either batch is still on its way in
        assertEquals(List.of(), as(member).get("/v1/jobs").then().statusCode(200).extract().jsonPath().getList("items"));
    }
}
