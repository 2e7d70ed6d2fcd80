package dev.nixexec.logging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import org.jboss.logging.MDC;
import org.junit.jupiter.api.Test;

/** A thread started from a job's thread inherits its log context, unless the work is detached. */
public class JobLogContextTest {

    record Job(UUID id, UUID tenantId) {
    }

    static Job job() {
        return new Job(UUID.randomUUID(), UUID.randomUUID());
    }

    /** The job id a thread started (and joined) inside {@code job}'s context sees, and the caller's after it. */
    static String[] seenFromThreadStartedIn(Job job, boolean detached) {
        AtomicReference<Object> childJob = new AtomicReference<>("unset");
        AtomicReference<Object> childTenant = new AtomicReference<>("unset");
        AtomicReference<Object> callerAfter = new AtomicReference<>();
        JobLogContext.around(job.id(), job.tenantId(), () -> {
            Runnable read = () -> {
                childJob.set(MDC.get(JobLogContext.JOB_ID));
                childTenant.set(MDC.get(JobLogContext.TENANT_ID));
            };
            try {
                Thread.ofVirtual().start(detached ? JobLogContext.detached(read) : read).join();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
            callerAfter.set(MDC.get(JobLogContext.JOB_ID));
        }).run();
        return new String[] {(String) childJob.get(), (String) childTenant.get(), (String) callerAfter.get()};
    }

    @Test
    void aPlainThreadInheritsTheJob() {
        Job job = job();
        String[] seen = seenFromThreadStartedIn(job, false);
        // what makes detached necessary: the MDC is inheritable
        assertEquals(job.id().toString(), seen[0]);
        assertEquals(job.tenantId().toString(), seen[1]);
    }

    @Test
    void detachedWorkHasNoJobWhileTheCallerKeepsItsOwn() {
        Job job = job();
        String[] seen = seenFromThreadStartedIn(job, true);
        assertNull(seen[0]);
        assertNull(seen[1]);
        assertEquals(job.id().toString(), seen[2]);
    }

    @Test
    void detachedOnTheSameThreadRestoresTheJobAfterwards() {
        Job job = job();
        AtomicReference<Object> inside = new AtomicReference<>("unset");
        AtomicReference<Object> after = new AtomicReference<>();
        JobLogContext.around(job.id(), job.tenantId(), () -> {
            JobLogContext.detached(() -> inside.set(MDC.get(JobLogContext.JOB_ID))).run();
            after.set(MDC.get(JobLogContext.JOB_ID));
        }).run();
        assertNull(inside.get());
        assertEquals(job.id().toString(), after.get());
        assertNull(MDC.get(JobLogContext.JOB_ID));
    }
}
