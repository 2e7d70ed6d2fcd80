package dev.nixexec.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.testing.Database;
import dev.nixexec.testing.DatabaseTest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Every job that ends leaves its entry in {@code jobs_active} (and its queued one in
 * {@code jobs_queued}) until a vacuum removes them: at 5,000 jobs a second and autovacuum's minute,
 * hundreds of thousands. A claim or a finish must not read the row of each every time: here 2,000
 * jobs were claimed and finished, committed, and the statistics taken with one job running, as
 * autovacuum's analyze would take them; what the next finish and claim read of the jobs table is
 * counted in their own transaction ({@code pg_stat_get_xact_blocks_fetched}). A plain index scan
 * marks an entry whose row is dead to every transaction the first time it meets it, and every
 * statement's later scans pass over it; a bitmap scan marks none. The setup ends its jobs with the
 * same claim and finish, so the two tests guard the pair: with either statement as it was alone,
 * the other's plain scans may have marked the entries already (checked: both as before, a finish
 * read 78–152 blocks and a claim 84).
 */
@DatabaseTest
class DeadIndexEntriesTest {

    private static final int ENDED = 2_000;
    /** A node with room for every job, so the claims here are held back by nothing. */
    private static final JobTransitions.Settings ROOMY = new JobTransitions.Settings(Duration.ofSeconds(30), 100_000,
            Duration.ZERO, 0, 100_000);
    private static final Outcome OK = new Outcome(JobStatus.SUCCEEDED, 0, null, false, null, 1L,
            "", "", 0, 0, false, false, null, null, null);
    private static final String NODE = "dead-entries-node";
    /** Blocks of the jobs table a finish or claim of one job may read here: 6–7 and 12 measured, 78–152 and 84 before. */
    private static final long FEW = 30;

    @Test
    void aFinishDoesNotReadEveryJobThatEnded(Database database) throws Exception {
        afterEnds(database, 0, (c, db) -> {
            ClaimedJob running = db.transitions.claim(NODE, 1).getFirst();
            analyze(c);
            long read = jobBlocksReadBy(c, () -> assertEquals(1, db.transitions.finish(NODE, List.of(
                    new JobTransitions.Finish(running.id(), running.attempt(), OK, List.of()))).size()));
            assertTrue(read <= FEW, "a finish of one job read " + read + " blocks of the jobs table");
        });
    }

    @Test
    void aClaimDoesNotReadEveryJobThatEnded(Database database) throws Exception {
        afterEnds(database, 2, (c, db) -> {
            db.transitions.claim(NODE, 1);
            analyze(c);
            // the first scan after the ends may visit each ended job's row once
            assertEquals(1, db.transitions.claim(NODE, 1).size());
            long read = jobBlocksReadBy(c, () -> assertEquals(1, db.transitions.claim(NODE, 1).size()));
            assertTrue(read <= FEW, "a claim of one job read " + read + " blocks of the jobs table");
        });
    }

    /** What a test does on its connection once the jobs ended. */
    @FunctionalInterface
    private interface Scenario {
        void run(Connection c, JobFixture db) throws Exception;
    }

    /**
     * On a connection of its own, a tenant's {@value #ENDED} jobs claimed and finished, committed,
     * then one job more queued and {@code queued} after it; then {@code scenario}. The tenant's
     * rows are removed after, whatever happened.
     */
    private static void afterEnds(Database database, int queued, Scenario scenario) throws Exception {
        try (Connection c = database.open()) {
            JobFixture db = new JobFixture(c, ROOMY);
            UUID tenant = db.tenant("{\"max_running\": 100000}");
            try {
                db.backlog(tenant, ENDED);
                for (int done = 0; done < ENDED; ) {
                    List<ClaimedJob> batch = db.transitions.claim(NODE, 200);
                    assertTrue(!batch.isEmpty(), "the backlog was not claimed");
                    done += db.transitions.finish(NODE, batch.stream()
                            .map(j -> new JobTransitions.Finish(j.id(), j.attempt(), OK, List.of())).toList()).size();
                }
                db.backlog(tenant, 1 + queued);
                scenario.run(c, db);
            } finally {
                endTransaction(c);
                JobFixture.removeCommitted(database, tenant);
            }
        }
    }

    /** Blocks of the jobs table {@code statement} read (found in the buffers or not), in a transaction of its own. */
    private static long jobBlocksReadBy(Connection c, Runnable statement) throws SQLException {
        c.setAutoCommit(false);
        long before = jobBlocksRead(c);
        statement.run();
        long read = jobBlocksRead(c) - before;
        c.commit();
        c.setAutoCommit(true);
        return read;
    }

    /** Whatever a failed test left open is rolled back: its locks would hold up the removal of its rows. */
    private static void endTransaction(Connection c) throws SQLException {
        if (!c.getAutoCommit()) {
            c.rollback();
            c.setAutoCommit(true);
        }
    }

    /** Fresh statistics of the jobs table, as autovacuum's analyze takes them. */
    private static void analyze(Connection c) throws SQLException {
        try (PreparedStatement analyze = c.prepareStatement("ANALYZE jobs")) {
            analyze.execute();
        }
    }

    /** Blocks of the jobs table read in this transaction so far (found in the buffers or not). */
    private static long jobBlocksRead(Connection c) throws SQLException {
        try (PreparedStatement q = c.prepareStatement("SELECT pg_stat_get_xact_blocks_fetched('jobs'::regclass)");
                ResultSet rs = q.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
