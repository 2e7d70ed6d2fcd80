package dev.nixexec.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.testing.Database;
import dev.nixexec.testing.DatabaseTest;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The fleet charts' figures from the jobs table: finished per status, run-time percentiles and the
 * queue, in the bucket they fall in, for one tenant or every tenant (an operator's).
 */
@DatabaseTest
class JobStatsTest {

    @Test
    void aTenantsJobsCountInTheirBucketAndEveryTenantsAddUp(Database database) throws Exception {
        JobFixture db = new JobFixture(database);
        UUID tenant = db.tenant();
        UUID other = db.tenant();
        finished(db, tenant, "succeeded", 100);
        finished(db, tenant, "succeeded", 300);
        finished(db, tenant, "failed", 200);
        finished(db, other, "succeeded", 1000);
        db.submit(tenant);
        JobStats stats = new JobStats(Database.dataSource(db.connection));

        JobStats.Bucket now = last(stats.recent(tenant, Duration.ofHours(1)));
        assertEquals(Map.of("succeeded", 2L, "failed", 1L), now.finished());
        assertEquals(200.0, now.p50Ms());
        assertEquals(290.0, now.p95Ms(), 0.001);
        assertEquals(1, now.queued());
        JobStats.Bucket earlier = stats.recent(tenant, Duration.ofHours(1)).buckets().get(0);
        assertEquals(Map.of(), earlier.finished());
        assertNull(earlier.p50Ms());

        // every tenant's: at least this test's two (another test's jobs may have committed meanwhile)
        JobStats.Bucket everyTenant = last(stats.recent(null, Duration.ofHours(1)));
        assertTrue(everyTenant.finished().get("succeeded") >= 3, everyTenant.toString());
        assertTrue(everyTenant.queued() >= 1, everyTenant.toString());
    }

    private static JobStats.Bucket last(JobStats.Window window) {
        return window.buckets().get(JobStats.BUCKETS - 1);
    }

    private static void finished(JobFixture db, UUID tenant, String status, long durationMs) throws Exception {
        UUID id = db.submit(tenant);
        db.execute("UPDATE jobs SET status = ?, finished_at = now(), duration_ms = ?, claimed_at = now() WHERE id = ?",
                status, durationMs, id);
    }
}
