package dev.nixexec.job;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.Query;
import jakarta.persistence.Tuple;
import jakarta.transaction.Transactional;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * One tenant's (or, for an operator, every tenant's) recent activity in equal time buckets, for the fleet charts: jobs finished per
 * status, queue depth at each bucket's end, and p50/p95 run time. Computed from {@code jobs} alone
 * (a requeued job counts as queued until its last claim).
 */
@ApplicationScoped
public class JobStats {

    /** Buckets of one window. */
    public static final int BUCKETS = 60;

    private final EntityManager em;

    public JobStats(EntityManager em) {
        this.em = em;
    }

    /** One bucket: {@code finished} by status, the queue at its end, run-time percentiles (null when none). */
    public record Bucket(OffsetDateTime start, Map<String, Long> finished, long queued, Double p50Ms, Double p95Ms) {
    }

    public record Window(OffsetDateTime start, Duration bucket, List<Bucket> buckets) {
    }

    /** Jobs finished in one bucket with one status. */
    private record Finished(int bucket, String status, long count) {
    }

    /** Run-time percentiles of the jobs finished in one bucket. */
    private record RunTimes(int bucket, double p50Ms, double p95Ms) {
    }

    /** Jobs queued at one bucket's end. */
    private record Queued(int bucket, long count) {
    }

    private static final String FINISHED = """
            SELECT floor(extract(epoch FROM finished_at - :start) / :seconds)::int AS bucket, status, count(*) AS n
            FROM jobs
            WHERE {tenant} finished_at >= :start AND finished_at < :end
            GROUP BY 1, 2""";

    private static final String RUN_TIMES = """
            SELECT floor(extract(epoch FROM finished_at - :start) / :seconds)::int AS bucket,
                   percentile_cont(0.5) WITHIN GROUP (ORDER BY duration_ms) AS p50,
                   percentile_cont(0.95) WITHIN GROUP (ORDER BY duration_ms) AS p95
            FROM jobs
            WHERE {tenant} finished_at >= :start AND finished_at < :end AND duration_ms IS NOT NULL
            GROUP BY 1""";

    /** A job is queued at t when it was made by t and not yet claimed (or ended unclaimed) at t. */
    private static final String QUEUED = """
            SELECT g.i AS bucket, count(j.id) AS n
            FROM generate_series(0, :buckets - 1) AS g(i)
            JOIN jobs j ON {tenant_j} j.created_at <= CAST(:start AS timestamptz) + make_interval(secs => :seconds * (g.i + 1))
                AND coalesce(j.claimed_at, j.finished_at, 'infinity')
                    > CAST(:start AS timestamptz) + make_interval(secs => :seconds * (g.i + 1))
            WHERE coalesce(j.claimed_at, j.finished_at, 'infinity') > :start
            GROUP BY g.i""";

    /** {@code tenantId}'s recent activity; every tenant's when it is null (for an operator: the caller checks). */
    @Transactional
    public Window recent(UUID tenantId, Duration window) {
        Duration bucket = window.dividedBy(BUCKETS);
        OffsetDateTime end = OffsetDateTime.now(ZoneOffset.UTC).truncatedTo(ChronoUnit.MINUTES).plusMinutes(1);
        OffsetDateTime start = end.minus(bucket.multipliedBy(BUCKETS));
        double seconds = bucket.toMillis() / 1000.0;
        List<Map<String, Long>> finished = new ArrayList<>();
        for (int i = 0; i < BUCKETS; i++) {
            finished.add(new LinkedHashMap<>());
        }
        for (Tuple row : rows(scoped(FINISHED, tenantId)
                .setParameter("start", start).setParameter("seconds", seconds).setParameter("end", end))) {
            Finished f = new Finished(index(row), row.get("status", String.class), row.get("n", Number.class).longValue());
            finished.get(f.bucket()).put(f.status(), f.count());
        }
        RunTimes[] runTimes = new RunTimes[BUCKETS];
        for (Tuple row : rows(scoped(RUN_TIMES, tenantId)
                .setParameter("start", start).setParameter("seconds", seconds).setParameter("end", end))) {
            RunTimes r = new RunTimes(index(row), row.get("p50", Number.class).doubleValue(),
                    row.get("p95", Number.class).doubleValue());
            runTimes[r.bucket()] = r;
        }
        long[] queued = new long[BUCKETS];
        for (Tuple row : rows(scoped(QUEUED, tenantId)
                .setParameter("start", start).setParameter("seconds", seconds).setParameter("buckets", BUCKETS))) {
            Queued q = new Queued(index(row), row.get("n", Number.class).longValue());
            queued[q.bucket()] = q.count();
        }
        List<Bucket> buckets = new ArrayList<>();
        for (int i = 0; i < BUCKETS; i++) {
            RunTimes r = runTimes[i];
            buckets.add(new Bucket(start.plus(bucket.multipliedBy(i)), finished.get(i), queued[i],
                    r == null ? null : r.p50Ms(), r == null ? null : r.p95Ms()));
        }
        return new Window(start, bucket, buckets);
    }

    /** One of the statements over one tenant's jobs, or every tenant's (no condition) when {@code tenantId} is null. */
    private Query scoped(String sql, UUID tenantId) {
        String scopedSql = sql.replace("{tenant}", tenantId == null ? "" : "tenant_id = :tenant AND")
                .replace("{tenant_j}", tenantId == null ? "" : "j.tenant_id = :tenant AND");
        Query query = em.createNativeQuery(scopedSql, Tuple.class);
        return tenantId == null ? query : query.setParameter("tenant", tenantId);
    }

    /** The row's bucket, clamped to the window (a job finished on its edge). */
    private static int index(Tuple row) {
        return Math.clamp(row.get("bucket", Number.class).intValue(), 0, BUCKETS - 1);
    }

    @SuppressWarnings("unchecked")
    private static List<Tuple> rows(Query query) {
        return query.getResultList();
    }
}
