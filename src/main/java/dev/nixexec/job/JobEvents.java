package dev.nixexec.job;

import jakarta.persistence.EntityManager;
import jakarta.persistence.Tuple;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/** A job's ordered event stream in {@code job_events}: what live followers on any node read. */
public final class JobEvents {

    /**
     * The last event of every job. It is stored empty, so ending a job does not have to render it
     * first: readers get the job as it is then ({@link JobWaits}), which a finished job no longer
     * changes from.
     */
    static final String RESULT = "result";

    /** {@code kind} is status, stdout, stderr or result; {@code seq} is the SSE id; {@code at} when it was stored. */
    public record Event(int seq, String kind, String data, Instant at) {
    }

    private JobEvents() {
    }

    /** Appends in the current transaction; the sequence number follows the job's last one. */
    static void append(EntityManager em, UUID jobId, String kind, String data) {
        em.createNativeQuery("INSERT INTO job_events (job_id, seq, kind, data) "
                        + "SELECT ?1, coalesce(max(seq), 0) + 1, ?2, ?3 FROM job_events WHERE job_id = ?1")
                .setParameter(1, jobId).setParameter(2, kind).setParameter(3, data).executeUpdate();
    }

    /** The sequence number of the job's {@code result} event, once it ended; none for another tenant's job. */
    @SuppressWarnings("unchecked")
    static Optional<Integer> resultSeq(EntityManager em, UUID tenantId, UUID jobId) {
        List<Number> rows = em.createNativeQuery("""
                        SELECT e.seq
                        FROM job_events e JOIN jobs j ON j.id = e.job_id AND j.tenant_id = :tenant
                        WHERE e.job_id = :job AND e.kind = 'result'""")
                .setParameter("job", jobId).setParameter("tenant", tenantId).getResultList();
        return rows.stream().findFirst().map(Number::intValue);
    }

    /** The most events one read returns; a reader that got this many reads again at once. */
    static final int PAGE = 1000;

    /** The job's events after {@code afterSeq}, at most {@link #PAGE}; none for another tenant's job. */
    @SuppressWarnings("unchecked")
    static List<Event> after(EntityManager em, UUID tenantId, UUID jobId, int afterSeq) {
        List<Tuple> rows = em.createNativeQuery("""
                        SELECT e.seq, e.kind, e.data, e.created_at
                        FROM job_events e JOIN jobs j ON j.id = e.job_id AND j.tenant_id = :tenant
                        WHERE e.job_id = :job AND e.seq > :after
                        ORDER BY e.seq
                        LIMIT %d""".formatted(PAGE), Tuple.class)
                .setParameter("job", jobId).setParameter("tenant", tenantId).setParameter("after", afterSeq)
                .getResultList();
        return rows.stream().map(row -> new Event(row.get("seq", Number.class).intValue(), row.get("kind", String.class),
                row.get("data", String.class), row.get("created_at", Instant.class))).toList();
    }
}
