package dev.nixexec.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.testing.Database;
import dev.nixexec.testing.DatabaseTest;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Claimers race over one real PostgreSQL queue, as many nodes would: every job is claimed exactly
 * once; a job's earlier attempt cannot overwrite its later one; a node's clock ahead of the
 * database's holds no job back.
 */
@DatabaseTest
class ClaimRaceTest {

    private static final Outcome OK = new Outcome(JobStatus.SUCCEEDED, 0, null, false, null, 1L,
            "", "", 0, 0, false, false, null, null, null);

    private static ClaimedJob claimed(List<ClaimedJob> claimed, UUID id) {
        return claimed.stream().filter(j -> j.id().equals(id)).findFirst().orElseThrow();
    }

    @Test
    void aResultOfAnEarlierAttemptIsNotStoredOverALaterOne(Database database) throws Exception {
        JobFixture db = new JobFixture(database);
        UUID id = db.submit(db.tenant());
        String node = "attempt-node";
        ClaimedJob first = claimed(db.transitions.claim(node, 10), id);
        // taken back (its lease ran out while the node was slow) and claimed again by the same node
        db.execute("UPDATE jobs SET status = 'queued', node_id = NULL, lease_until = NULL WHERE id = ?", id);
        ClaimedJob second = claimed(db.transitions.claim(node, 10), id);
        assertEquals(first.attempt() + 1, second.attempt());
        assertEquals(Set.of(), db.transitions.finish(node, List.of(new JobTransitions.Finish(id, first.attempt(), OK,
                List.of()))));
        assertEquals(JobStatus.BUILDING, db.row(id).status());
        assertEquals(Set.of(id), db.transitions.finish(node, List.of(new JobTransitions.Finish(id, second.attempt(), OK,
                List.of()))));
        assertEquals(JobStatus.SUCCEEDED, db.row(id).status());
    }

    /**
     * A job's times come from the clock of the node that took it, leases from the database's: a node
     * whose clock is ahead of the database's (or a database clock that jumped back) must not hold
     * its jobs back until the database catches up.
     */
    @Test
    void aJobFromANodeWhoseClockIsAheadIsClaimedAtOnce(Database database) throws Exception {
        JobFixture db = new JobFixture(database);
        UUID id = db.submit(db.tenant());
        db.execute("UPDATE jobs SET created_at = now() + interval '60 seconds', run_after = now() + interval '60 seconds' "
                + "WHERE id = ?", id);
        assertTrue(db.transitions.claim("skew-node", 10).stream().anyMatch(j -> j.id().equals(id)),
                "a queued job waited for the database's clock");
    }

    /**
     * A claimer whose picks another claimer holds (its claim not yet committed) takes the tenant's
     * next jobs instead of coming away empty: nodes woken together by one burst all get work.
     */
    @Test
    void aClaimerTakesTheNextJobsWhileAnotherHoldsTheFirst(Database database) throws Exception {
        Race race = race(database, "{}", 12, false);
        assertEquals(Set.copyOf(race.queued().subList(0, 4)), race.first());
        assertEquals(Set.copyOf(race.queued().subList(4, 8)), race.second(), "the second claimer's jobs");
    }

    /**
     * The tenant's running cap holds against claims in flight: jobs another claimer holds count as
     * running, so two claimers racing for a tenant with room for five take five between them.
     */
    @Test
    void jobsAnotherClaimerHoldsCountTowardsTheRunningCap(Database database) throws Exception {
        Race race = race(database, "{\"max_running\": 5}", 10, true);
        assertEquals(Set.copyOf(race.queued().subList(0, 4)), race.first());
        assertEquals(Set.copyOf(race.queued().subList(4, 5)), race.second(), "claimed beyond the running cap");
        assertEquals(Set.of(), race.after(), "claimed beyond the running cap once both committed");
    }

    /** A tenant's queued jobs (oldest first); what two racing claims took; what a claim took after them. */
    private record Race(List<UUID> queued, Set<UUID> first, Set<UUID> second, Set<UUID> after) {
    }

    /**
     * A tenant of this policy with {@code jobs} queued jobs, committed; two nodes claim four each,
     * the first's claim not yet committed when the second claims; both commit (or roll back), and a
     * third node claims four. The test's rows are removed after.
     */
    private static Race race(Database database, String policy, int jobs, boolean commit) throws Exception {
        List<UUID> queued;
        UUID tenant;
        try (Connection seed = database.open()) {
            JobFixture db = new JobFixture(seed, JobFixture.SETTINGS);
            tenant = db.tenant(policy);
            queued = db.backlog(tenant, jobs);
        }
        try (Connection a = database.open(); Connection b = database.open(); Connection c = database.open()) {
            a.setAutoCommit(false);
            b.setAutoCommit(false);
            Set<UUID> first = ids(new JobFixture(a, JobFixture.SETTINGS).transitions.claim("race-node-a", 4));
            Set<UUID> second = ids(new JobFixture(b, JobFixture.SETTINGS).transitions.claim("race-node-b", 4));
            for (Connection claimer : List.of(a, b)) {
                if (commit) {
                    claimer.commit();
                } else {
                    claimer.rollback();
                }
            }
            return new Race(queued, first, second,
                    ids(new JobFixture(c, JobFixture.SETTINGS).transitions.claim("race-node-c", 4)));
        } finally {
            JobFixture.removeCommitted(database, tenant);
        }
    }

    /** The claimed jobs' ids (a claim returns them in no particular order). */
    private static Set<UUID> ids(List<ClaimedJob> claimed) {
        return claimed.stream().map(ClaimedJob::id).collect(Collectors.toSet());
    }

    /** Committed transactions on connections of their own; the test removes what it wrote. */
    @Test
    void fiveHundredJobsFourClaimersEachJobOnce(Database database) throws Exception {
        int total = 500;
        UUID tenant;
        Set<UUID> submitted;
        try (Connection seed = database.open()) {
            JobFixture db = new JobFixture(seed, JobFixture.SETTINGS);
            tenant = db.tenant("{\"max_running\": 1000}");
            submitted = Set.copyOf(db.backlog(tenant, total));
        }
        try {
            ConcurrentLinkedQueue<UUID> claimed = new ConcurrentLinkedQueue<>();
            AtomicInteger finishedByOtherNode = new AtomicInteger();
            List<Throwable> failures = new ArrayList<>();
            CountDownLatch done = new CountDownLatch(4);
            for (int n = 0; n < 4; n++) {
                String node = "race-node-" + n;
                Thread.ofVirtual().start(() -> {
                    try (Connection own = database.open()) {
                        JobTransitions transitions = new JobFixture(own, JobFixture.SETTINGS).transitions;
                        int idle = 0;
                        while (idle < 3) {
                            List<ClaimedJob> batch = transitions.claim(node, 7);
                            idle = batch.isEmpty() ? idle + 1 : 0;
                            for (ClaimedJob job : batch) {
                                if (submitted.contains(job.id())) {
                                    claimed.add(job.id());
                                }
                                if (transitions.finish(node, List.of(new JobTransitions.Finish(job.id(), job.attempt(),
                                        OK, List.of()))).isEmpty()) {
                                    finishedByOtherNode.incrementAndGet();
                                }
                            }
                        }
                    } catch (Throwable e) {
                        synchronized (failures) {
                            failures.add(e);
                        }
                    } finally {
                        done.countDown();
                    }
                });
            }
            assertTrue(done.await(5, TimeUnit.MINUTES));
            assertEquals(List.of(), failures);
            assertEquals(total, claimed.size(), "claims of this test's jobs");
            assertEquals(total, Set.copyOf(claimed).size(), "a job was claimed twice");
            assertEquals(0, finishedByOtherNode.get());
            try (Connection check = database.open(); var count = check.prepareStatement(
                    "SELECT count(*) FROM jobs WHERE tenant_id = ? AND status = 'succeeded'")) {
                count.setObject(1, tenant);
                try (var rs = count.executeQuery()) {
                    rs.next();
                    assertEquals(total, rs.getInt(1));
                }
            }
        } finally {
            JobFixture.removeCommitted(database, tenant);
        }
    }
}
