package dev.nixexec.bench;

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
import java.util.Arrays;
import java.util.List;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Over HTTP against the running service: (b) submit → start on an idle worker, from the job's own
 * timestamps; (c) {@code POST /v1/jobs?wait=30} of a cached {@code print(1)} against the same
 * bubblewrap command run directly; (d) the MCP {@code run_code} round trip of the same job over
 * Streamable HTTP, interleaved with (c) so both see the same machine.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
@Tag("benchmark")
class LatencyBenchmark {

    private static final int RUNS = Integer.getInteger("bench.runs", 40);
    /** Jobs submitted before anything is measured. */
    private static final int WARMUP = Integer.getInteger("bench.warmup", 600);
    private static final String KEY = "nx_test_bootstrap_admin_secret";

    @TestHTTPResource("/v1/jobs")
    URI jobs;

    @Inject
    ObjectMapper json;

    @Test
    void latency() throws Exception {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        String body = "{\"language\":\"python\",\"code\":\"print(1)\"}";
        HttpRequest submitAndWait = HttpRequest.newBuilder(URI.create(jobs + "?wait=30"))
                .header("Authorization", "Bearer " + KEY).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        JsonNode warm = json.readTree(http.send(submitAndWait, HttpResponse.BodyHandlers.ofString()).body());
        String env = warm.path("environment").path("store_path").asText();

        McpSession mcp = new McpSession(http, json, URI.create(jobs.toString().replace("/v1/jobs", "/mcp")), KEY);
        String runCode = "{\"name\":\"run_code\",\"arguments\":{\"language\":\"python\",\"code\":\"print(1)\"}}";
        mcp.call("tools/call", runCode);

        double[] startMs = new double[RUNS];
        double[] endToEndMs = new double[RUNS];
        double[] mcpMs = new double[RUNS];
        double[] toCreatedMs = new double[RUNS];
        double[] runMs = new double[RUNS];
        double[] afterFinishMs = new double[RUNS];
        double[] bareMs = new double[RUNS];
        BareHttp bare = new BareHttp(jobs.getHost(), jobs.getPort());
        String bareRequest = BareHttp.request("POST", jobs, "?wait=30", KEY, body);
        // a running service has compiled its request path; the first requests of a fresh JVM run
        // interpreted and in the first compiler's code
        for (int i = 0; i < WARMUP; i++) {
            bare.exchange(bareRequest);
            if (i % 3 == 0) {
                mcp.call("tools/call", runCode);
            }
        }
        for (int i = 0; i < RUNS; i++) {
            Thread.sleep(50);
            long t = System.nanoTime();
            java.time.Instant sent = java.time.Instant.now();
            JsonNode job = json.readTree(http.send(submitAndWait, HttpResponse.BodyHandlers.ofString()).body());
            endToEndMs[i] = (System.nanoTime() - t) / 1e6;
            java.time.Instant received = java.time.Instant.now();
            if (!job.path("status").asText().equals("succeeded")) {
                throw new IllegalStateException("benchmark job did not succeed: " + job);
            }
            OffsetDateTime created = OffsetDateTime.parse(job.path("created_at").asText());
            OffsetDateTime startedAt = OffsetDateTime.parse(job.path("started_at").asText());
            OffsetDateTime finishedAt = OffsetDateTime.parse(job.path("finished_at").asText());
            startMs[i] = Duration.between(created, startedAt).toNanos() / 1e6;
            toCreatedMs[i] = Duration.between(sent, created.toInstant()).toNanos() / 1e6;
            runMs[i] = Duration.between(startedAt, finishedAt).toNanos() / 1e6;
            afterFinishMs[i] = Duration.between(finishedAt.toInstant(), received).toNanos() / 1e6;

            Thread.sleep(50);
            t = System.nanoTime();
            JsonNode bareJob = json.readTree(bare.exchange(bareRequest));
            bareMs[i] = (System.nanoTime() - t) / 1e6;
            if (!bareJob.path("status").asText().equals("succeeded")) {
                throw new IllegalStateException("benchmark job did not succeed: " + bareJob);
            }

            Thread.sleep(50);
            t = System.nanoTime();
            JsonNode result = mcp.call("tools/call", runCode);
            mcpMs[i] = (System.nanoTime() - t) / 1e6;
            if (!result.path("structuredContent").path("status").asText().equals("succeeded")) {
                throw new IllegalStateException("benchmark run_code did not succeed: " + result);
            }
        }

        DirectPythonRun direct = DirectPythonRun.in(env);
        double[] directMs = new double[RUNS];
        for (int i = 0; i < RUNS; i++) {
            Thread.sleep(50);
            directMs[i] = direct.timeMs();
        }
        String report = String.format("""
                Job platform over HTTP, %d runs each, 50 ms apart, %d cores:
                | what | p50 | p90 | vs direct |
                |---|---|---|---|
                | (b) submit → start on an idle worker (ms, from created_at/started_at) | %.1f | %.1f | — |
                | (c) `POST /v1/jobs?wait=30`, cached python `print(1)` (ms) | %.1f | %.1f | +%.1f ms |
                | (c) the same over a bare HTTP/1.1 socket (ms) | %.1f | %.1f | +%.1f ms |
                | (c) same bwrap command run directly (ms) | %.1f | %.1f | — |
                | (d) MCP `run_code` over Streamable HTTP, same job (ms) | %.1f | %.1f | +%.1f ms vs (c) REST |
                | (c) in parts: request sent → job created (ms) | %.1f | %.1f | — |
                | (c) in parts: started → finished, as stored (ms) | %.1f | %.1f | — |
                | (c) in parts: finished → response received (ms) | %.1f | %.1f | — |
                """, RUNS, Runtime.getRuntime().availableProcessors(), pct(startMs, .5), pct(startMs, .9),
                pct(endToEndMs, .5), pct(endToEndMs, .9), pct(endToEndMs, .5) - pct(directMs, .5),
                pct(bareMs, .5), pct(bareMs, .9), pct(bareMs, .5) - pct(directMs, .5), pct(directMs, .5),
                pct(directMs, .9), pct(mcpMs, .5), pct(mcpMs, .9), pct(mcpMs, .5) - pct(endToEndMs, .5),
                pct(toCreatedMs, .5), pct(toCreatedMs, .9), pct(runMs, .5), pct(runMs, .9), pct(afterFinishMs, .5),
                pct(afterFinishMs, .9));
        System.out.println(report);
        QueueBenchmark.append(report);
    }

    private static double pct(double[] values, double p) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[(int) Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
    }

    /** A bare Streamable HTTP MCP session: what any client sends, without a client library's own costs. */
    private static final class McpSession {
        private final HttpClient http;
        private final ObjectMapper json;
        private final URI endpoint;
        private final String key;
        private final String session;
        private int nextId = 1;

        McpSession(HttpClient http, ObjectMapper json, URI endpoint, String key) throws Exception {
            this.http = http;
            this.json = json;
            this.endpoint = endpoint;
            this.key = key;
            HttpResponse<String> init = post("{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":"
                    + "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
                    + "\"clientInfo\":{\"name\":\"bench\",\"version\":\"1\"}}}", null);
            this.session = init.headers().firstValue("Mcp-Session-Id").orElseThrow();
            post("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", session);
        }

        /** The result of one request; the answer may come as JSON or as an event stream. */
        JsonNode call(String method, String params) throws Exception {
            int id = nextId++;
            String body = post("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"" + method + "\",\"params\":"
                    + params + "}", session).body();
            for (String line : body.split("\n")) {
                String data = line.startsWith("data:") ? line.substring(5).strip() : line.strip();
                if (data.startsWith("{")) {
                    JsonNode message = json.readTree(data);
                    if (message.path("id").asInt(-1) == id) {
                        return message.path("result");
                    }
                }
            }
            throw new IllegalStateException("no answer to request " + id + ": " + body);
        }

        private HttpResponse<String> post(String body, String sessionId) throws Exception {
            HttpRequest.Builder request = HttpRequest.newBuilder(endpoint)
                    .header("Authorization", "Bearer " + key).header("Content-Type", "application/json")
                    .header("Accept", "application/json, text/event-stream")
                    .POST(HttpRequest.BodyPublishers.ofString(body));
            if (sessionId != null) {
                request.header("Mcp-Session-Id", sessionId);
            }
            return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        }
    }
}
