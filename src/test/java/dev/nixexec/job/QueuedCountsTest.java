package dev.nixexec.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.testing.Database;
import dev.nixexec.testing.DatabaseTest;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * A tenant's queued count, which the submission's cap reads, is the number of its queued jobs
 * whichever statement moved them (this version's transitions, another version's, an operator's
 * SQL); submissions and claims on different connections do not wait for each other on it; the
 * fold keeps every count.
 */
@DatabaseTest
class QueuedCountsTest {

    @Test
    void everyWayIntoAndOutOfTheQueueIsCounted(Database database) throws Exception {
        JobFixture db = new JobFixture(database);
        UUID tenant = db.tenant();
        for (int i = 0; i < 5; i++) {
            db.submit(tenant);
        }
        assertCounted(db, tenant, 5);

        List<ClaimedJob> claimed = db.transitions.claim("count-node", 2).stream()
                .filter(j -> j.tenantId().equals(tenant)).toList();
        assertEquals(2, claimed.size());
        assertCounted(db, tenant, 3);

        UUID queued = db.submit(tenant);
        assertTrue(db.transitions.cancel(tenant, queued, null).isPresent());
        assertCounted(db, tenant, 3);

        assertTrue(db.transitions.giveBack(claimed.get(0).id(), "count-node"));
        assertCounted(db, tenant, 4);

        db.expireLease(claimed.get(1).id());
        assertTrue(db.transitions.reap().requeued().contains(claimed.get(1).id()));
        assertCounted(db, tenant, 5);

        // statements of no transition here (another version's, an operator's) are counted too
        db.execute("UPDATE jobs SET status = 'cancelled', finished_at = now() WHERE id = ?", claimed.get(0).id());
        assertCounted(db, tenant, 4);
        db.execute("DELETE FROM jobs WHERE id = ?", claimed.get(1).id());
        assertCounted(db, tenant, 3);
        db.backlog(tenant, 4);
        assertCounted(db, tenant, 7);
        db.execute("UPDATE jobs SET status = 'queued', finished_at = NULL WHERE id = ?", claimed.get(0).id());
        assertCounted(db, tenant, 8);
        db.execute("UPDATE jobs SET run_after = now() WHERE tenant_id = ?", tenant);
        assertCounted(db, tenant, 8);

        try (Statement s = db.connection.createStatement();
                var rs = s.executeQuery("SELECT count(*) FROM jobs WHERE status = 'queued'")) {
            rs.next();
            assertEquals(rs.getLong(1), new QueuedCounts(database.dataSource()).ofAllTenants(), "all tenants' count");
        }
    }

    @Test
    void theCapReadsTheCount(Database database) throws Exception {
        JobFixture db = new JobFixture(database);
        UUID tenant = db.tenant();
        db.backlog(tenant, 3);
        JobTransitions.Inserted refused = db.transitions.insert(db.job(tenant), 3, "{}", Optional.empty());
        assertFalse(refused.stored(), "stored beyond the cap");
        assertEquals(3, refused.queuedBefore());
        db.execute("UPDATE jobs SET status = 'cancelled', finished_at = now() WHERE id IN "
                + "(SELECT id FROM jobs WHERE tenant_id = ? LIMIT 1)", tenant);
        JobTransitions.Inserted stored = db.transitions.insert(db.job(tenant), 3, "{}", Optional.empty());
        assertTrue(stored.stored(), "refused below the cap");
        assertEquals(2, stored.queuedBefore());
    }

    /** An operator's TRUNCATE of jobs takes the counts (a trigger, V41) and the events (their key, V69) with it. */
    @Test
    void truncatingTheJobsForgetsTheirCountsAndEvents(Database database) throws Exception {
        JobFixture db = new JobFixture(database);
        UUID tenant = db.tenant();
        UUID job = db.submit(tenant);
        db.submit(tenant);
        assertCounted(db, tenant, 2);
        assertEquals(1, db.events(job).size());
        db.execute("TRUNCATE jobs CASCADE");
        try (Statement s = db.connection.createStatement(); var rs = s.executeQuery(
                "SELECT (SELECT count(*) FROM queued_job_counts), (SELECT count(*) FROM job_events)")) {
            rs.next();
            assertEquals(0, rs.getLong(1), "counts left");
            assertEquals(0, rs.getLong(2), "events left");
        }
    }

    /**
     * One counter row per tenant would make every submission and claim of the tenant wait for the
     * transaction that last changed it; each connection's own rows make none wait.
     */
    @Test
    void submissionsAndClaimsOnOtherConnectionsDoNotWaitForOneAnother(Database database) throws Exception {
        UUID tenant;
        try (Connection seed = database.open()) {
            JobFixture db = new JobFixture(seed, JobFixture.SETTINGS);
            tenant = db.tenant("{\"max_running\": 1000}");
            db.backlog(tenant, 4);
        }
        try (Connection a = database.open(); Connection b = database.open(); Connection c = database.open()) {
            for (Connection each : List.of(a, b, c)) {
                each.setAutoCommit(false);
                try (Statement s = each.createStatement()) {
                    s.execute("SET lock_timeout = '2s'");
                }
            }
            JobFixture first = new JobFixture(a, JobFixture.SETTINGS);
            first.submit(tenant);
            first.transitions.claim("count-node-a", 1);
            JobFixture second = new JobFixture(b, JobFixture.SETTINGS);
            second.submit(tenant);
            second.transitions.claim("count-node-b", 1);
            b.commit();
            a.commit();
            assertCounted(new JobFixture(c, JobFixture.SETTINGS), tenant, 4);
            c.commit();
        } finally {
            JobFixture.removeCommitted(database, tenant);
        }
    }

    @Test
    void theFoldKeepsEveryCountAndPassesOverRowsInUse(Database database) throws Exception {
        UUID tenant;
        try (Connection seed = database.open()) {
            tenant = new JobFixture(seed, JobFixture.SETTINGS).tenant("{\"max_running\": 1000}");
        }
        try (Connection a = database.open(); Connection b = database.open(); Connection c = database.open();
                Connection folder = database.open()) {
            JobFixture byA = new JobFixture(a, JobFixture.SETTINGS);
            byA.backlog(tenant, 3);
            new JobFixture(b, JobFixture.SETTINGS).backlog(tenant, 2);
            JobFixture byC = new JobFixture(c, JobFixture.SETTINGS);
            byC.backlog(tenant, 1);
            c.setAutoCommit(false);
            byC.backlog(tenant, 1);
            JobFixture check = new JobFixture(folder, JobFixture.SETTINGS);
            assertEquals(3, rows(check, tenant), "a row per connection");

            new QueuedCounts(Database.dataSource(folder)).fold();
            assertCounted(check, tenant, 6);
            assertEquals(List.of(0, backend(c)), backends(check, tenant), "rows left after the fold");
            c.commit();
            assertCounted(check, tenant, 7);

            new QueuedCounts(Database.dataSource(folder)).fold();
            assertEquals(List.of(0), backends(check, tenant));
            assertCounted(check, tenant, 7);
            byA.backlog(tenant, 1);
            assertCounted(check, tenant, 8);
        } finally {
            JobFixture.removeCommitted(database, tenant);
        }
    }

    /** The tenant's count as the submission reads it, which is also the number of its queued jobs. */
    private static void assertCounted(JobFixture db, UUID tenant, long expected) throws SQLException {
        assertEquals(expected, number(db, "SELECT count(*) FROM jobs WHERE tenant_id = ? AND status = 'queued'", tenant),
                "queued jobs");
        assertEquals(expected, number(db, "SELECT coalesce(sum(queued), 0) FROM queued_job_counts WHERE tenant_id = ?",
                tenant), "the tenant's queued count");
    }

    private static long rows(JobFixture db, UUID tenant) throws SQLException {
        return number(db, "SELECT count(*) FROM queued_job_counts WHERE tenant_id = ?", tenant);
    }

    private static List<Integer> backends(JobFixture db, UUID tenant) throws SQLException {
        try (var q = db.connection.prepareStatement(
                "SELECT backend FROM queued_job_counts WHERE tenant_id = ? ORDER BY backend")) {
            q.setObject(1, tenant);
            try (var rs = q.executeQuery()) {
                List<Integer> backends = new java.util.ArrayList<>();
                while (rs.next()) {
                    backends.add(rs.getInt(1));
                }
                return backends;
            }
        }
    }

    private static int backend(Connection connection) throws SQLException {
        try (Statement s = connection.createStatement(); var rs = s.executeQuery("SELECT pg_backend_pid()")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    private static long number(JobFixture db, String sql, UUID tenant) throws SQLException {
        try (var q = db.connection.prepareStatement(sql)) {
            q.setObject(1, tenant);
            try (var rs = q.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }
}
