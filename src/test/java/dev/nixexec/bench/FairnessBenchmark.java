package dev.nixexec.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.nixexec.testing.NixSpy;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Another tenant's short jobs while one tenant floods a node of 2 slots both ways: 16 long jobs
 * and 2,000 long-polls held open at once from one key (each re-polls as soon as it is answered,
 * after Retry-After when refused). Tenant B's queue wait (started_at − created_at) and its
 * round trip of {@code POST /v1/jobs?wait=30}, with the same figures without the flood first, in
 * the same run. Production's contention window (this profile undoes the tests' 0s).
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
@TestProfile(FairnessBenchmark.ProductionFairness.class)
@Tag("benchmark")
class FairnessBenchmark {

    private static final int RUNS = Integer.getInteger("bench.fair-runs", 20);
    private static final int LONG_JOBS = 16;
    private static final int POLLS = Integer.getInteger("bench.fair-polls", 2000);
    private static final String ADMIN = "nx_test_bootstrap_admin_secret";

    public static class ProductionFairness implements QuarkusTestProfile {
        @Override
        public java.util.Map<String, String> getConfigOverrides() {
            return java.util.Map.of("nixexec.limits.contention-window", "5m", "nixexec.node.concurrency", "2");
        }
    }

    @TestHTTPResource("/")
    URI base;

    @Inject
    ObjectMapper json;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(30)).build();

    private HttpResponse<String> send(String key, String method, String path, String body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve(path)).header("Authorization", "Bearer " + key)
                .header("Content-Type", "application/json").timeout(Duration.ofSeconds(120));
        request.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private String member(String name) throws Exception {
        JsonNode tenant = json.readTree(send(ADMIN, "POST", "/v1/admin/tenants",
                "{\"name\":\"" + name + "-" + System.nanoTime() + "\"}").body());
        return json.readTree(send(ADMIN, "POST", "/v1/admin/tenants/" + tenant.path("id").asText() + "/keys",
                "{\"role\":\"member\"}").body()).path("key").asText();
    }

    /** B's short jobs one after another: queue waits and round trips, in ms. */
    private double[][] shortJobs(String key) throws Exception {
        double[] queueMs = new double[RUNS];
        double[] roundTripMs = new double[RUNS];
        for (int i = 0; i < RUNS; i++) {
            long t = System.nanoTime();
            JsonNode job = json.readTree(send(key, "POST", "/v1/jobs?wait=30",
                    "{\"language\":\"bash\",\"code\":\"echo " + i + "\"}").body());
            roundTripMs[i] = (System.nanoTime() - t) / 1e6;
            if (!job.path("status").asText().equals("succeeded")) {
                throw new IllegalStateException("B's job did not succeed: " + job);
            }
            queueMs[i] = Duration.between(OffsetDateTime.parse(job.path("created_at").asText()),
                    OffsetDateTime.parse(job.path("started_at").asText())).toNanos() / 1e6;
            Thread.sleep(200);
        }
        return new double[][] {queueMs, roundTripMs};
    }

    private static double pct(double[] values, double p) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p * sorted.length) - 1)];
    }

    @Test
    void anotherTenantsShortJobsWhileOneFloods() throws Exception {
        String a = member("flood");
        String b = member("short");
        shortJobs(b); // warm-up: the bash environment is built once
        double[][] baseline = shortJobs(b);

        List<String> longJobs = new ArrayList<>();
        for (int i = 0; i < LONG_JOBS; i++) {
            longJobs.add(json.readTree(send(a, "POST", "/v1/jobs",
                    "{\"language\":\"bash\",\"code\":\"sleep 300\",\"timeout\":300}").body()).path("id").asText());
        }
        AtomicBoolean flooding = new AtomicBoolean(true);
        AtomicLong refused = new AtomicLong();
        AtomicLong answered = new AtomicLong();
        List<Thread> polls = new ArrayList<>();
        for (int i = 0; i < POLLS; i++) {
            String job = longJobs.get(i % longJobs.size());
            polls.add(Thread.ofVirtual().start(() -> {
                while (flooding.get()) {
                    try {
                        HttpResponse<String> r = send(a, "GET", "/v1/jobs/" + job + "?wait=60", null);
                        if (r.statusCode() == 429) {
                            refused.incrementAndGet();
                            Thread.sleep(1000L * Long.parseLong(r.headers().firstValue("Retry-After").orElse("1")));
                        } else {
                            answered.incrementAndGet();
                        }
                    } catch (InterruptedException e) {
                        return;
                    } catch (Exception e) {
                        // a connection the server refused under load: poll again
                    }
                }
            }));
        }
        Thread.sleep(3000); // the flood is on: both slots wanted, the polls open
        double[][] flooded = shortJobs(b);
        flooding.set(false);
        for (String id : longJobs) {
            send(a, "POST", "/v1/jobs/" + id + "/cancel", null);
        }
        for (Thread poll : polls) {
            poll.interrupt();
        }
        String report = String.format("""
                Fairness: tenant B's %d short bash jobs (POST /v1/jobs?wait=30, one after another) on a node of 2 slots, \
                %d cores; flood: tenant A's %d jobs of `sleep 300` and %d long-polls held open from A's key \
                (%d refused with 429, %d answered while B ran):
                | B's short job | queue wait p50 / p90 | round trip p50 / p90 |
                |---|---|---|
                | alone | %.0f / %.0f ms | %.0f / %.0f ms |
                | while A floods | %.0f / %.0f ms | %.0f / %.0f ms |
                """, RUNS, Runtime.getRuntime().availableProcessors(), LONG_JOBS, POLLS, refused.get(), answered.get(),
                pct(baseline[0], 0.5), pct(baseline[0], 0.9), pct(baseline[1], 0.5), pct(baseline[1], 0.9),
                pct(flooded[0], 0.5), pct(flooded[0], 0.9), pct(flooded[1], 0.5), pct(flooded[1], 0.9));
        System.out.println(report);
        QueueBenchmark.append(report);
    }
}
