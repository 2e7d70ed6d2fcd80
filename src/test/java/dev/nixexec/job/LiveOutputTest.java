package dev.nixexec.job;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.nixexec.execution.ExecutionRequest;
import dev.nixexec.tenant.Caller;
import dev.nixexec.tenant.Role;
import dev.nixexec.tenant.TenantPolicy;
import dev.nixexec.tenant.Tenants;
import dev.nixexec.testing.ApiOnlyNode;
import dev.nixexec.testing.NixSpy;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Live output is appended only by the run that has the job: this node, this attempt, building or
 * running. A run that does not (started early for a submission that stored the job queued, or an
 * attempt still alive after its job was reaped and claimed again) writes nothing into its events.
 * On a node that runs no jobs, so the job is moved by hand.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
@TestProfile(ApiOnlyNode.class)
class LiveOutputTest {

    @Inject
    JobService jobs;

    @Inject
    JobReads reads;

    @Inject
    LiveOutput queue;

    @Inject
    Tenants tenants;

    @Inject
    EntityManager em;

    private void set(UUID job, String status, String node, int attempt) {
        QuarkusTransaction.requiringNew().run(() -> em.createNativeQuery(
                        "UPDATE jobs SET status = ?2, node_id = ?3, attempt = ?4 WHERE id = ?1")
                .setParameter(1, job).setParameter(2, status).setParameter(3, node).setParameter(4, attempt)
                .executeUpdate());
    }

    private static List<JobTransitions.Chunk> line(String text) {
        return List.of(new JobTransitions.Chunk("stdout", text + "\n"));
    }

    @Test
    void onlyTheRunThatHasTheJobAppendsItsOutput() {
        UUID tenant = tenants.create("live-" + UUID.randomUUID().toString().substring(0, 8), TenantPolicy.defaults(),
                null).id;
        Caller caller = new Caller(tenant, null, Role.MEMBER);
        UUID job = jobs.submit(caller, Submission.of(ExecutionRequest.of("bash", "true")), null).job().id();

        queue.output(job, "node-a", 1, line("while queued"));
        set(job, "building", "node-a", 1);
        queue.output(job, "node-b", 1, line("another node"));
        queue.output(job, "node-a", 1, line("building on a"));
        set(job, "running", "node-b", 2);
        queue.output(job, "node-a", 1, line("the reaped attempt"));
        queue.output(job, "node-b", 2, line("running on b"));
        set(job, "succeeded", "node-b", 2);
        queue.output(job, "node-b", 2, line("after the end"));

        assertEquals(List.of("building on a\n", "running on b\n"), reads.events(caller, job, 0).stream()
                .filter(e -> e.kind().equals("stdout")).map(JobEvents.Event::data).toList());
    }
}
