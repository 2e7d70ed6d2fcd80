package dev.nixexec.api;

import static dev.nixexec.testing.Api.as;
import static dev.nixexec.testing.Api.key;
import static dev.nixexec.testing.Api.submit;
import static dev.nixexec.testing.Api.tenant;
import static dev.nixexec.testing.JsonBody.json;
import static dev.nixexec.testing.JsonBody.read;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasKey;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.logging.JobLogContext;
import dev.nixexec.testing.NixSpy;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.jboss.logmanager.ExtLogRecord;
import org.junit.jupiter.api.Test;

/** /q/metrics moves with real jobs, /q/openapi documents the API and its auth, job log lines carry the job. */
@QuarkusTest
@WithTestResource(NixSpy.class)
class ObservabilityTest {

    @TestHTTPResource("/")
    URL base;

    static String scrape() {
        return given().get("/q/metrics").then().statusCode(200).extract().asString();
    }

    /** Sum of the samples of {@code name} whose labels include all of {@code labels}. */
    static double sample(String text, String name, Map<String, String> labels) {
        double sum = 0;
        for (String line : text.split("\n")) {
            if (line.startsWith("#") || !(line.startsWith(name + "{") || line.startsWith(name + " "))) {
                continue;
            }
            String labelPart = line.contains("{") ? line.substring(line.indexOf('{'), line.lastIndexOf('}') + 1) : "";
            if (labels.entrySet().stream().allMatch(l -> labelPart.contains(l.getKey() + "=\"" + l.getValue() + "\""))) {
                sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return sum;
    }

    @Test
    void metricsCountARealJob() {
        String tenantName = "metrics-" + java.util.UUID.randomUUID().toString().substring(0, 8);
        String member = key(read(as(dev.nixexec.testing.Api.ADMIN).body(Map.of("name", tenantName)).post("/v1/admin/tenants")
                .then().statusCode(201).extract().asString(), "id"), "member");
        String before = scrape();
        String id = submit(member, Map.of("language", "bash", "code", "echo metrics"));
        as(member).get("/v1/jobs/" + id + "?wait=60").then().statusCode(200).body(json("status", equalTo("succeeded")));
        // the finish is counted after its transaction commits, a moment after the job reads as finished
        String after = waitFor(() -> scrape(), text -> sample(text, "nixexec_jobs_finished_total",
                Map.of("status", "succeeded", "language", "bash")) > sample(before, "nixexec_jobs_finished_total",
                Map.of("status", "succeeded", "language", "bash")));
        assertEquals(1, delta(before, after, "nixexec_jobs_submitted_total", Map.of("language", "bash")));
        assertEquals(1, delta(before, after, "nixexec_jobs_finished_total", Map.of("status", "succeeded", "language", "bash")));
        assertEquals(1, delta(before, after, "nixexec_job_run_seconds_count", Map.of("language", "bash")));
        assertEquals(1, delta(before, after, "nixexec_environment_cache_total", Map.of()));
        assertEquals(1, delta(before, after, "nixexec_environment_build_seconds_count", Map.of()));
        assertEquals(1, delta(before, after, "nixexec_jobs_claim_latency_seconds_count", Map.of()));
        // the counters carry the tenant: its name while the node names fewer than nixexec.jobs.metric-tenants
        // (TenantLabelsTest), else "other"; every series of them has a tenant label
        String tenantLabel = after.lines().filter(l -> l.startsWith("nixexec_jobs_submitted_total{"))
                .filter(l -> l.contains("tenant=\"" + tenantName + "\"")).findAny().isPresent() ? tenantName : "other";
        assertEquals(1, delta(before, after, "nixexec_jobs_submitted_total", Map.of("language", "bash", "tenant", tenantLabel)));
        assertEquals(1, delta(before, after, "nixexec_jobs_finished_total",
                Map.of("status", "succeeded", "language", "bash", "tenant", tenantLabel)));
        assertTrue(after.lines().filter(l -> l.startsWith("nixexec_jobs_submitted_total{") || l.startsWith("nixexec_jobs_finished_total{"))
                .allMatch(l -> l.contains("tenant=\"")), after);
        for (String gauge : List.of("nixexec_queue_depth", "nixexec_queue_oldest_age_seconds", "nixexec_sse_followers",
                "nixexec_sandbox_failures_total")) {
            assertTrue(after.lines().anyMatch(l -> l.startsWith(gauge + " ") || l.startsWith(gauge + "{")), gauge + " in\n" + after);
        }
    }

    @Test
    void queueGaugesCountQueuedJobs() {
        // a tenant whose running cap is 0 keeps its jobs queued, so the gauge has something to count
        String member = key(tenant("stuck", Map.of("max_running", 0)), "member");
        submit(member, Map.of("language", "bash", "code", "true"));
        submit(member, Map.of("language", "bash", "code", "true"));
        String text = waitFor(ObservabilityTest::scrape, t -> sample(t, "nixexec_queue_depth", Map.of()) >= 2);
        assertTrue(sample(text, "nixexec_queue_oldest_age_seconds", Map.of()) >= 0);
    }

    @Test
    void followersAreCounted() throws Exception {
        // a running cap of 0 keeps the job queued, so the follower stays until the job is cancelled
        String member = key(tenant("follow", Map.of("max_running", 0)), "member");
        String id = submit(member, Map.of("language", "bash", "code", "true"));
        double before = sample(scrape(), "nixexec_sse_followers", Map.of());
        HttpClient client = HttpClient.newHttpClient();
        HttpRequest request = HttpRequest.newBuilder(URI.create(base + "v1/jobs/" + id + "/events"))
                .header("Authorization", "Bearer " + member).build();
        HttpResponse<java.io.InputStream> response = client.send(request, HttpResponse.BodyHandlers.ofInputStream());
        assertEquals(200, response.statusCode());
        try (BufferedReader events = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
            waitFor(ObservabilityTest::scrape, t -> sample(t, "nixexec_sse_followers", Map.of()) == before + 1);
            as(member).post("/v1/jobs/" + id + "/cancel").then().statusCode(202);
            String line;
            while ((line = events.readLine()) != null && !line.equals("event:result")) {
                // read to the end of the job
            }
        }
        waitFor(ObservabilityTest::scrape, t -> sample(t, "nixexec_sse_followers", Map.of()) == before);
    }

    @Test
    void openApiListsTheJobsAndTheBearerScheme() {
        given().accept("application/json").get("/q/openapi?format=json").then().statusCode(200)
                .body(json("paths", hasKey("/v1/jobs")))
                .body(json("paths", hasKey("/v1/jobs/{id}/events")))
                .body(json("components.securitySchemes.bearer.type", equalTo("http")))
                .body(json("components.securitySchemes.bearer.scheme", equalTo("bearer")))
                .body(json("paths.'/v1/jobs'.post.security[0]", hasKey("bearer")));
        given().get("/q/openapi?format=json").then().body(json("paths", org.hamcrest.Matchers.not(hasKey("/ui/jobs"))));
        given().get("/q/swagger-ui/").then().statusCode(200);
    }

    /** No /v1 operation is public (languages too needs a key), so each must declare the scheme. */
    @Test
    void everyV1OperationNeedsTheBearerKey() {
        Map<String, Map<String, Map<String, Object>>> paths = read(given().accept("application/json")
                .get("/q/openapi?format=json").then().statusCode(200).extract().asString(), "paths");
        List<String> operations = new java.util.ArrayList<>();
        List<String> unsecured = new java.util.ArrayList<>();
        paths.forEach((path, item) -> {
            if (!path.startsWith("/v1/")) {
                return;
            }
            item.forEach((method, operation) -> {
                if (!List.of("get", "put", "post", "delete", "patch", "head", "options").contains(method)) {
                    return;
                }
                operations.add(method + " " + path);
                Object security = operation.get("security");
                if (!(security instanceof List<?> list && list.stream()
                        .anyMatch(r -> r instanceof Map<?, ?> m && m.containsKey("bearer")))) {
                    unsecured.add(method.toUpperCase() + " " + path);
                }
            });
        });
        assertTrue(operations.contains("post /v1/workspaces") && operations.contains("get /v1/jobs/{id}/artifacts/{path}"),
                "the workspace and artifact operations are in the document: " + operations);
        assertEquals(List.of(), unsecured, "operations without the bearer requirement");
    }

    @Test
    void aJobsLogLinesCarryItsIdAndTenant() {
        List<ExtLogRecord> records = new CopyOnWriteArrayList<>();
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord record) {
                if (record instanceof ExtLogRecord ext) {
                    ext.copyMdc();
                    records.add(ext);
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Logger logger = Logger.getLogger("dev.nixexec.worker");
        logger.addHandler(capture);
        try {
            String tenantId = tenant("logs", null);
            String member = key(tenantId, "member");
            String id = submit(member, Map.of("language", "bash", "code", "echo logged"));
            as(member).get("/v1/jobs/" + id + "?wait=60").then().body(json("status", equalTo("succeeded")));
            ExtLogRecord ended = waitFor(() -> records.stream()
                    .filter(r -> r.getFormattedMessage().equals("job " + id + " ended succeeded")).findFirst().orElse(null),
                    r -> r != null);
            assertEquals(id, ended.getMdc(JobLogContext.JOB_ID));
            assertEquals(tenantId, ended.getMdc(JobLogContext.TENANT_ID));
        } finally {
            logger.removeHandler(capture);
        }
    }

    private static double delta(String before, String after, String name, Map<String, String> labels) {
        return sample(after, name, labels) - sample(before, name, labels);
    }

    static <T> T waitFor(java.util.function.Supplier<T> read, java.util.function.Predicate<T> done) {
        return await().atMost(Duration.ofSeconds(20)).until(read::get, done::test);
    }
}
