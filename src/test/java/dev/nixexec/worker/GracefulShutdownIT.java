package dev.nixexec.worker;

import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;

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
import dev.nixexec.testing.NixSpy;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * A node shutting down stops claiming, gives running jobs the grace period, then ends them
 * honestly; a job still queued stays queued for another node. Nothing is left "running".
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
@TestProfile(GracefulShutdownIT.OneSlotShortGrace.class)
class GracefulShutdownIT {

    public static class OneSlotShortGrace implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("nixexec.node.concurrency", "1", "nixexec.jobs.shutdown-grace", "1s");
        }
    }

    @Inject
    WorkerPool workers;

    @Inject
    JobService jobs;

    @Inject
    JobReads reads;

    @Inject
    JobWaits waits;

    @Inject
    Tenants tenants;

    @Test
    void runningJobsEndHonestlyAndQueuedOnesWait() {
        UUID tenant = tenants.create("shutdown-" + UUID.randomUUID().toString().substring(0, 8), TenantPolicy.defaults(),
                null).id;
        Caller caller = new Caller(tenant, null, Role.MEMBER);
        UUID running = submit(caller, "import time\nprint('working', flush=True)\ntime.sleep(60)");
        await().atMost(Duration.ofSeconds(30)).until(() -> reads.get(caller, running).status(), equalTo("running"));
        UUID waiting = submit(caller, "print('later')");

        workers.stop(null);

        JobView ended = waits.await(caller, running, Duration.ofSeconds(30));
        assertEquals("error", ended.status());
        assertEquals("worker_shutdown", ended.error().code());
        assertEquals("working\n", ended.stdout());
        // a stopping node must not claim: the job stays queued through more than one claim period
        await().during(Duration.ofMillis(1500)).atMost(Duration.ofSeconds(5))
                .until(() -> reads.get(caller, waiting).status(), equalTo("queued"));
    }

    private UUID submit(Caller caller, String code) {
        return jobs.submit(caller, Submission.of(ExecutionRequest.of("python", code)), null).job().id();
    }
}
