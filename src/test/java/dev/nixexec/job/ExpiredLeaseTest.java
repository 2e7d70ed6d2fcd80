package dev.nixexec.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The reaper's decision for a job whose lease ran out, without a database. */
class ExpiredLeaseTest {

    private static ExpiredLease.Verdict verdict(JobStatus status, int attempt, boolean cancelRequested) {
        return new ExpiredLease(UUID.randomUUID(), "lost", status, attempt, 3, cancelRequested).verdict();
    }

    @Test
    void aJobWhoseCodeNeverStartedIsQueuedAgainWhileAttemptsRemain() {
        assertEquals(new ExpiredLease.Verdict(JobStatus.QUEUED, null), verdict(JobStatus.BUILDING, 1, false));
        assertEquals(new ExpiredLease.Verdict(JobStatus.QUEUED, null), verdict(JobStatus.BUILDING, 2, false));
    }

    @Test
    void aJobWhoseAttemptsAreUsedUpIsLost() {
        ExpiredLease.Verdict lost = verdict(JobStatus.BUILDING, 3, false);
        assertEquals(JobStatus.ERROR, lost.status());
        assertEquals("the job's node stopped responding 3 times before its code started", lost.errorMessage());
    }

    @Test
    void aJobWhoseCodeStartedIsNeverRetried() {
        ExpiredLease.Verdict lost = verdict(JobStatus.RUNNING, 1, false);
        assertEquals(JobStatus.ERROR, lost.status());
        assertEquals("the node running the job stopped responding; the job is not retried because its code had started",
                lost.errorMessage());
    }

    @Test
    void aRequestedCancelWins() {
        ExpiredLease.Verdict building = verdict(JobStatus.BUILDING, 1, true);
        assertEquals(JobStatus.CANCELLED, building.status());
        assertNull(building.errorMessage());
        assertEquals(JobStatus.CANCELLED, verdict(JobStatus.RUNNING, 1, true).status());
    }
}
