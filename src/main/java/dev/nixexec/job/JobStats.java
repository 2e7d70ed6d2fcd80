package dev.nixexec.job;

import dev.nixexec.database.NamedStatement;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * One tenant's (or, for an operator, every tenant's) recent activity in equal time buckets, for the fleet charts: jobs finished per
 * status, queue depth at each bucket's end, and p50/p95 run time. Computed from {@code jobs} alone
 * (a requeued job counts as queued until its last claim).
 */
@ApplicationScoped
public class JobStats {

    /** Buckets of one window. */
    public static final int BUCKETS = 60;

    private final DataSource db;

    public JobStats(DataSource db) {
        this.db = db;
    }

    /** One bucket: {@code finished} by status, the queue at its end, run-time percentiles (null when none). */
    public record Bucket(OffsetDateTime start, Map<String, Long> finished, long queued, Double p50Ms, Double p95Ms) {
    }

    public record Window(OffsetDateTime start, Duration bucket, List<Bucket> buckets) {
    }

    /** {@code tenantId}'s recent activity; every tenant's when it is null (for an operator: the caller checks). */
    @Transactional
    public Window recent(UUID tenantId, Duration window) {
        Duration bucket = window.dividedBy(BUCKETS);
        OffsetDateTime end = OffsetDateTime.now(ZoneOffset.UTC).truncatedTo(ChronoUnit.MINUTES).plusMinutes(1);
        OffsetDateTime start = end.minus(bucket.multipliedBy(BUCKETS));
        Map<String, Object> values = NamedStatement.values().set("tenant", tenantId).set("start", start)
                .set("end", end).set("seconds", bucket.toMillis() / 1000.0).set("buckets", BUCKETS).map();
        List<Map<String, Long>> finished = new ArrayList<>();
        Double[][] runTimes = new Double[BUCKETS][];
        long[] queued = new long[BUCKETS];
        for (int i = 0; i < BUCKETS; i++) {
            finished.add(new LinkedHashMap<>());
        }
        QueueSql.query(db, "FinishedPerBucket", values,
                rs -> finished.get(index(rs)).put(rs.getString("status"), rs.getLong("n")));
        QueueSql.query(db, "RunTimesPerBucket", values,
                rs -> runTimes[index(rs)] = new Double[] {rs.getDouble("p50"), rs.getDouble("p95")});
        QueueSql.query(db, "QueuedPerBucket", values, rs -> queued[index(rs)] = rs.getLong("n"));
        List<Bucket> buckets = new ArrayList<>();
        for (int i = 0; i < BUCKETS; i++) {
            Double[] r = runTimes[i];
            buckets.add(new Bucket(start.plus(bucket.multipliedBy(i)), finished.get(i), queued[i],
                    r == null ? null : r[0], r == null ? null : r[1]));
        }
        return new Window(start, bucket, buckets);
    }

    /** The row's bucket, clamped to the window (a job finished on its edge). */
    private static int index(ResultSet rs) throws SQLException {
        return Math.clamp(rs.getInt("bucket"), 0, BUCKETS - 1);
    }
}
