package dev.nixexec.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.execution.ExecutionRequest;
import dev.nixexec.tenant.Caller;
import dev.nixexec.tenant.Role;
import dev.nixexec.tenant.TenantPolicy;
import dev.nixexec.tenant.Tenants;
import dev.nixexec.testing.NixSpy;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * End to end, with real sandboxed jobs: a tenant's backlog does not starve a job another tenant
 * submits after it. The claim order itself is {@link FairnessTest}'s, on the database alone.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
class FairnessEndToEndTest {

    private static final int BACKLOG = 40;

    @Inject
    JobService jobs;

    @Inject
    JobReads reads;

    @Inject
    JobWaits waits;

    @Inject
    Tenants tenants;

    private Caller tenant(String name) {
        UUID id = tenants.create(name + "-" + UUID.randomUUID().toString().substring(0, 8),
                new TenantPolicy(null, null, null, null, null, null, BACKLOG, null), null).id;
        return new Caller(id, null, Role.MEMBER);
    }

    private static Submission bash(String code) {
        return Submission.of(ExecutionRequest.of("bash", code));
    }

    @Test
    void aSmallTenantIsNotStarvedByABigBacklog() {
        Caller big = tenant("big");
        Caller small = tenant("small");
        List<UUID> backlog = new ArrayList<>();
        for (int i = 0; i < BACKLOG; i++) {
            backlog.add(jobs.submit(big, bash("sleep 0.5"), null).job().id());
        }
        UUID mine = jobs.submit(small, bash("echo small"), null).job().id();
        JobView done = waits.await(small, mine, Duration.ofSeconds(60));
        assertEquals("succeeded", done.status());
        long stillQueued = backlog.stream().filter(id -> reads.get(big, id).status().equals("queued")).count();
        for (UUID id : backlog) {
            jobs.cancel(big, id);
        }
        assertTrue(stillQueued > BACKLOG * 3 / 4, "the small tenant's job waited for " + (BACKLOG - stillQueued)
                + " of the big backlog");
    }
}
