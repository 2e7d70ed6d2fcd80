package dev.nixexec.job;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
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
 * One tenant's recent activity in equal time buckets, for the fleet charts: jobs finished per
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
        for (Object[] r : rows("SELECT floor(extract(epoch FROM finished_at - ?2) / ?3)::int, status, count(*) FROM jobs "
                + "WHERE tenant_id = ?1 AND finished_at >= ?2 AND finished_at < ?4 GROUP BY 1, 2", tenantId, start, seconds, end)) {
            finished.get(index(r[0])).put((String) r[1], ((Number) r[2]).longValue());
        }
        Double[][] percentiles = new Double[BUCKETS][2];
        for (Object[] r : rows("SELECT floor(extract(epoch FROM finished_at - ?2) / ?3)::int, "
                + "percentile_cont(0.5) WITHIN GROUP (ORDER BY duration_ms), "
                + "percentile_cont(0.95) WITHIN GROUP (ORDER BY duration_ms) FROM jobs "
                + "WHERE tenant_id = ?1 AND finished_at >= ?2 AND finished_at < ?4 AND duration_ms IS NOT NULL GROUP BY 1",
                tenantId, start, seconds, end)) {
            percentiles[index(r[0])] = new Double[] {((Number) r[1]).doubleValue(), ((Number) r[2]).doubleValue()};
        }
        long[] queued = new long[BUCKETS];
        // a job is queued at t when it was made by t and not yet claimed (or ended unclaimed) at t
        for (Object[] r : rows("SELECT g.i, count(j.id) FROM generate_series(0, ?4 - 1) AS g(i) "
                + "JOIN jobs j ON j.tenant_id = ?1 AND j.created_at <= CAST(?2 AS timestamptz) + make_interval(secs => ?3 * (g.i + 1)) "
                + "AND coalesce(j.claimed_at, j.finished_at, 'infinity') > CAST(?2 AS timestamptz) + make_interval(secs => ?3 * (g.i + 1)) "
                + "WHERE coalesce(j.claimed_at, j.finished_at, 'infinity') > ?2 GROUP BY g.i", tenantId, start, seconds, BUCKETS)) {
            queued[index(r[0])] = ((Number) r[1]).longValue();
        }
        List<Bucket> buckets = new ArrayList<>();
        for (int i = 0; i < BUCKETS; i++) {
            buckets.add(new Bucket(start.plus(bucket.multipliedBy(i)), finished.get(i), queued[i], percentiles[i][0],
                    percentiles[i][1]));
        }
        return new Window(start, bucket, buckets);
    }

    private static int index(Object value) {
        return Math.clamp(((Number) value).intValue(), 0, BUCKETS - 1);
    }

    @SuppressWarnings("unchecked")
    private List<Object[]> rows(String sql, Object... params) {
        var query = em.createNativeQuery(sql);
        for (int i = 0; i < params.length; i++) {
            query.setParameter(i + 1, params[i]);
        }
        return query.getResultList();
    }
}
