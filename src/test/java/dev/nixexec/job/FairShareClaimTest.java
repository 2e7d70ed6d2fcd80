package dev.nixexec.job;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.nixexec.testing.Database;
import dev.nixexec.testing.DatabaseTest;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The claim rule on the real database: while another tenant contends (a job waiting, or one
 * submitted within the window), a tenant holds at most its share of a node (2 slots, 1 reserved),
 * on each node.
 */
@DatabaseTest
class FairShareClaimTest {

    private static JobFixture fixture(Database database, Duration window) {
        return new JobFixture(database, new JobTransitions.Settings(Duration.ofSeconds(30), 1000, window, 1, 2));
    }

    private static long mine(List<ClaimedJob> claimed, Set<UUID> ids) {
        return claimed.stream().map(ClaimedJob::id).filter(ids::contains).count();
    }

    @Test
    void aTenantTakesOnlyItsShareOfEachNodeWhileAnotherSubmittedLately(Database database) throws Exception {
        JobFixture db = fixture(database, Duration.ofMinutes(5));
        UUID a = db.tenant();
        UUID b = db.tenant();
        UUID recent = db.submit(b);
        db.transitions.cancel(b, recent, null); // b submitted a job a moment ago; it is over
        Set<UUID> flood = Set.of(db.submit(a), db.submit(a), db.submit(a), db.submit(a));

        // free slots are not the limit here: the share is
        assertEquals(1, mine(db.transitions.claim("share-node-1", 10), flood), "a holds its share of node 1");
        assertEquals(0, mine(db.transitions.claim("share-node-1", 10), flood), "node 1's last slot is left to b");
        assertEquals(1, mine(db.transitions.claim("share-node-2", 10), flood), "the share is per node");
    }

    @Test
    void aWaitingJobOfAnotherTenantKeepsTheLastSlotFree(Database database) throws Exception {
        JobFixture db = fixture(database, Duration.ZERO);
        UUID a = db.tenant();
        UUID b = db.tenant();
        Set<UUID> flood = Set.of(db.submit(a), db.submit(a), db.submit(a));
        UUID waiting = db.submit(b);
        List<ClaimedJob> claimed = db.transitions.claim("wait-node", 10);
        assertEquals(1, mine(claimed, flood), "a holds its share while b's job waits");
        assertEquals(1, mine(claimed, Set.of(waiting)), "b's job is claimed");
    }

    @Test
    void aTenantAloneTakesTheWholeNode(Database database) throws Exception {
        JobFixture db = fixture(database, Duration.ofMinutes(5));
        UUID a = db.tenant();
        Set<UUID> flood = Set.of(db.submit(a), db.submit(a), db.submit(a));
        assertEquals(2, mine(db.transitions.claim("alone-node", 2), flood), "the reserved slot is a's while nobody contends");
    }
}
