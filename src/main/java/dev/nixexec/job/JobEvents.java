package dev.nixexec.job;

import jakarta.persistence.EntityManager;
import java.util.List;
import java.util.UUID;

/** A job's ordered event stream in {@code job_events}: what live followers on any node read. */
public final class JobEvents {

    private static final int MAX_EVENTS_PER_STATEMENT = 10_000;

    /** {@code kind} is status, stdout, stderr or result; {@code seq} is the SSE id. */
    public record Event(int seq, String kind, String data) {
    }

    private JobEvents() {
    }

    /** Appends in the current transaction; the sequence number follows the job's last one. */
    static void append(EntityManager em, UUID jobId, String kind, String data) {
        em.createNativeQuery("INSERT INTO job_events (job_id, seq, kind, data) "
                        + "SELECT ?1, coalesce(max(seq), 0) + 1, ?2, ?3 FROM job_events WHERE job_id = ?1")
                .setParameter(1, jobId).setParameter(2, kind).setParameter(3, data).executeUpdate();
    }

    /** Appends the final status and the result event in one statement. */
    static void appendFinal(EntityManager em, UUID jobId, String status, String result) {
        em.createNativeQuery("INSERT INTO job_events (job_id, seq, kind, data) "
                        + "SELECT ?1, m.seq + v.n, v.kind, v.data FROM "
                        + "(SELECT coalesce(max(seq), 0) AS seq FROM job_events WHERE job_id = ?1) m, "
                        + "(VALUES (1, 'status', ?2), (2, 'result', ?3)) AS v(n, kind, data)")
                .setParameter(1, jobId).setParameter(2, status).setParameter(3, result).executeUpdate();
    }

    /** Appends the same event to several jobs in one statement. */
    static void appendAll(EntityManager em, List<UUID> jobIds, String kind, String data) {
        StringBuilder sql = new StringBuilder("INSERT INTO job_events (job_id, seq, kind, data) "
                + "SELECT v.id, coalesce((SELECT max(e.seq) FROM job_events e WHERE e.job_id = v.id), 0) + 1, ?1, ?2 "
                + "FROM (VALUES ");
        for (int i = 0; i < jobIds.size(); i++) {
            sql.append(i == 0 ? "" : ", ").append("(CAST(?").append(i + 3).append(" AS uuid))");
        }
        sql.append(") AS v(id)");
        var query = em.createNativeQuery(sql.toString()).setParameter(1, kind).setParameter(2, data);
        for (int i = 0; i < jobIds.size(); i++) {
            query.setParameter(i + 3, jobIds.get(i));
        }
        query.executeUpdate();
    }

    /** An event to append: {@code kind} and {@code data} as in {@link Event}. */
    record NewEvent(UUID jobId, String kind, String data) {
    }

    /**
     * Appends events of several jobs in one statement; each job's events keep their order and
     * follow that job's last sequence number.
     */
    static void appendMany(EntityManager em, List<NewEvent> events) {
        // PostgreSQL takes at most 65,535 parameters in one statement (three per event here);
        // a run alternating between stdout and stderr can leave that many chunks.
        for (int from = 0; from < events.size(); from += MAX_EVENTS_PER_STATEMENT) {
            appendSlice(em, events.subList(from, Math.min(events.size(), from + MAX_EVENTS_PER_STATEMENT)));
        }
    }

    private static void appendSlice(EntityManager em, List<NewEvent> events) {
        StringBuilder sql = new StringBuilder("INSERT INTO job_events (job_id, seq, kind, data) "
                + "SELECT v.id, coalesce((SELECT max(e.seq) FROM job_events e WHERE e.job_id = v.id), 0) "
                + "+ row_number() OVER (PARTITION BY v.id ORDER BY v.n), v.kind, v.data FROM (VALUES ");
        for (int i = 0; i < events.size(); i++) {
            sql.append(i == 0 ? "" : ", ").append("(CAST(? AS uuid), ").append(i).append(", ?, ?)");
        }
        sql.append(") AS v(id, n, kind, data)");
        var query = em.createNativeQuery(sql.toString());
        int p = 1;
        for (NewEvent e : events) {
            query.setParameter(p++, e.jobId()).setParameter(p++, e.kind()).setParameter(p++, e.data());
        }
        query.executeUpdate();
    }

    static List<Event> after(UUID jobId, int afterSeq) {
        return JobEvent.<JobEvent>find("jobId = ?1 and seq > ?2 order by seq", jobId, afterSeq).page(0, 1000).list()
                .stream().map(e -> new Event(e.seq, e.kind, e.data)).toList();
    }
}
