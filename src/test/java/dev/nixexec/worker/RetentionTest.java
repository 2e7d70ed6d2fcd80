package dev.nixexec.worker;

import dev.nixexec.execution.ExecutionRequest;
import dev.nixexec.refusal.Refusal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.nixexec.audit.AuditLog;
import dev.nixexec.job.JobReads;
import dev.nixexec.job.JobService;
import dev.nixexec.job.Submission;
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

/** Retention (the default 30 days) deletes finished jobs, their events and old audit records; it keeps everything younger. */
@QuarkusTest
@WithTestResource(NixSpy.class)
@TestProfile(ApiOnlyNode.class)
class RetentionTest {

    @Inject
    JobService jobs;

    @Inject
    JobReads reads;

    @Inject
    Retention retention;

    @Inject
    Tenants tenants;

    @Inject
    AuditLog audit;

    @Inject
    EntityManager em;

    @Test
    void oldFinishedJobsGoYoungAndUnfinishedOnesStay() {
        UUID tenant = tenants.create("retention-" + UUID.randomUUID().toString().substring(0, 8), TenantPolicy.defaults(),
                null).id;
        Caller caller = new Caller(tenant, null, Role.MEMBER);
        UUID old = submit(caller);
        UUID recent = submit(caller);
        UUID queuedLongAgo = submit(caller);
        jobs.cancel(caller, old);
        jobs.cancel(caller, recent);
        QuarkusTransaction.requiringNew().run(() -> {
            em.createNativeQuery("UPDATE jobs SET finished_at = now() - interval '40 days', "
                    + "created_at = now() - interval '40 days' WHERE id = ?1").setParameter(1, old).executeUpdate();
            em.createNativeQuery("UPDATE jobs SET created_at = now() - interval '40 days' WHERE id = ?1")
                    .setParameter(1, queuedLongAgo).executeUpdate();
            em.createNativeQuery("UPDATE audit_events SET at = now() - interval '40 days' WHERE job_id = ?1")
                    .setParameter(1, old).executeUpdate();
        });

        retention.expire();

        assertThrows(Refusal.class, () -> reads.get(caller, old));
        assertEquals(0, QuarkusTransaction.requiringNew().call(() -> ((Number) em.createNativeQuery(
                "SELECT count(*) FROM job_events WHERE job_id = ?1").setParameter(1, old).getSingleResult()).intValue()));
        assertEquals(List.of(), audit.list(tenant, old, null, null, 10));
        assertEquals(List.of("status:queued", "status:cancelled", "result:"), QuarkusTransaction.requiringNew()
                .call(() -> em.createNativeQuery("SELECT kind || ':' || data FROM job_events WHERE job_id = ?1 ORDER BY seq")
                        .setParameter(1, recent).getResultList()), "a younger job's events");
        assertEquals("cancelled", reads.get(caller, recent).status());
        assertEquals("queued", reads.get(caller, queuedLongAgo).status());
    }

    private UUID submit(Caller caller) {
        return jobs.submit(caller, Submission.of(ExecutionRequest.of("bash", "true")), null).job().id();
    }
}
