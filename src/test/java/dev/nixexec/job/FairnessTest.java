package dev.nixexec.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.testing.Database;
import dev.nixexec.testing.DatabaseTest;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The claim order on the real database: one tenant's backlog does not starve another tenant's job
 * submitted after it, because a job's turn is its tenant's running count plus its rank in the
 * tenant's queue. Claims are taken one slot at a time, as a busy node frees them. (That the service
 * runs jobs in this order end to end: {@code FairnessEndToEndTest}.)
 */
@DatabaseTest
class FairnessTest {

    private JobFixture db;

    @BeforeEach
    void fixture(Database database) {
        db = new JobFixture(database);
    }

    /** The next job the claim gives this node's one free slot. */
    private UUID next() {
        List<ClaimedJob> claimed = db.transitions.claim("node", 1);
        assertEquals(1, claimed.size(), "claimed: " + claimed);
        return claimed.getFirst().id();
    }

    @Test
    void aSmallTenantIsNotStarvedByABigBacklog() throws Exception {
        List<UUID> backlog = db.backlog(db.tenant(), 1000);
        UUID small = db.submit(db.tenant());
        assertEquals(List.of(backlog.get(0), small, backlog.get(1), backlog.get(2)), List.of(next(), next(), next(), next()));
    }

    @Test
    void tenantsTakeTurnsOldestFirst() throws Exception {
        UUID a = db.tenant();
        UUID b = db.tenant();
        List<UUID> as = List.of(db.submit(a), db.submit(a), db.submit(a));
        List<UUID> bs = List.of(db.submit(b), db.submit(b), db.submit(b));
        List<UUID> order = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            order.add(next());
        }
        assertEquals(List.of(as.get(0), bs.get(0), as.get(1), bs.get(1), as.get(2), bs.get(2)), order);
    }

    @Test
    void aTenantWithFewerRunningJobsGoesFirstWhateverTheAge() throws Exception {
        UUID busy = db.tenant();
        for (int i = 0; i < 3; i++) {
            db.submit(busy);
        }
        assertEquals(3, db.transitions.claim("elsewhere", 10).size());
        UUID older = db.submit(busy);
        UUID newer = db.submit(db.tenant());
        assertEquals(List.of(newer, older), List.of(next(), next()));
    }

    @Test
    void aTenantAtItsRunningCapGetsNothing() throws Exception {
        UUID capped = db.tenant("{\"max_running\": 1}");
        UUID first = db.submit(capped);
        UUID second = db.submit(capped);
        assertEquals(first, next());
        assertTrue(db.transitions.claim("node", 1).isEmpty(), "a tenant at its cap was given a slot");
        assertEquals(JobStatus.QUEUED, db.row(second).status());
    }

    @Test
    void aFreeNodeTakesSeveralInOneClaim() throws Exception {
        List<UUID> backlog = db.backlog(db.tenant(), 50);
        UUID small = db.submit(db.tenant());
        List<UUID> claimed = db.transitions.claim("node", 3).stream().map(ClaimedJob::id).toList();
        assertEquals(3, claimed.size());
        assertTrue(claimed.contains(small), "the small tenant's job waited: " + claimed);
        assertTrue(claimed.containsAll(backlog.subList(0, 2)), "the backlog's oldest go first: " + claimed);
    }
}
