package dev.nixexec.api;

import static dev.nixexec.testing.Api.as;
import static dev.nixexec.testing.Api.key;
import static dev.nixexec.testing.Api.submit;
import static dev.nixexec.testing.Api.tenant;
import static dev.nixexec.testing.JsonBody.json;
import static dev.nixexec.testing.JsonBody.read;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.everyItem;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.sandbox.Cgroups;
import dev.nixexec.testing.NixSpy;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Per-job {@code limits} and measured {@code usage} end to end: real PostgreSQL, nix, bubblewrap
 * and the host's cgroups (v1 here). The service's own limits in the test profile are the defaults:
 * 512 MiB, 256 processes, 1 MiB of output per stream, CPU up to the 10 min longest timeout.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
class JobLimitsApiTest {

    @Inject
    Cgroups cgroups;

    String member;

    @BeforeEach
    void tenantAndKey() {
        member = key(tenant("limits", null), "member");
    }

    private JsonPath run(String key, Map<String, Object> body) {
        return as(key).body(body).post("/v1/jobs?wait=120").then().statusCode(200).extract().jsonPath();
    }

    private List<String> refusedFields(String key, Map<String, Object> body) {
        return read(as(key).body(body).post("/v1/jobs").then().statusCode(400).contentType("application/problem+json")
                .extract().asString(), "errors.field");
    }

    @Test
    void limitsBeyondTheServicesAreRefusedEveryProblemAtOnceAndNothingIsStored() {
        int before = read(as(member).get("/v1/jobs?limit=200").then().extract().asString(), "items.size()");
        assertEquals(List.of("language", "limits.memory", "limits.pids", "limits.cpu_seconds", "limits.output_bytes"),
                refusedFields(member, Map.of("language", "cobol", "code", "x", "limits", Map.of("memory", "1GiB",
                        "pids", 257, "cpu_seconds", 601, "output_bytes", "2MiB"))));
        // the form of each: every problem at once, each under its own name
        assertEquals(List.of("limits.wall_time", "limits.memory", "limits.pids", "limits.cpu_seconds",
                "limits.output_bytes"), refusedFields(member, Map.of("language", "bash", "code", "true", "limits",
                Map.of("memory", "64 megs", "pids", 2.5, "cpu_seconds", "1", "output_bytes", -5, "wall_time", 1))));
        as(member).body(Map.of("language", "bash", "code", "true", "limits", "big")).post("/v1/jobs").then()
                .statusCode(400).body(json("errors[0].field", equalTo("limits")));
        // a size meant as KB but sent as bytes is caught by the floor, with a hint
        as(member).body(Map.of("language", "bash", "code", "true", "limits", Map.of("memory", 128000)))
                .post("/v1/jobs").then().statusCode(400).body(json("errors[0].field", equalTo("limits.memory")))
                .body(json("errors[0].message", containsString("64MiB")));
        int after = read(as(member).get("/v1/jobs?limit=200").then().extract().asString(), "items.size()");
        assertEquals(before, after);
    }

    @Test
    void aTenantsCapsBoundWhatItsJobsAskAndNarrowWhatTheyLeaveOut() {
        String capped = key(tenant("capped", Map.of("max_memory_bytes", 64L << 20, "max_pids", 32,
                "max_cpu_seconds", 5, "max_output_bytes", 1000)), "member");
        List<String> refused = read(as(capped).body(Map.of("language", "bash", "code", "true", "limits", Map.of(
                        "memory", "128MiB", "pids", 64, "cpu_seconds", 10, "output_bytes", "2KB")))
                .post("/v1/jobs").then().statusCode(400).body(json("errors.message", everyItem(containsString("for this tenant"))))
                .extract().asString(), "errors.field");
        assertEquals(List.of("limits.memory", "limits.pids", "limits.cpu_seconds", "limits.output_bytes"), refused);
        // within the caps it runs; left out, the caps apply (64 MiB here, not the service's 512 MiB)
        JsonPath job = run(capped, Map.of("language", "python", "code", "s = 'x' * (200 * 1024 * 1024)"));
        assertEquals("failed", job.getString("status"), job.prettify());
        if (cgroups.available()) {
            assertEquals("memory", job.getString("limit_hit"), job.prettify());
        }
        JsonPath printed = run(capped, Map.of("language", "bash", "code", "printf '%02000d' 0",
                "limits", Map.of("output_bytes", 900)));
        assertTrue(printed.getBoolean("stdout_truncated"), printed.prettify());
        assertEquals(2000, printed.getInt("stdout_bytes"));
    }

    @Test
    void memoryLimitEndsAJobThatAllocatesMore() {
        JsonPath job = run(member, Map.of("language", "python", "code", "s = 'x' * (200 * 1024 * 1024)\nprint('survived')",
                "limits", Map.of("memory", "64MiB")));
        assertEquals("failed", job.getString("status"), job.prettify());
        assertEquals("", job.getString("stdout"));
        if (cgroups.available()) {
            assertEquals("memory", job.getString("limit_hit"), job.prettify());
            assertEquals(137, job.getInt("exit_code"));
            long peak = job.getLong("usage.max_rss_bytes");
            assertTrue(peak > 32L << 20 && peak <= 64L << 20, "the peak is the run's, within its limit: " + peak);
        }
    }

    @Test
    void pidsLimitStopsAForkBomb() {
        JsonPath job = run(member, Map.of("language", "python", "code", """
                import os, time
                n = 0
                try:
                    for i in range(500):
                        if os.fork() == 0:
                            time.sleep(30)
                            os._exit(0)
                        n += 1
                except OSError as e:
                    print('fork refused after', n)
                """, "limits", Map.of("pids", 20), "timeout", "20s"));
        assertTrue(job.getString("stdout").startsWith("fork refused after"), job.prettify());
        int forked = Integer.parseInt(job.getString("stdout").replaceAll("\\D+", ""));
        assertTrue(forked > 0 && forked < 20, "forked " + forked);
    }

    @Test
    void cpuSecondsEndABusyLoop() {
        long start = System.nanoTime();
        JsonPath job = run(member, Map.of("language", "python", "code", "while True: pass",
                "limits", Map.of("cpu_seconds", 1), "timeout", "60s"));
        assertEquals("failed", job.getString("status"), job.prettify());
        assertEquals("cpu_time", job.getString("limit_hit"), job.prettify());
        assertTrue((System.nanoTime() - start) / 1_000_000_000 < 30, "ended by CPU time, not the wall timeout");
        if (cgroups.available()) {
            // the kernel holds RLIMIT_CPU against CPU time sampled at its ticks, which can run ahead
            // of the cgroup's exact count when the job shares a core: 891 ms on a busy machine
            long cpu = job.getLong("usage.cpu_ms");
            assertTrue(cpu >= 700 && cpu < 3000, "about the one second it was allowed: " + cpu);
        }
    }

    @Test
    void outputBytesTruncate() {
        JsonPath job = run(member, Map.of("language", "bash", "code", "printf '%01000d' 0",
                "limits", Map.of("output_bytes", 100)));
        assertEquals("succeeded", job.getString("status"), job.prettify());
        assertTrue(job.getBoolean("stdout_truncated"));
        assertEquals(1000, job.getInt("stdout_bytes"), "the true count");
        assertEquals("0".repeat(50) + "\n[... 900 bytes truncated ...]\n" + "0".repeat(50), job.getString("stdout"));
    }

    @Test
    void usageIsMeasuredAndShownInGetListAndTheResultEvent() {
        String id = submit(member, Map.of("language", "python",
                "code", "x = bytearray(b'1' * (50 * 1024 * 1024))\nprint(sum(range(3_000_000)))"));
        JsonPath job = as(member).get("/v1/jobs/" + id + "?wait=120").then().statusCode(200).extract().jsonPath();
        assertEquals("succeeded", job.getString("status"), job.prettify());
        Map<String, Object> usage = job.getMap("usage");
        if (!cgroups.available()) {
            assertNull(usage, "nothing measured, nothing shown");
            return;
        }
        long cpu = job.getLong("usage.cpu_ms");
        long peak = job.getLong("usage.max_rss_bytes");
        assertTrue(cpu > 0 && cpu < job.getLong("duration_ms") + 1000, job.prettify());
        assertTrue(peak >= 50L << 20 && peak <= 512L << 20, "the 50 MiB it held, within the limit: " + peak);
        Map<String, Object> listed = as(member).get("/v1/jobs?limit=10").then().extract().jsonPath()
                .getMap("items.find { it.id == '" + id + "' }.usage");
        assertEquals(usage, listed);
        String stream = as(member).accept("text/event-stream").get("/v1/jobs/" + id + "/events").then().statusCode(200)
                .extract().asString();
        String result = stream.substring(stream.indexOf("event:result")).lines()
                .filter(line -> line.startsWith("data:")).findFirst().orElseThrow().substring(5);
        assertEquals(usage, JsonPath.from(result).getMap("usage"));
    }

    @Test
    void aJobThatNeverRanHasNoUsage() {
        String held = key(tenant("held", Map.of("max_running", 0)), "member");
        String id = submit(held, Map.of("language", "bash", "code", "true", "limits", Map.of("memory", "64MiB")));
        as(held).post("/v1/jobs/" + id + "/cancel").then().statusCode(202);
        JsonPath job = as(held).get("/v1/jobs/" + id).then().statusCode(200).extract().jsonPath();
        assertEquals("cancelled", job.getString("status"));
        assertNull(job.get("usage"), job.prettify());
    }

    @Test
    void anIdempotencyKeyReusedWithOtherLimitsIsAConflict() {
        Map<String, Object> body = Map.of("language", "bash", "code", "true", "limits", Map.of("memory", "64MiB"));
        String first = read(as(member).header("Idempotency-Key", "lim-1").body(body).post("/v1/jobs").then()
                .statusCode(201).extract().asString(), "id");
        assertNotNull(first);
        as(member).header("Idempotency-Key", "lim-1").body(body).post("/v1/jobs").then().statusCode(200)
                .body(json("id", equalTo(first)));
        as(member).header("Idempotency-Key", "lim-1").body(Map.of("language", "bash", "code", "true",
                "limits", Map.of("memory", "128MiB"))).post("/v1/jobs").then().statusCode(409);
    }

    @Test
    void aSessionsExecTakesLimitsToo() {
        String session = read(as(member).body(Map.of("packages", List.of("hello"))).post("/v1/sessions?wait=60").then()
                .statusCode(201).body(json("status", equalTo("ready"))).extract().asString(), "id");
        JsonPath job = as(member).body(Map.of("command", List.of("bash", "-c", "printf '%0100d' 0"),
                "limits", Map.of("output_bytes", 10))).post("/v1/sessions/" + session + "/exec?wait=60").then()
                .statusCode(200).extract().jsonPath();
        assertEquals("succeeded", job.getString("status"), job.prettify());
        assertTrue(job.getBoolean("stdout_truncated"), job.prettify());
        as(member).body(Map.of("command", List.of("true"), "limits", Map.of("pids", 0)))
                .post("/v1/sessions/" + session + "/exec").then().statusCode(400)
                .body(json("errors[0].field", equalTo("limits.pids")));
    }
}
