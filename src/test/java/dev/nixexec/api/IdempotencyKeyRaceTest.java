package dev.nixexec.api;

import static dev.nixexec.testing.Api.as;
import static dev.nixexec.testing.Api.key;
import static dev.nixexec.testing.Api.tenant;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.sun.management.HotSpotDiagnosticMXBean;
import dev.nixexec.testing.NixSpy;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Issue 39, item 5: intake's two writers racing on one Idempotency-Key, round after round. Each
 * round sends more submissions at once than one batch takes, a third of them with the round's
 * key, so both writers hold the key's submissions: one batch inserts the key's job, the other's
 * insert waits on PostgreSQL's unique index until the first commits and then fails, and its whole
 * batch is stored again one by one. A batch once stalled in the JDBC driver's flush on the
 * embedded database's socket until the transaction timeout (60 s) ended it; here a round that is
 * not answered well before that fails with the stacks of every thread in the driver, the socket
 * or intake. {@code -Dintake.race.rounds=200} loops longer.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
class IdempotencyKeyRaceTest {

    /** More than one batch ({@code IntakeCommits.MAX_BATCH}, 32), so both writers are busy. */
    private static final int CALLERS = 48;
    private static final int ROUNDS = Integer.getInteger("intake.race.rounds", 2);
    /** Far below the transaction timeout: a stall is seen before the reaper ends it. */
    private static final long ROUND_SECONDS = 30;

    @Test
    void everyRoundOfRacingSubmissionsIsAnsweredAndGetsOneJobForItsKey() throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            // a tenant per round: its own queue cap and request rate
            String member = key(tenant("race", Map.of("max_running", 0)), "member");
            String idempotencyKey = "race-" + round;
            Map<String, Object> body = Map.of("language", "bash", "code", "echo race");
            CountDownLatch go = new CountDownLatch(1);
            List<Future<Response>> answers = new ArrayList<>();
            try (ExecutorService callers = Executors.newVirtualThreadPerTaskExecutor()) {
                for (int i = 0; i < CALLERS; i++) {
                    boolean keyed = i % 3 == 0;
                    answers.add(callers.submit(() -> {
                        go.await();
                        return keyed ? as(member).header("Idempotency-Key", idempotencyKey).body(body).post("/v1/jobs")
                                : as(member).body(body).post("/v1/jobs");
                    }));
                }
                go.countDown();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(ROUND_SECONDS);
                Set<String> keyedJobs = new HashSet<>();
                Set<String> jobs = new HashSet<>();
                for (int i = 0; i < CALLERS; i++) {
                    Response answer;
                    try {
                        answer = answers.get(i).get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                    } catch (TimeoutException e) {
                        fail("round " + round + ": submission " + i + " not answered in " + ROUND_SECONDS + " s;"
                                + " threads in the driver, the socket or intake:\n" + stacksOfTheDatabasePath());
                        return;
                    }
                    boolean keyed = i % 3 == 0;
                    assertTrue(answer.statusCode() == 201 || (keyed && answer.statusCode() == 200),
                            "round " + round + ": " + answer.statusCode() + " " + answer.asString());
                    String id = answer.path("id");
                    jobs.add(id);
                    if (keyed) {
                        keyedJobs.add(id);
                    }
                }
                assertEquals(1, keyedJobs.size(), "round " + round + ": one job for the key: " + keyedJobs);
                assertEquals(CALLERS - CALLERS / 3 + 1, jobs.size(), "round " + round + ": jobs stored");
            }
        }
    }

    /**
     * The stacks, virtual threads' too (which {@link Thread#getAllStackTraces()} leaves out), of
     * every thread whose stack passes through the JDBC driver, {@code UnixSocketFactory} or
     * {@code IntakeCommits}.
     */
    private static String stacksOfTheDatabasePath() throws IOException {
        Path dump = Files.createTempDirectory("intake-stall").resolve("threads.txt");
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class)
                .dumpThreads(dump.toString(), HotSpotDiagnosticMXBean.ThreadDumpFormat.TEXT_PLAIN);
        String all = Files.readString(dump);
        return Stream.of(all.split("\n\n"))
                .filter(t -> t.contains("org.postgresql.") || t.contains("UnixSocketFactory") || t.contains("IntakeCommits"))
                .collect(Collectors.joining("\n\n"));
    }
}
