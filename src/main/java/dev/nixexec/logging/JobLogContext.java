package dev.nixexec.logging;

import java.util.UUID;
import java.util.function.Consumer;
import org.jboss.logging.MDC;

/**
 * Tags the log lines written while a job is handled on the current thread with {@code job_id} and
 * {@code tenant_id} (MDC), so a job's lines can be found in plain and in JSON logs. Engine callbacks
 * run on threads the job does not own, so each entry point is wrapped, not just the job's thread.
 * A thread inherits its starter's MDC, so work that outlives a job but may be started from one of
 * its threads (a shared writer, a pool refill) is wrapped in {@link #detached}.
 */
public final class JobLogContext {

    public static final String JOB_ID = "job_id";
    public static final String TENANT_ID = "tenant_id";

    private JobLogContext() {
    }

    public static Runnable around(UUID jobId, UUID tenantId, Runnable body) {
        return () -> {
            Object outerJob = MDC.get(JOB_ID);
            Object outerTenant = MDC.get(TENANT_ID);
            MDC.put(JOB_ID, jobId.toString());
            MDC.put(TENANT_ID, tenantId.toString());
            try {
                body.run();
            } finally {
                restore(JOB_ID, outerJob);
                restore(TENANT_ID, outerTenant);
            }
        };
    }

    public static <T> Consumer<T> around(UUID jobId, UUID tenantId, Consumer<T> body) {
        return value -> around(jobId, tenantId, () -> body.accept(value)).run();
    }

    /** {@code body} without any job's {@code job_id} and {@code tenant_id}, whichever thread runs it. */
    public static Runnable detached(Runnable body) {
        return () -> {
            Object outerJob = MDC.get(JOB_ID);
            Object outerTenant = MDC.get(TENANT_ID);
            MDC.remove(JOB_ID);
            MDC.remove(TENANT_ID);
            try {
                body.run();
            } finally {
                restore(JOB_ID, outerJob);
                restore(TENANT_ID, outerTenant);
            }
        };
    }

    private static void restore(String key, Object outer) {
        if (outer == null) {
            MDC.remove(key);
        } else {
            MDC.put(key, outer);
        }
    }
}
