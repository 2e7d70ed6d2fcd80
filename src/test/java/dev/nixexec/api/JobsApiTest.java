package dev.nixexec.api;

import static dev.nixexec.testing.Api.ADMIN;
import static dev.nixexec.testing.Api.as;
import static dev.nixexec.testing.Api.awaitEvent;
import static dev.nixexec.testing.Api.key;
import static dev.nixexec.testing.Api.submit;
import static dev.nixexec.testing.Api.tenant;
import static dev.nixexec.testing.JsonBody.json;
import static dev.nixexec.testing.JsonBody.read;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.notNullValue;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.testing.NixSpy;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The REST contract end to end: real PostgreSQL, real nix, real bubblewrap. */
@QuarkusTest
@WithTestResource(NixSpy.class)
class JobsApiTest {

    String memberA;
    String memberB;
    String auditorA;

    @BeforeEach
    void tenants() {
        String a = tenant("a", null);
        memberA = key(a, "member");
        auditorA = key(a, "auditor");
        memberB = key(tenant("b", null), "member");
    }

    @Test
    void submitWaitAndRead() {
        String id = submit(memberA, Map.of("language", "python", "code", "import sys\nprint('hello', sys.stdin.read())",
                "stdin", "world", "metadata", Map.of("ticket", 7)));
        as(memberA).get("/v1/jobs/" + id + "?wait=60").then().statusCode(200)
                .body(json("status", equalTo("succeeded")))
                .body(json("exit_code", equalTo(0)))
                .body(json("stdout", equalTo("hello world\n")))
                .body(json("stdout_bytes", equalTo(12)))
                .body(json("stdout_truncated", equalTo(false)))
                .body(json("environment.store_path", startsWith("/nix/store/")))
                .body(json("environment.nixpkgs_revision", notNullValue()))
                .body(json("metadata.ticket", equalTo(7)))
                .body(json("error", equalTo(null)))
                .body(json("started_at", notNullValue()))
                .body(json("finished_at", notNullValue()));
    }

    @Test
    void submitWithWaitReturnsTheFinishedJob() {
        Map<String, Object> waited = as(memberA).body(Map.of("language", "bash", "code", "echo hi; exit 3"))
                .post("/v1/jobs?wait=60").then().statusCode(200).body(json("status", equalTo("failed")))
                .body(json("exit_code", equalTo(3))).body(json("stdout", equalTo("hi\n"))).extract().jsonPath().getMap("");
        // the waiter on the node that ran the job gets it handed over, not read back: it must be the stored job
        assertEquals(as(memberA).get("/v1/jobs/" + waited.get("id")).then().extract().jsonPath().getMap(""), waited);
    }

    @Test
    void outputWithNulCharactersIsStored() {
        // PostgreSQL text cannot hold U+0000: the stored text shows each as U+FFFD, the byte counts stay true
        as(memberA).body(Map.of("language", "bash", "code", "printf 'a\\0b'; printf 'c\\0' >&2")).post("/v1/jobs?wait=60")
                .then().statusCode(200).body(json("status", equalTo("succeeded")))
                .body(json("stdout", equalTo("a\uFFFDb"))).body(json("stdout_bytes", equalTo(3)))
                .body(json("stderr", equalTo("c\uFFFD"))).body(json("stderr_bytes", equalTo(2)));
    }

    @Test
    void unknownPackageIsAJobError() {
        as(memberA).body(Map.of("language", "python", "code", "1", "packages", List.of("python3Packages.nosuch")))
                .post("/v1/jobs?wait=60").then().statusCode(200).body(json("status", equalTo("error")))
                .body(json("error.code", equalTo("unknown_package")))
                .body(json("error.message", containsString("python3Packages.nosuch")));
    }

    @Test
    void tenantsSeeOnlyTheirOwnJobs() {
        String id = submit(memberA, Map.of("language", "bash", "code", "echo secret"));
        as(memberB).get("/v1/jobs/" + id).then().statusCode(404).contentType("application/problem+json");
        as(memberB).post("/v1/jobs/" + id + "/cancel").then().statusCode(404);
        as(memberB).get("/v1/jobs/" + id + "/events").then().statusCode(404);
        List<String> listed = read(as(memberB).get("/v1/jobs").then().statusCode(200).extract().asString(), "items.id");
        assertTrue(!listed.contains(id));
        as(auditorA).get("/v1/jobs/" + id).then().statusCode(200);
        as(memberA).get("/v1/jobs?limit=10").then().statusCode(200).body(json("items.id", hasItem(id)));
    }

    @Test
    void authentication() {
        given().get("/v1/jobs").then().statusCode(401).contentType("application/problem+json")
                .body(json("status", equalTo(401)));
        as("nx_not_a_key").get("/v1/jobs").then().statusCode(401);
        given().header("Authorization", "Basic abc").get("/v1/languages").then().statusCode(401);
        as(auditorA).body(Map.of("language", "bash", "code", "true")).post("/v1/jobs").then().statusCode(403);
        as(memberA).body(Map.of("name", "x")).post("/v1/admin/tenants").then().statusCode(403);
        as(memberA).get("/v1/nodes").then().statusCode(403);
        as(memberA).get("/v1/audit").then().statusCode(403);
    }

    @Test
    void revokedKeysStopWorking() {
        String tenantId = tenant("r", null);
        Response created = as(ADMIN).body(Map.of("role", "member")).post("/v1/admin/tenants/" + tenantId + "/keys");
        String key = created.path("key");
        as(key).get("/v1/jobs").then().statusCode(200);
        as(ADMIN).delete("/v1/admin/keys/" + created.path("id")).then().statusCode(204);
        as(key).get("/v1/jobs").then().statusCode(401);
        as(ADMIN).delete("/v1/admin/keys/" + UUID.randomUUID()).then().statusCode(404);
    }

    @Test
    void badInputIsRefusedAndNothingIsStored() {
        int before = read(as(memberA).get("/v1/jobs?limit=200").then().extract().asString(), "items.size()");
        as(memberA).body(Map.of("language", "cobol", "code", "x")).post("/v1/jobs").then().statusCode(400)
                .contentType("application/problem+json").body(json("errors[0].field", equalTo("language")));
        as(memberA).body(Map.of("language", "python", "code", "1", "packages", List.of("--impure"))).post("/v1/jobs")
                .then().statusCode(400).body(json("errors[0].field", equalTo("packages[0]")));
        as(memberA).body(Map.of("language", "python", "code", "1", "env", Map.of("LD_PRELOAD", "/x.so"))).post("/v1/jobs")
                .then().statusCode(400).body(json("errors[0].field", equalTo("env")));
        as(memberA).body(Map.of("language", "python", "code", "1", "timeout", "soon")).post("/v1/jobs")
                .then().statusCode(400).body(json("errors[0].field", equalTo("timeout")));
        as(memberA).body(Map.of("language", "python", "code", "")).post("/v1/jobs").then().statusCode(400);
        as(memberA).body(Map.of("language", "python", "code", "1", "pakages", List.of())).post("/v1/jobs")
                .then().statusCode(400).body(json("detail", containsString("pakages")));
        as(memberA).body("{not json").post("/v1/jobs").then().statusCode(400);
        as(memberA).body(Map.of("language", "python", "code", "#" + "x".repeat(2 << 20))).post("/v1/jobs")
                .then().statusCode(413).contentType("application/problem+json");
        as(memberA).body(Map.of("language", "python", "code", "1", "metadata", Map.of("note", "x".repeat(20_000))))
                .post("/v1/jobs").then().statusCode(413).body(json("errors[0].field", equalTo("metadata")));
        as(memberA).body(Map.of("language", "python", "code", "1", "network", "full")).post("/v1/jobs")
                .then().statusCode(400).body(json("errors[0].field", equalTo("network")));
        as(memberA).get("/v1/jobs?status=nonsense").then().statusCode(400);
        as(memberA).get("/v1/jobs/not-a-uuid").then().statusCode(404);
        as(memberA).get("/v1/jobs/" + UUID.randomUUID() + "?wait=99999999999").then().statusCode(400)
                .body(json("errors[0].field", equalTo("wait")));
        int after = read(as(memberA).get("/v1/jobs?limit=200").then().extract().asString(), "items.size()");
        assertEquals(before, after);
    }

    /** A job with network gets the environment's CA bundle where OpenSSL looks; one without, none. */
    @Test
    void aJobWithNetworkHasACaBundle() {
        String key = key(tenant("net", Map.of("network", true)), "member");
        String code = """
                import os, ssl
                bundle = os.environ.get("SSL_CERT_FILE")
                print(bundle is not None and os.path.isfile(bundle), ssl.create_default_context().cert_store_stats()["x509_ca"] > 0)
                """;
        as(key).body(Map.of("language", "python", "code", code, "network", "full")).post("/v1/jobs?wait=120")
                .then().statusCode(200).body(json("status", equalTo("succeeded"))).body(json("stdout", equalTo("True True\n")));
        as(key).body(Map.of("language", "python", "code", code)).post("/v1/jobs?wait=120")
                .then().statusCode(200).body(json("status", equalTo("succeeded"))).body(json("stdout", startsWith("False")));
    }

    @Test
    void idempotencyKeyGivesTheSameJobBack() {
        Map<String, Object> body = Map.of("language", "bash", "code", "echo once");
        String first = read(as(memberA).header("Idempotency-Key", "k-1").body(body).post("/v1/jobs")
                .then().statusCode(201).extract().asString(), "id");
        String again = read(as(memberA).header("Idempotency-Key", "k-1").body(body).post("/v1/jobs")
                .then().statusCode(200).extract().asString(), "id");
        assertEquals(first, again);
        as(memberA).header("Idempotency-Key", "k-1").body(Map.of("language", "bash", "code", "echo other"))
                .post("/v1/jobs").then().statusCode(409).contentType("application/problem+json");
        String otherTenant = read(as(memberB).header("Idempotency-Key", "k-1").body(body).post("/v1/jobs")
                .then().statusCode(201).extract().asString(), "id");
        assertNotEquals(first, otherTenant);
    }

    /**
     * Submissions that arrive together share a commit (group commit for intake): each is still
     * stored, refused, or given its idempotency key's one job, as if it had come alone.
     */
    @Test
    void submissionsThatArriveTogetherAreEachStoredOrRefusedOnTheirOwn() throws Exception {
        String held = tenant("together", Map.of("max_running", 0));
        String member = key(held, "member");
        Map<String, Object> plain = Map.of("language", "bash", "code", "echo together");
        Map<String, Object> refused = Map.of("language", "bash", "code", "echo hook", "callback_url", "https://example.com/h");
        int callers = 24;
        java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
        List<java.util.concurrent.Future<Response>> answers = new java.util.ArrayList<>();
        try (var pool = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < callers; i++) {
                int n = i;
                answers.add(pool.submit(() -> {
                    go.await();
                    return switch (n % 3) {
                        case 0 -> as(member).body(plain).post("/v1/jobs");
                        case 1 -> as(member).header("Idempotency-Key", "together").body(plain).post("/v1/jobs");
                        default -> n == 2 ? as(member).body(refused).post("/v1/jobs") : as(member).body(plain).post("/v1/jobs");
                    };
                }));
            }
            go.countDown();
        }
        java.util.Set<String> stored = new java.util.HashSet<>();
        java.util.Set<String> keyed = new java.util.HashSet<>();
        for (int i = 0; i < callers; i++) {
            Response answer = answers.get(i).get();
            if (i == 2) {
                assertEquals(400, answer.statusCode(), answer.asString());
                continue;
            }
            assertTrue(answer.statusCode() == 201 || (i % 3 == 1 && answer.statusCode() == 200), answer.asString());
            String id = answer.path("id");
            stored.add(id);
            if (i % 3 == 1) {
                keyed.add(id);
            }
            as(member).get("/v1/jobs/" + id).then().statusCode(200).body(json("status", equalTo("queued")));
        }
        assertEquals(1, keyed.size(), "one job for the idempotency key: " + keyed);
        assertEquals(callers - 8 - 1 + 1, stored.size());
        as(member).get("/v1/jobs?limit=100").then().body(json("items.size()", equalTo(stored.size())));
    }

    @Test
    void capsAndCancelOfAQueuedJob() {
        String held = tenant("held", Map.of("max_running", 0, "max_queued", 1));
        String member = key(held, "member");
        String id = submit(member, Map.of("language", "bash", "code", "echo never"));
        as(member).body(Map.of("language", "bash", "code", "echo two")).post("/v1/jobs").then().statusCode(429)
                .contentType("application/problem+json");
        as(member).get("/v1/jobs/" + id + "?wait=1").then().body(json("status", equalTo("queued")));
        as(member).post("/v1/jobs/" + id + "/cancel").then().statusCode(202).body(json("status", equalTo("cancelled")));
        as(member).get("/v1/jobs/" + id).then().body(json("status", equalTo("cancelled")));
        as(member).post("/v1/jobs/" + id + "/cancel").then().statusCode(202).body(json("status", equalTo("cancelled")));
    }

    @Test
    void cancelOfARunningJob() throws Exception {
        String id = submit(memberA, Map.of("language", "python",
                "code", "import time\nprint('started', flush=True)\ntime.sleep(60)", "timeout", "90s"));
        awaitEvent(memberA, id, "started");
        as(memberA).get("/v1/jobs/" + id).then().body(json("status", equalTo("running")));
        long start = System.nanoTime();
        as(memberA).post("/v1/jobs/" + id + "/cancel").then().statusCode(202);
        as(memberA).get("/v1/jobs/" + id + "?wait=10").then().body(json("status", equalTo("cancelled")))
                .body(json("stdout", equalTo("started\n")));
        assertTrue((System.nanoTime() - start) / 1_000_000 < 5_000, "cancel took too long");
    }

    @Test
    void timeoutKeepsTheOutputPrintedSoFar() {
        String id = submit(memberA, Map.of("language", "python",
                "code", "import time\nprint('before', flush=True)\ntime.sleep(30)", "timeout", 1));
        as(memberA).get("/v1/jobs/" + id + "?wait=60").then().body(json("status", equalTo("timed_out")))
                .body(json("timed_out", equalTo(true))).body(json("stdout", equalTo("before\n")));
    }

    @Test
    void eventsFollowAJobAndResume() {
        String id = submit(memberA, Map.of("language", "bash", "code", "echo one; sleep 1; echo two >&2"));
        String stream = as(memberA).accept("text/event-stream").get("/v1/jobs/" + id + "/events")
                .then().statusCode(200).extract().asString();
        assertTrue(stream.contains("event:stdout") && stream.contains("data:one"), stream);
        assertTrue(stream.contains("event:stderr") && stream.contains("data:two"), stream);
        assertTrue(stream.contains("event:result"), stream);
        assertTrue(stream.indexOf("data:queued") < stream.indexOf("data:running"), stream);
        String result = stream.substring(stream.indexOf("event:result")).lines()
                .filter(line -> line.startsWith("data:")).findFirst().orElseThrow().substring(5);
        io.restassured.path.json.JsonPath job = io.restassured.path.json.JsonPath.from(result);
        assertEquals(id, job.getString("id"));
        assertEquals("succeeded", job.getString("status"));
        assertEquals("one\n", job.getString("stdout"));
        assertEquals("two\n", job.getString("stderr"));
        String resumed = as(memberA).accept("text/event-stream").header("Last-Event-ID", "3")
                .get("/v1/jobs/" + id + "/events").then().statusCode(200).extract().asString();
        assertTrue(!resumed.contains("data:queued") && resumed.contains("event:result"), resumed);
        // a client that names no type gets the event stream it always got
        String plain = given().header("Authorization", "Bearer " + memberA).get("/v1/jobs/" + id + "/events")
                .then().statusCode(200).extract().asString();
        assertTrue(plain.contains("event:result"), plain);
        // past the end: the result alone, so the stream still ends
        String pastTheEnd = as(memberA).accept("text/event-stream").header("Last-Event-ID", "999")
                .get("/v1/jobs/" + id + "/events").then().statusCode(200).extract().asString();
        assertEquals(1, pastTheEnd.lines().filter(l -> l.startsWith("event:")).count(), pastTheEnd);
        assertTrue(pastTheEnd.contains("event:result"), pastTheEnd);
    }

    @Test
    void eventsAsNdjson() throws Exception {
        String id = submit(memberA, Map.of("language", "bash", "code", "echo one; echo two >&2"));
        String stream = as(memberA).accept("application/x-ndjson").get("/v1/jobs/" + id + "/events")
                .then().statusCode(200).contentType(startsWith("application/x-ndjson")).extract().asString();
        List<com.fasterxml.jackson.databind.JsonNode> lines = new java.util.ArrayList<>();
        for (String line : stream.lines().toList()) {
            lines.add(new com.fasterxml.jackson.databind.ObjectMapper().readTree(line));
        }
        assertEquals(List.of("lifecycle", "lifecycle", "lifecycle"),
                lines.subList(0, 3).stream().map(l -> l.path("type").asText()).toList(), stream);
        assertEquals("queued", lines.get(0).path("payload").path("status").asText());
        assertTrue(lines.stream().anyMatch(l -> l.path("type").asText().equals("stdout")
                && l.path("payload").path("text").asText().equals("one\n")), stream);
        com.fasterxml.jackson.databind.JsonNode result = lines.get(lines.size() - 1);
        assertEquals("result", result.path("type").asText());
        assertEquals(id, result.path("payload").path("id").asText());
        assertEquals("two\n", result.path("payload").path("stderr").asText());
        for (int i = 1; i < lines.size(); i++) {
            assertTrue(lines.get(i).path("sequence").asInt() > lines.get(i - 1).path("sequence").asInt(), stream);
        }
        String resumed = as(memberA).accept("application/x-ndjson").header("Last-Event-ID", "2")
                .get("/v1/jobs/" + id + "/events").then().statusCode(200).extract().asString();
        assertEquals(stream.lines().skip(2).toList(), resumed.lines().toList());
    }

    @Test
    void languagesNodesAndAudit() {
        as(memberA).get("/v1/languages").then().statusCode(200)
                .body(json("language", contains("python", "bash", "node", "haskell", "lua", "ruby", "perl", "octave")))
                .body(json("find { it.language == 'python' }.package_set", equalTo("python3Packages")));
        as(ADMIN).get("/v1/nodes").then().statusCode(200).body(json("size()", org.hamcrest.Matchers.greaterThan(0)))
                .body(json("[0].concurrency", notNullValue()));
        String id = submit(memberA, Map.of("language", "bash", "code", "echo audited", "env", Map.of("SECRET_NAME", "value")));
        as(memberA).get("/v1/jobs/" + id + "?wait=60").then().body(json("status", equalTo("succeeded")));
        List<String> kinds = read(as(auditorA).get("/v1/audit?job_id=" + id).then().statusCode(200).extract().asString(), "items.kind");
        assertEquals(List.of("finished", "started", "environment", "claimed", "submitted"), kinds);
        as(auditorA).get("/v1/audit?job_id=" + id).then()
                .body(json("items.find { it.kind == 'submitted' }.detail.env_names", contains("SECRET_NAME")))
                .body(json("items.find { it.kind == 'submitted' }.key_id", notNullValue()))
                .body(json("items.find { it.kind == 'claimed' }.detail.attempt", equalTo(1)))
                .body(json("items.find { it.kind == 'environment' }.detail.store_path", startsWith("/nix/store/")))
                .body(json("items.find { it.kind == 'environment' }.detail.cache_hit", notNullValue()))
                .body(json("items.find { it.kind == 'started' }.node_id", notNullValue()))
                .body(json("items.find { it.kind == 'finished' }.detail.status", equalTo("succeeded")))
                .body(json("items.find { it.kind == 'finished' }.detail.exit_code", equalTo(0)));
        String audit = as(auditorA).get("/v1/audit?job_id=" + id).asString();
        assertTrue(audit.contains("SECRET_NAME") && !audit.contains("value\""), audit);
    }
}
