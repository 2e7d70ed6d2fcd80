package dev.nixexec.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.tenant.Caller;
import dev.nixexec.tenant.Role;
import dev.nixexec.tenant.Tenants;
import dev.nixexec.testing.ApiOnlyNode;
import dev.nixexec.testing.NixSpy;
import dev.nixexec.worker.ResultWriter;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Several claimers (as many nodes would) race over one real PostgreSQL queue: every job is claimed
 * exactly once. This node only takes requests, so the claimers here are the only ones.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
@TestProfile(ApiOnlyNode.class)
class ClaimRaceTest {

    @Inject
    JobService jobs;

    @Inject
    JobReads reads;

    @Inject
    JobQueue queue;

    @Inject
    ResultWriter results;

    @Inject
    Tenants tenants;

    @Inject
    AgroalDataSource db;

    @Test
    void aResultOfAnEarlierAttemptIsNotStoredOverALaterOne() throws Exception {
        UUID tenant = tenants.create("attempts-" + UUID.randomUUID().toString().substring(0, 8), null, null).id;
        Caller caller = new Caller(tenant, null, Role.MEMBER);
        UUID id = jobs.submit(caller, new JobService.Submission("bash", "true", List.of(), Map.of(), "",
                Optional.empty(), false, Map.of()), null).job().id();
        String node = "attempt-node";
        ClaimedJob first = queue.claim(node, 10).stream().filter(j -> j.id().equals(id)).findFirst().orElseThrow();
        // taken back (its lease ran out while the node was slow) and claimed again by the same node
        try (Connection c = db.getConnection();
                PreparedStatement requeue = c.prepareStatement(
                        "UPDATE jobs SET status = 'queued', node_id = NULL, lease_until = NULL WHERE id = ?")) {
            requeue.setObject(1, id);
            assertEquals(1, requeue.executeUpdate());
        }
        ClaimedJob second = queue.claim(node, 10).stream().filter(j -> j.id().equals(id)).findFirst().orElseThrow();
        assertEquals(first.attempt() + 1, second.attempt());
        JobQueue.Outcome ok = new JobQueue.Outcome("succeeded", 0, null, false, null, 1L, "", "", 0, 0, false, false,
                null, null);
        assertEquals(false, results.write(node, new JobQueue.Finish(id, first.attempt(), ok, List.of())));
        assertEquals("building", reads.get(caller, id).status());
        assertEquals(true, results.write(node, new JobQueue.Finish(id, second.attempt(), ok, List.of())));
        assertEquals("succeeded", reads.get(caller, id).status());
    }

    /**
     * A job's times come from the clock of the node that took it, leases from the database's: a node
     * whose clock is ahead of the database's (or a database clock that jumped back) must not hold
     * its jobs back until the database catches up.
     */
    @Test
    void aJobFromANodeWhoseClockIsAheadIsClaimedAtOnce() throws Exception {
        UUID tenant = tenants.create("skew-" + UUID.randomUUID().toString().substring(0, 8), null, null).id;
        Caller caller = new Caller(tenant, null, Role.MEMBER);
        UUID id = jobs.submit(caller, new JobService.Submission("bash", "true", List.of(), Map.of(), "",
                Optional.empty(), false, Map.of()), null).job().id();
        try (Connection c = db.getConnection();
                PreparedStatement ahead = c.prepareStatement("UPDATE jobs SET created_at = now() + interval '60 seconds', "
                        + "run_after = now() + interval '60 seconds' WHERE id = ? AND status = 'queued'")) {
            ahead.setObject(1, id);
            assertEquals(1, ahead.executeUpdate());
        }
        List<ClaimedJob> claimed = queue.claim("skew-node", 10);
        assertTrue(claimed.stream().anyMatch(j -> j.id().equals(id)), "a queued job waited for the database's clock");
    }

    @Test
    void fiveHundredJobsFourClaimersEachJobOnce() throws InterruptedException {
        int total = 500;
        UUID tenant = tenants.create("race-" + UUID.randomUUID().toString().substring(0, 8),
                new dev.nixexec.tenant.TenantPolicy(null, null, null, null, null, null, total, 1000), null).id;
        Caller caller = new Caller(tenant, null, Role.MEMBER);
        Set<UUID> submitted = ConcurrentHashMap.newKeySet();
        for (int i = 0; i < total; i++) {
            submitted.add(jobs.submit(caller, new JobService.Submission("bash", "true", List.of(), Map.of(), "",
                    Optional.empty(), false, Map.of()), null).job().id());
        }
        ConcurrentLinkedQueue<UUID> claimed = new ConcurrentLinkedQueue<>();
        AtomicInteger finishedByOtherNode = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(4);
        for (int n = 0; n < 4; n++) {
            String node = "race-node-" + n;
            Thread.ofVirtual().start(() -> {
                try {
                    int idle = 0;
                    while (idle < 3) {
                        List<ClaimedJob> batch = queue.claim(node, 7);
                        idle = batch.isEmpty() ? idle + 1 : 0;
                        for (ClaimedJob job : batch) {
                            if (submitted.contains(job.id())) {
                                claimed.add(job.id());
                            }
                            boolean mine = results.write(node, new JobQueue.Finish(job.id(), job.attempt(), new JobQueue.Outcome(
                                    "succeeded", 0, null, false, null, 1L, "", "", 0, 0, false, false, null, null),
                                    List.of()));
                            if (!mine) {
                                finishedByOtherNode.incrementAndGet();
                            }
                        }
                    }
                } finally {
                    done.countDown();
                }
            });
        }
        assertTrue(done.await(5, java.util.concurrent.TimeUnit.MINUTES));
        assertEquals(total, claimed.size(), "claims of this test's jobs");
        assertEquals(total, Set.copyOf(claimed).size(), "a job was claimed twice");
        assertEquals(0, finishedByOtherNode.get());
        for (UUID id : submitted) {
            assertEquals("succeeded", reads.get(caller, id).status());
        }
    }
}
