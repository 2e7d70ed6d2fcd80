package dev.nixexec.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.testing.Database;
import dev.nixexec.testing.DatabaseTest;
import dev.nixexec.testing.ServiceJson;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * Each transition of {@link JobTransitions} on the real database: the job, its events, its audit
 * records, and (where a test commits) its notifications, written by one statement; and every
 * guard that keeps a job from being moved by someone who no longer holds it.
 */
@DatabaseTest
class JobTransitionsTest {

    private static final Outcome SUCCEEDED = new Outcome(JobStatus.SUCCEEDED, 0, null, false,
            null, 5L, "out", "", 3, 0, false, false, null, null, null);

    private JobFixture db;

    @BeforeEach
    void fixture(Database database) {
        db = new JobFixture(database);
    }

    private ClaimedJob claimOne(String node, UUID id) {
        return db.transitions.claim(node, 10).stream().filter(j -> j.id().equals(id)).findFirst().orElseThrow();
    }

    @Test
    void insertQueuesTheJobWithItsEventAndAuditRecord() throws Exception {
        UUID id = db.submit(db.tenant());
        assertEquals(JobStatus.QUEUED, db.row(id).status());
        assertEquals(0, db.row(id).attempt());
        assertEquals(List.of("status:queued"), db.events(id));
        assertEquals(List.of("submitted {}"), db.audit(id));
    }

    @Test
    void insertRefusesPastTheTenantsQueuedCap() throws Exception {
        UUID tenant = db.tenant();
        db.submit(tenant);
        db.submit(tenant);
        Job third = db.job(tenant);
        JobTransitions.Inserted refused = db.transitions.insert(third, 2, "{}", Optional.empty());
        assertFalse(refused.stored());
        assertEquals(2, refused.queuedBefore());
    }

    @Test
    void insertHandsTheJobToAFreeLocalSlotWhenNothingWaits() throws Exception {
        Job job = db.job(db.tenant());
        JobTransitions.Inserted inserted = db.transitions.insert(job, 10, "{}", Optional.of("here"));
        assertEquals(Optional.of("here"), inserted.claimedBy());
        assertEquals(new JobFixture.Row(JobStatus.BUILDING, "here", 1, false, null, null), db.row(job.id()));
        assertEquals(List.of("status:queued", "status:building"), db.events(job.id()));
        assertEquals(List.of("submitted {}", "claimed@here {\"attempt\": 1}"), db.audit(job.id()));
    }

    @Test
    void insertDoesNotHandOffPastAJobAWorkerCouldClaim() throws Exception {
        UUID waiting = db.submit(db.tenant());
        Job job = db.job(db.tenant());
        assertEquals(Optional.empty(), db.transitions.insert(job, 10, "{}", Optional.of("here")).claimedBy());
        assertEquals(JobStatus.QUEUED, db.row(job.id()).status());
        assertEquals(JobStatus.QUEUED, db.row(waiting).status());
    }

    @Test
    void insertDoesNotHandOffPastTheTenantsRunningCap() throws Exception {
        UUID capped = db.tenant("{\"max_running\": 1}");
        claimOne("elsewhere", db.submit(capped));
        Job job = db.job(capped);
        assertEquals(Optional.empty(), db.transitions.insert(job, 10, "{}", Optional.of("here")).claimedBy());
        assertEquals(JobStatus.QUEUED, db.row(job.id()).status());
    }

    @Test
    void claimTakesAQueuedJobWithItsEventAndAuditRecord() throws Exception {
        UUID id = db.submit(db.tenant());
        ClaimedJob claimed = claimOne("n1", id);
        assertEquals(1, claimed.attempt());
        assertEquals("bash", claimed.submission().run().language());
        assertEquals(Optional.of(Duration.ofSeconds(10)), claimed.submission().run().timeout());
        assertEquals(new JobFixture.Row(JobStatus.BUILDING, "n1", 1, false, null, null), db.row(id));
        assertEquals(List.of("status:queued", "status:building"), db.events(id));
        assertEquals("claimed@n1 {\"attempt\": 1}", db.audit(id).get(1));
        assertTrue(db.transitions.claim("n2", 10).isEmpty(), "a claimed job was claimed again");
    }

    @Test
    void startMarksTheCodeStartedOnlyOnTheNodeThatHoldsTheJob() throws Exception {
        UUID id = db.submit(db.tenant());
        claimOne("n1", id);
        assertFalse(db.transitions.start(id, 1, "n2", "/nix/store/x", "rev", true, 7), "another node started it");
        assertFalse(db.transitions.start(id, 0, "n1", "/nix/store/x", "rev", true, 7), "a run of another attempt started it");
        assertTrue(db.transitions.start(id, 1, "n1", "/nix/store/x", "rev", true, 7));
        assertEquals(JobStatus.RUNNING, db.row(id).status());
        assertEquals(List.of("status:queued", "status:building", "status:running"), db.events(id));
        List<String> audit = db.audit(id);
        assertTrue(audit.get(2).startsWith("environment@n1 "), audit.toString());
        assertEquals("started@n1 {}", audit.get(3));
        assertFalse(db.transitions.start(id, 1, "n1", "/nix/store/x", "rev", true, 7), "started twice");
    }

    @Test
    void aJobWhoseCancelWasRequestedDoesNotStart() throws Exception {
        UUID tenant = db.tenant();
        UUID id = db.submit(tenant);
        claimOne("n1", id);
        assertTrue(db.transitions.cancel(tenant, id, null).isPresent());
        assertFalse(db.transitions.start(id, 1, "n1", "/nix/store/x", "rev", true, 7));
        assertEquals(JobStatus.BUILDING, db.row(id).status());
    }

    @Test
    void finishStoresTheResultWithTheLastOutputAndEndEvents() throws Exception {
        UUID id = db.submit(db.tenant());
        ClaimedJob job = claimOne("n1", id);
        db.transitions.start(id, 1, "n1", "/nix/store/x", "rev", false, 7);
        Set<UUID> stored = db.transitions.finish("n1", List.of(new JobTransitions.Finish(id, job.attempt(), SUCCEEDED,
                List.of(new JobTransitions.Chunk("stdout", "o"), new JobTransitions.Chunk("stdout", "ut")))));
        assertEquals(Set.of(id), stored);
        assertEquals(JobStatus.SUCCEEDED, db.row(id).status());
        assertEquals(List.of("status:queued", "status:building", "status:running", "stdout:o", "stdout:ut",
                "status:succeeded", "result:"), db.events(id));
        assertEquals("finished@n1 {\"status\": \"succeeded\", \"exit_code\": 0}", db.audit(id).getLast());
        assertEquals(List.of(id), db.ended.stream().map(Job::id).toList());
        assertEquals("out", db.ended.getFirst().stdout());
    }

    @Test
    void aFinishOfAJobTakenBackDoesNothing() throws Exception {
        UUID id = db.submit(db.tenant());
        ClaimedJob first = claimOne("n1", id);
        db.expireLease(id);
        assertEquals(1, db.transitions.reap().requeued().size());
        ClaimedJob second = claimOne("n1", id);
        assertEquals(first.attempt() + 1, second.attempt());
        int events = db.events(id).size();

        assertEquals(Set.of(), db.transitions.finish("n1", List.of(new JobTransitions.Finish(id, first.attempt(),
                SUCCEEDED, List.of(new JobTransitions.Chunk("stdout", "late"))))), "an earlier attempt's result");
        assertEquals(Set.of(), db.transitions.finish("n2", List.of(new JobTransitions.Finish(id, second.attempt(),
                SUCCEEDED, List.of()))), "another node's result");
        assertEquals(JobStatus.BUILDING, db.row(id).status());
        assertEquals(events, db.events(id).size(), "events of a result not stored");
        assertTrue(db.ended.isEmpty());

        assertEquals(Set.of(id), db.transitions.finish("n1", List.of(new JobTransitions.Finish(id, second.attempt(),
                SUCCEEDED, List.of()))));
        assertEquals(JobStatus.SUCCEEDED, db.row(id).status());
    }

    @Test
    void aFlaggedJobThatDidNotSucceedEndsCancelled() throws Exception {
        UUID tenant = db.tenant();
        UUID key = UUID.randomUUID();
        db.execute("INSERT INTO api_keys (id, tenant_id, role, secret_hash) VALUES (?, ?, 'member', ?)", key, tenant,
                key.toString().getBytes());
        UUID id = db.submit(tenant);
        ClaimedJob job = claimOne("n1", id);
        db.transitions.cancel(tenant, id, key);
        Outcome killed = new Outcome(JobStatus.FAILED, null, 9, false, null, 5L, "", "", 0, 0,
                false, false, null, null, null);
        db.transitions.finish("n1", List.of(new JobTransitions.Finish(id, job.attempt(), killed, List.of())));
        assertEquals(JobStatus.CANCELLED, db.row(id).status());
        assertEquals("cancelled@n1 {\"status\": \"cancelled\"}", db.audit(id).getLast());
    }

    @Test
    void cancelEndsAQueuedJobAtOnce() throws Exception {
        UUID tenant = db.tenant();
        UUID id = db.submit(tenant);
        Optional<Job> cancelled = db.transitions.cancel(tenant, id, null);
        assertEquals(JobStatus.CANCELLED, cancelled.orElseThrow().jobStatus());
        assertEquals(new JobFixture.Row(JobStatus.CANCELLED, null, 0, true, null, null), db.row(id));
        assertEquals(List.of("status:queued", "status:cancelled", "result:"), db.events(id));
        assertEquals(List.of("submitted {}", "cancelled {\"was\": \"queued\"}"), db.audit(id));
        assertEquals(List.of(id), db.ended.stream().map(Job::id).toList());
        assertTrue(db.transitions.claim("n1", 10).isEmpty(), "a cancelled job was claimed");
    }

    @Test
    void cancelFlagsARunningJobAndLeavesItToItsNode() throws Exception {
        UUID tenant = db.tenant();
        UUID id = db.submit(tenant);
        claimOne("n1", id);
        db.transitions.start(id, 1, "n1", "/nix/store/x", "rev", true, 7);
        assertTrue(db.transitions.cancel(tenant, id, null).isPresent());
        assertEquals(new JobFixture.Row(JobStatus.RUNNING, "n1", 1, true, null, null), db.row(id));
        assertEquals("cancel_requested {\"was\": \"running\"}", db.audit(id).getLast());
        assertTrue(db.ended.isEmpty());
        assertEquals(Optional.empty(), db.transitions.cancel(tenant, id, null), "flagged twice");
    }

    @Test
    void cancelLeavesAnotherTenantsJobAndAnEndedJobAlone() throws Exception {
        UUID tenant = db.tenant();
        UUID id = db.submit(tenant);
        assertEquals(Optional.empty(), db.transitions.cancel(db.tenant(), id, null));
        assertEquals(JobStatus.QUEUED, db.row(id).status());
        db.transitions.cancel(tenant, id, null);
        int audit = db.audit(id).size();
        assertEquals(Optional.empty(), db.transitions.cancel(tenant, id, null));
        assertEquals(audit, db.audit(id).size());
    }

    @Test
    void giveBackReturnsAClaimedJobToTheQueueAsIfNeverClaimed() throws Exception {
        UUID id = db.submit(db.tenant());
        claimOne("n1", id);
        assertFalse(db.transitions.giveBack(id, "n2"), "another node gave it back");
        assertTrue(db.transitions.giveBack(id, "n1"));
        assertEquals(new JobFixture.Row(JobStatus.QUEUED, null, 0, false, null, null), db.row(id));
        assertEquals(List.of("status:queued", "status:building", "status:queued"), db.events(id));
        assertEquals("requeued@n1 {\"reason\": \"node shutting down\"}", db.audit(id).getLast());
        assertEquals(1, claimOne("n2", id).attempt());
    }

    @Test
    void aStartedJobCannotBeGivenBack() throws Exception {
        UUID id = db.submit(db.tenant());
        claimOne("n1", id);
        db.transitions.start(id, 1, "n1", "/nix/store/x", "rev", true, 7);
        assertFalse(db.transitions.giveBack(id, "n1"));
        assertEquals(JobStatus.RUNNING, db.row(id).status());
    }

    @Test
    void reapEndsAStartedJobAsWorkerLostAndQueuesAnUnstartedOneAgain() throws Exception {
        UUID started = db.submit(db.tenant());
        UUID claimedOnly = db.submit(db.tenant());
        UUID healthy = db.submit(db.tenant());
        // one at a time: each claim takes the oldest queued job
        assertEquals(started, db.transitions.claim("lost", 1).getFirst().id());
        assertEquals(claimedOnly, db.transitions.claim("lost", 1).getFirst().id());
        assertEquals(healthy, db.transitions.claim("alive", 1).getFirst().id());
        db.transitions.start(started, 1, "lost", "/nix/store/x", "rev", true, 7);
        db.expireLease(started);
        db.expireLease(claimedOnly);

        JobTransitions.Reaped reaped = db.transitions.reap();
        assertEquals(List.of(claimedOnly), reaped.requeued());
        assertEquals(List.of(started), reaped.ended().stream().map(Job::id).toList());

        JobFixture.Row lost = db.row(started);
        assertEquals(JobStatus.ERROR, lost.status());
        assertEquals("worker_lost", lost.errorCode());
        assertTrue(lost.errorMessage().contains("not retried because its code had started"), lost.errorMessage());
        assertEquals(List.of("status:error", "result:"), db.events(started).subList(3, 5));
        assertEquals("finished@lost {\"status\": \"error\", \"error_code\": \"worker_lost\"}", db.audit(started).getLast());

        assertEquals(new JobFixture.Row(JobStatus.QUEUED, null, 1, false, null, null), db.row(claimedOnly));
        assertEquals("status:queued", db.events(claimedOnly).getLast());
        assertEquals("requeued@lost {\"attempt\": 1}", db.audit(claimedOnly).getLast());

        assertEquals(JobStatus.BUILDING, db.row(healthy).status(), "a job whose lease runs was taken");
        assertEquals(0, db.transitions.reap().count());
    }

    @Test
    void reapStopsQueuingAJobWhoseAttemptsAreUsedUp() throws Exception {
        UUID id = db.submit(db.tenant());
        for (int attempt = 1; attempt <= 3; attempt++) {
            assertEquals(attempt, claimOne("flaky-" + attempt, id).attempt());
            db.expireLease(id);
            db.transitions.reap();
        }
        JobFixture.Row row = db.row(id);
        assertEquals(JobStatus.ERROR, row.status());
        assertEquals("worker_lost", row.errorCode());
        assertEquals("the job's node stopped responding 3 times before its code started", row.errorMessage());
    }

    @Test
    void reapEndsAFlaggedJobCancelled() throws Exception {
        UUID tenant = db.tenant();
        UUID id = db.submit(tenant);
        claimOne("lost", id);
        db.transitions.cancel(tenant, id, null);
        db.expireLease(id);
        db.transitions.reap();
        assertEquals(JobStatus.CANCELLED, db.row(id).status());
        assertEquals("cancelled@lost {\"status\": \"cancelled\"}", db.audit(id).getLast());
    }

    /** Notifications are sent at commit: this test commits, and removes what it wrote. */
    @Test
    void cancelOfAQueuedJobNotifiesFollowersAndWaitersWhenItCommits(Database database) throws Exception {
        try (Connection listener = database.open(); Connection writer = database.open()) {
            try (var listen = listener.createStatement()) {
                listen.execute("LISTEN " + JobNotifications.CHANGED + "; LISTEN " + JobNotifications.ENDED
                        + "; LISTEN " + JobNotifications.CANCEL);
            }
            writer.setAutoCommit(false);
            JobFixture committed = new JobFixture(writer, JobFixture.SETTINGS);
            UUID tenant = committed.tenant();
            UUID queued = committed.submit(tenant);
            writer.commit();
            try {
                committed.transitions.cancel(tenant, queued, null);
                assertTrue(notifications(listener).isEmpty(), "notified before the commit");
                writer.commit();
                assertEquals(List.of(JobNotifications.CHANGED + ":" + queued, JobNotifications.ENDED + ":" + queued),
                        notifications(listener));
            } finally {
                committed.execute("DELETE FROM audit_events WHERE tenant_id = ?", tenant);
                committed.execute("DELETE FROM jobs WHERE tenant_id = ?", tenant);
                committed.execute("DELETE FROM tenants WHERE id = ?", tenant);
                writer.commit();
            }
        }
    }

    /**
     * A claim, and a finish, of several jobs: one {@code changed} notification names them all
     * (comma-separated, as listeners read it), not one per job; each job still gets its own end.
     */
    @Test
    void aBatchNotifiesItsChangeOnceAndEachEndOnItsOwn(Database database) throws Exception {
        try (Connection listener = database.open(); Connection writer = database.open()) {
            try (var listen = listener.createStatement()) {
                listen.execute("LISTEN " + JobNotifications.CHANGED + "; LISTEN " + JobNotifications.ENDED);
            }
            writer.setAutoCommit(false);
            JobFixture committed = new JobFixture(writer, JobFixture.SETTINGS);
            UUID tenant = committed.tenant();
            Set<UUID> ids = Set.of(committed.submit(tenant), committed.submit(tenant), committed.submit(tenant));
            writer.commit();
            try {
                List<ClaimedJob> claimed = committed.transitions.claim("batch-node", 10);
                writer.commit();
                assertEquals(ids, Set.copyOf(claimed.stream().map(ClaimedJob::id).toList()));
                List<String> heard = notifications(listener, 1);
                assertEquals(1, heard.size(), heard.toString());
                assertEquals(ids, named(heard.getFirst(), JobNotifications.CHANGED));

                committed.transitions.finish("batch-node", claimed.stream()
                        .map(j -> new JobTransitions.Finish(j.id(), j.attempt(), SUCCEEDED, List.of())).toList());
                writer.commit();
                heard = notifications(listener, 4);
                List<String> changed = heard.stream().filter(n -> n.startsWith(JobNotifications.CHANGED + ":")).toList();
                assertEquals(1, changed.size(), heard.toString());
                assertEquals(ids, named(changed.getFirst(), JobNotifications.CHANGED));
                Set<UUID> ended = new java.util.HashSet<>();
                heard.stream().filter(n -> n.startsWith(JobNotifications.ENDED + ":"))
                        .forEach(n -> ended.add(UUID.fromString(n.substring(JobNotifications.ENDED.length() + 1))));
                assertEquals(ids, ended);
                assertEquals(4, heard.size(), heard.toString());
            } finally {
                committed.execute("DELETE FROM audit_events WHERE tenant_id = ?", tenant);
                committed.execute("DELETE FROM jobs WHERE tenant_id = ?", tenant);
                committed.execute("DELETE FROM tenants WHERE id = ?", tenant);
                writer.commit();
            }
        }
    }

    private static Set<UUID> named(String notification, String channel) {
        assertTrue(notification.startsWith(channel + ":"), notification);
        Set<UUID> ids = new java.util.HashSet<>();
        for (String id : notification.substring(channel.length() + 1).split(",")) {
            ids.add(UUID.fromString(id));
        }
        return ids;
    }

    /** What the listener hears until {@code expected} notifications came (or a wait hears nothing), and any more. */
    private static List<String> notifications(Connection listener, int expected) throws Exception {
        List<String> heard = new ArrayList<>();
        while (true) {
            List<String> more = notifications(listener);
            heard.addAll(more);
            if (more.isEmpty() || heard.size() >= expected) {
                break;
            }
        }
        heard.addAll(notifications(listener));
        return heard;
    }

    private static List<String> notifications(Connection listener) throws Exception {
        List<String> heard = new ArrayList<>();
        PGNotification[] batch = listener.unwrap(PGConnection.class).getNotifications(500);
        if (batch != null) {
            for (PGNotification n : batch) {
                heard.add(n.getName() + ":" + n.getParameter());
            }
        }
        return heard;
    }

    @Test
    void bothIntakeStatementsArePlannedOncePerConnection() throws Exception {
        UUID tenant = db.tenant();
        for (int i = 0; i < 8; i++) {
            db.transitions.insert(db.job(tenant), 100, "{}", Optional.of("here"));
            db.transitions.insert(db.job(tenant), 100, "{}", Optional.empty());
        }
        // the driver names a statement on its connection from its fifth use; PostgreSQL plans a
        // named statement for each execution's values ("custom") unless told to plan it once
        // the hand-off's, with the claim rule, and the one for a job no local slot waits for
        for (String statement : List.of("%running AS (%INSERT INTO jobs (id%", "%WHERE false), stored AS (%")) {
            try (PreparedStatement s = db.connection.prepareStatement("""
                    SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE statement LIKE ?
                    """)) {
                s.setString(1, statement);
                try (ResultSet rs = s.executeQuery()) {
                    assertTrue(rs.next(), "the intake statement " + statement + " is not prepared on the connection");
                    assertTrue(rs.getLong("generic_plans") >= 3, "it ran on a plan for any values only "
                            + rs.getLong("generic_plans") + " times");
                    assertEquals(0L, rs.getLong("custom_plans"), "it was planned for its values");
                    assertFalse(rs.next(), statement + " matched two statements");
                }
            }
        }
    }

    /** The times a submission stores are the instants it was given, to the microsecond, whichever its offset. */
    @Test
    void bothIntakeStatementsStoreTheSubmissionsTimeExactly() throws Exception {
        OffsetDateTime onTheMinute = OffsetDateTime.of(2026, 12, 3, 17, 5, 0, 1_000, ZoneOffset.ofHours(2));
        // handed off first: a job queued before it would keep it from a free slot
        Job handedOff = JobFixture.job(db.tenant(), onTheMinute.plusNanos(998_000), null);
        assertEquals(Optional.of("here"), db.transitions.insert(handedOff, 10, "{}", Optional.of("here")).claimedBy());
        Job queued = JobFixture.job(db.tenant(), onTheMinute, null);
        assertTrue(db.transitions.insert(queued, 10, "{}", Optional.empty()).stored());
        try (PreparedStatement s = db.connection.prepareStatement(
                "SELECT created_at, run_after, claimed_at FROM jobs WHERE id = ?")) {
            for (Job job : List.of(queued, handedOff)) {
                s.setObject(1, job.id());
                try (ResultSet rs = s.executeQuery()) {
                    assertTrue(rs.next());
                    assertEquals(job.createdAt().toInstant(), rs.getObject("created_at", OffsetDateTime.class).toInstant());
                    assertEquals(job.createdAt().toInstant(), rs.getObject("run_after", OffsetDateTime.class).toInstant());
                    OffsetDateTime claimedAt = rs.getObject("claimed_at", OffsetDateTime.class);
                    assertEquals(job == handedOff ? job.createdAt().toInstant() : null,
                            claimedAt == null ? null : claimedAt.toInstant());
                }
            }
        }
    }

    @Test
    void theClaimIsPlannedOncePerConnection() throws Exception {
        UUID tenant = db.tenant();
        db.backlog(tenant, 16);
        for (int i = 0; i < 8; i++) {
            assertEquals(2, db.transitions.claim("plan-node", 2).size());
        }
        try (Statement s = db.connection.createStatement(); ResultSet rs = s.executeQuery("""
                SELECT generic_plans, custom_plans FROM pg_prepared_statements
                WHERE statement LIKE '%UPDATE jobs SET status = ''building''%'
                """)) {
            assertTrue(rs.next(), "the claim is not prepared on the connection");
            assertTrue(rs.getLong("generic_plans") >= 3, "it ran on a plan for any values only "
                    + rs.getLong("generic_plans") + " times");
            assertEquals(0L, rs.getLong("custom_plans"), "it was planned for its values");
        }
    }
}
