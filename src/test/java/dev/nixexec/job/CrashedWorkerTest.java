package dev.nixexec.job;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.execution.ExecutionRequest;
import dev.nixexec.tenant.Caller;
import dev.nixexec.tenant.Role;
import dev.nixexec.tenant.Tenants;
import dev.nixexec.testing.ApiOnlyNode;
import dev.nixexec.testing.NixSpy;
import dev.nixexec.testing.RogueWorker;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.UUID;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

/**
 * A worker in another process claims two jobs, starts one, and is killed with SIGKILL: within the
 * lease the reaper ends the started job as worker_lost (its code must not run twice) and queues the
 * other again.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
@TestProfile(ApiOnlyNode.class)
class CrashedWorkerTest {

    @Inject
    JobService jobs;

    @Inject
    JobReads reads;

    @Inject
    JobWaits waits;

    @Inject
    Tenants tenants;

    @ConfigProperty(name = "quarkus.datasource.jdbc.url")
    String url;

    @ConfigProperty(name = "quarkus.datasource.username")
    String user;

    @ConfigProperty(name = "quarkus.datasource.password")
    String password;

    @Test
    void jobsOfAKilledWorkerAreTakenBack() throws Exception {
        UUID tenant = tenants.create("crash-" + UUID.randomUUID().toString().substring(0, 8),
                dev.nixexec.tenant.TenantPolicy.defaults(), null).id;
        Caller caller = new Caller(tenant, null, Role.MEMBER);
        for (int i = 0; i < 2; i++) {
            jobs.submit(caller, Submission.of(ExecutionRequest.of("bash", "echo " + i)), null);
        }
        Process rogue = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                System.getProperty("java.class.path"), RogueWorker.class.getName(), url, user, password,
                "rogue-" + ProcessHandle.current().pid(), "2").redirectError(ProcessBuilder.Redirect.INHERIT).start();
        UUID started;
        UUID claimedOnly;
        try {
            String line = new BufferedReader(new InputStreamReader(rogue.getInputStream(), StandardCharsets.UTF_8)).readLine();
            String[] ids = String.valueOf(line).trim().split(" ");
            assertEquals(2, ids.length, "the rogue worker claimed: " + line);
            started = UUID.fromString(ids[0]);
            claimedOnly = UUID.fromString(ids[1]);
            assertEquals("running", reads.get(caller, started).status());
            assertEquals("building", reads.get(caller, claimedOnly).status());
        } finally {
            rogue.destroyForcibly();
            rogue.waitFor();
        }
        long killedAt = System.nanoTime();

        JobView lost = waits.await(caller, started, java.time.Duration.ofSeconds(30));
        assertEquals("error", lost.status());
        assertEquals("worker_lost", lost.error().code());
        JobView requeued = await("the claimed job to be queued again").atMost(java.time.Duration.ofSeconds(10))
                .until(() -> reads.get(caller, claimedOnly), job -> job.status().equals("queued"));
        assertEquals(1, requeued.attempt());
        long seconds = (System.nanoTime() - killedAt) / 1_000_000_000;
        assertTrue(seconds < 15, "recovery took " + seconds + " s; the lease is 3 s and the reaper runs every second");
    }
}
