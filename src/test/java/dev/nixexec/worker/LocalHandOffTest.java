package dev.nixexec.worker;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.execution.ExecutionRequest;
import dev.nixexec.config.NixExecConfig;
import dev.nixexec.config.StatePaths;
import dev.nixexec.job.ClaimedJob;
import dev.nixexec.job.LocalSlots;
import dev.nixexec.job.PendingSubmission;
import dev.nixexec.job.PendingSubmissions;
import dev.nixexec.nix.EnvironmentCache;
import dev.nixexec.nix.EnvironmentRequest;
import dev.nixexec.nix.Language;
import dev.nixexec.nix.NixExpressions;
import dev.nixexec.nix.NixpkgsPins;
import dev.nixexec.nix.PackageName;
import dev.nixexec.refusal.InvalidRequestException;
import dev.nixexec.refusal.Refusal;

import dev.nixexec.job.JobEvents;
import dev.nixexec.job.JobReads;
import dev.nixexec.job.JobWaits;
import dev.nixexec.job.JobService;
import dev.nixexec.job.Submission;
import dev.nixexec.job.JobView;
import dev.nixexec.tenant.Caller;
import dev.nixexec.tenant.Role;
import dev.nixexec.tenant.TenantPolicy;
import dev.nixexec.tenant.Tenants;
import dev.nixexec.testing.NixSpy;
import io.agroal.api.AgroalDataSource;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * A job submitted on a node with a free slot goes straight to that slot, claimed in its submission,
 * but never past a job a worker could claim now, and never past its tenant's running cap.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
class LocalHandOffTest {

    @Inject
    JobService jobs;

    @Inject
    JobReads reads;

    @Inject
    JobWaits waits;

    @Inject
    Tenants tenants;

    @Inject
    WorkerPool pool;

    @Inject
    AgroalDataSource db;

    @Inject
    EnvironmentCache environments;

    @Inject
    NixExecConfig config;

    @Inject
    NixpkgsPins pins;

    @Inject
    NixExpressions expressions;

    @Inject
    StatePaths paths;

    @Inject
    MeterRegistry registry;

    private Caller tenant(String name, Integer maxRunning) {
        return tenantWith(name, new TenantPolicy(null, null, null, null, null, null, null, maxRunning));
    }

    private Caller tenantWith(String name, TenantPolicy policy) {
        UUID id = tenants.create(name + "-" + UUID.randomUUID().toString().substring(0, 8), policy, null).id;
        return new Caller(id, null, Role.MEMBER);
    }

    /**
     * Waits until every slot of the node is free again: a run started before its submission
     * committed gives its slot back when the submission did not store the job as this node's.
     */
    private void awaitAllSlotsFree() throws InterruptedException {
        awaitFreeSlots(config.node().concurrency());
    }

    /** A free slot of the node, held for the test: the claim loop holds the free ones for a moment while it claims. */
    private LocalSlots.Slot freeSlot() throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        for (Optional<LocalSlots.Slot> slot = pool.take(); ; slot = pool.take()) {
            if (slot.isPresent()) {
                return slot.get();
            }
            assertTrue(System.nanoTime() < deadline, "no slot of the node came free");
            Thread.sleep(10);
        }
    }

    /** Waits until at least {@code count} slots of the node are free. */
    private void awaitFreeSlots(int count) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (true) {
            List<LocalSlots.Slot> held = new ArrayList<>();
            for (Optional<LocalSlots.Slot> slot = pool.take(); slot.isPresent(); slot = pool.take()) {
                held.add(slot.get());
            }
            held.forEach(LocalSlots.Slot::release);
            if (held.size() >= count) {
                return;
            }
            assertTrue(System.nanoTime() < deadline, "a slot was not given back: " + held.size() + " of "
                    + config.node().concurrency() + " free");
            Thread.sleep(10);
        }
    }

    private static Submission bash(String code) {
        return Submission.of(ExecutionRequest.of("bash", code));
    }

    /** Runs started before their submission committed, on this node so far. */
    private double earlyRuns() {
        return Optional.ofNullable(registry.find("nixexec.jobs.early.runs").counter()).map(c -> c.count()).orElse(0.0);
    }

    private List<String> audit(UUID job) throws SQLException {
        List<String> kinds = new ArrayList<>();
        try (Connection c = db.getConnection();
                PreparedStatement q = c.prepareStatement("SELECT kind, node_id FROM audit_events WHERE job_id = ? ORDER BY id")) {
            q.setObject(1, job);
            try (ResultSet r = q.executeQuery()) {
                while (r.next()) {
                    kinds.add(r.getString(1) + (r.getString(2) == null ? "" : "@" + r.getString(2)));
                }
            }
        }
        return kinds;
    }

    @Test
    void aJobSubmittedToAnIdleNodeIsClaimedByItInItsSubmission() throws SQLException {
        Caller caller = tenant("idle", null);
        JobView submitted = jobs.submit(caller, bash("echo handed"), null).job();
        assertEquals("building", submitted.status());
        assertEquals(pool.nodeId(), submitted.nodeId());
        assertEquals(1, submitted.attempt());

        JobView done = waits.await(caller, submitted.id(), Duration.ofSeconds(30));
        assertEquals("succeeded", done.status());
        assertEquals("handed\n", done.stdout());
        assertEquals(List.of("queued", "building", "running", "succeeded"), reads.events(caller, submitted.id(), 0).stream()
                .filter(e -> e.kind().equals("status")).map(JobEvents.Event::data).toList());
        assertEquals(List.of("submitted", "claimed@" + pool.nodeId(), "environment@" + pool.nodeId(),
                "started@" + pool.nodeId(), "finished@" + pool.nodeId()), audit(submitted.id()));
    }

    /**
     * The run of a job without files starts while its submission is stored; a submission its
     * transaction refuses (here the tenant's package denylist) leaves nothing: no job, no build of
     * the environment it asked for, and the slot free again.
     */
    @Test
    void aSubmissionRefusedInItsTransactionBuildsNothingAndGivesItsSlotBack() throws Exception {
        Caller denied = tenantWith("denied", new TenantPolicy(null, null, List.of("hello"), null, null, null, null, null));
        List<String> packages = List.of("gnused", "hello", "jq");
        assertTrue(notCached(packages), "the environment is cached already: this test would prove nothing");
        // until the submission found a slot free and started the run before its commit: the claim
        // loop may hold the free slots a moment, and a submission without one starts nothing early
        int tries = 0;
        double early;
        do {
            awaitAllSlotsFree();
            early = earlyRuns();
            assertThrows(InvalidRequestException.class, () -> jobs.submit(denied, Submission.of(new ExecutionRequest("bash",
                    "echo never", packages, Map.of(), "", Optional.empty(), false)), null));
            awaitAllSlotsFree();
        } while (earlyRuns() == early && ++tries < 20);
        assertTrue(earlyRuns() > early, "no submission of " + tries + " started its run early");
        // Only this request's: environments other tests asked for may still be building meanwhile.
        assertEquals(List.of(), NixSpy.requests().stream().filter(line -> packages.stream()
                .allMatch(p -> line.contains("\"name\":\"" + p + "\""))).toList(), "nix ran for a refused submission");
        assertEquals(0, reads.list(denied, new JobReads.Filter(null, null, null, null, null, null, null, null, null),
                10, null).items().size());
    }

    /** A repeated idempotency key with another request is refused in the transaction, after its run was prepared. */
    @Test
    void aConflictingIdempotencyKeyLeavesTheFirstJobAloneAndTheSlotFree() throws Exception {
        Caller caller = tenant("conflict", null);
        JobView first = jobs.submit(caller, bash("echo first"), "same-key").job();
        assertEquals("succeeded", waits.await(caller, first.id(), Duration.ofSeconds(30)).status());
        awaitAllSlotsFree();
        Refusal conflict = assertThrows(Refusal.class, () -> jobs.submit(caller, bash("echo second"), "same-key"));
        assertEquals(Refusal.Kind.CONFLICT, conflict.kind());
        awaitAllSlotsFree();
        assertEquals(List.of(first.id()), reads.list(caller, new JobReads.Filter(null, null, null, null, null, null,
                null, null, null), 10, null).items().stream().map(JobView::id).toList());
        assertEquals("first\n", reads.get(caller, first.id()).stdout());
    }

    /**
     * A submission whose hand-off was refused (stored queued: its policy changed, or a job a worker
     * could claim waited) may be claimed by this very node while its early run still tears its
     * sandbox down. That run's end must not make the node forget the run it claimed: here the
     * early run of a submission not decided yet stands for it, under the id of the job the node
     * then runs. Forgotten, the job's lease is no longer renewed (the reaper ends it
     * {@code worker_lost} while it runs) and a cancel does not reach it.
     */
    @Test
    void anEarlyRunEndingLateLeavesTheNodeTheRunOfItsJob() throws Exception {
        Caller caller = tenant("late", null);
        awaitAllSlotsFree();
        UUID id = UUID.randomUUID();
        PendingSubmission refusedLater = PendingSubmissions.undecided();
        assertTrue(freeSlot().runPending(new ClaimedJob(id, caller.tenantId(), 1, tenants.policy(caller.tenantId()),
                Submission.of(ExecutionRequest.of("bash", "echo stale").withTimeout(Duration.ofSeconds(30))), false,
                Optional.empty()), refusedLater));
        jobs.submit(caller, bash("sleep 60"), null, id);
        // handed to this node in its submission, or (the claim loop held the free slot a moment) claimed after
        JobView running = awaitRunning(caller, id);
        assertEquals(pool.nodeId(), running.nodeId());
        PendingSubmissions.decide(refusedLater, false);
        awaitFreeSlots(config.node().concurrency() - 1);
        OffsetDateTime lease = leaseOf(id);
        pool.heartbeat();
        assertTrue(leaseOf(id).isAfter(lease), "the node no longer renews the lease of the job it runs");
        jobs.cancel(caller, id);
        assertEquals("cancelled", waits.await(caller, id, Duration.ofSeconds(30)).status());
        awaitAllSlotsFree();
    }

    /**
     * An early run whose submission stored the job for another node (or refused it) gives its
     * /workspace back: left behind, each such run kept a directory, or a tmpfs mounted on the host
     * that every later sandbox copied into its mount namespace.
     */
    @Test
    void anEarlyRunNotStoredHereLeavesNoWorkspaceBehind() throws Exception {
        Caller caller = tenant("not-here", null);
        awaitAllSlotsFree();
        // runs of earlier tests may still hold theirs (an abandoned one goes 10 s later)
        List<Path> before = workspacesInUse();
        PendingSubmission notStored = PendingSubmissions.undecided();
        assertTrue(freeSlot().runPending(new ClaimedJob(UUID.randomUUID(), caller.tenantId(), 1,
                tenants.policy(caller.tenantId()), Submission.of(ExecutionRequest.of("bash", "echo never")
                        .withTimeout(Duration.ofSeconds(30))), false, Optional.empty()), notStored));
        // prepared before the run waits for its verdict
        List<Path> its = new ArrayList<>();
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            its.addAll(workspacesInUse().stream().filter(w -> !before.contains(w)).toList());
            return !its.isEmpty();
        });
        PendingSubmissions.decide(notStored, false);
        awaitAllSlotsFree();
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() ->
                assertEquals(List.of(), workspacesInUse().stream().filter(its::contains).toList(), "the run's workspace"));
    }

    /** Runs' /workspace directories: {@code ws-<id>}, or {@code w} inside a tmpfs {@code ws-<owner>-<id>}. */
    private List<Path> workspacesInUse() throws IOException {
        List<Path> inUse = new ArrayList<>();
        try (var entries = Files.list(paths.jobsDir())) {
            for (Path entry : entries.filter(e -> e.getFileName().toString().startsWith("ws-")
                    && Files.isDirectory(e)).toList()) {
                boolean mount = entry.getFileName().toString().split("-").length > 6;
                if (!mount || Files.exists(entry.resolve("w"))) {
                    inUse.add(entry);
                }
            }
        }
        return inUse;
    }

    /**
     * A run cancelled while its submission had not decided yet, and then stored as this node's
     * (the cancel came first): it builds nothing, and ends without starting.
     */
    @Test
    void aRunCancelledBeforeItsSubmissionDecidedBuildsNothing() throws Exception {
        Caller caller = tenant("called-off", null);
        List<String> packages = List.of("dig", "gnumake");
        assertTrue(notCached(packages), "the environment is cached already: this test would prove nothing");
        awaitAllSlotsFree();
        UUID id = UUID.randomUUID();
        PendingSubmission pending = PendingSubmissions.undecided();
        assertTrue(freeSlot().runPending(new ClaimedJob(id, caller.tenantId(), 1, tenants.policy(caller.tenantId()),
                Submission.of(new ExecutionRequest("bash", "echo never", packages, Map.of(), "",
                        Optional.of(Duration.ofSeconds(30)), false)), false, Optional.empty()), pending));
        // as a cancel's notification or a shutdown does, while the run waits for the verdict; on a
        // thread of its own, since ending the run waits for the verdict too
        Thread cancel = Thread.ofVirtual().start(() -> pool.cancel(id));
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (cancel.isAlive() && cancel.getState() != Thread.State.WAITING) {
            assertTrue(System.nanoTime() < deadline, "the cancel did not reach the run");
            Thread.sleep(5);
        }
        PendingSubmissions.decide(pending, true);
        assertTrue(cancel.join(Duration.ofSeconds(30)), "the cancel did not return after the verdict");
        awaitAllSlotsFree();
        // a build would have begun by the time the run gave its slot back; a late one is watched for a while too
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                assertEquals(List.of(), NixSpy.requests().stream().filter(line -> packages.stream()
                        .allMatch(p -> line.contains("\"name\":\"" + p + "\""))).toList(), "nix ran for a cancelled run"));
    }

    /** The job once its code started: its run is the node's by then. */
    private JobView awaitRunning(Caller caller, UUID job) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        for (JobView view = reads.get(caller, job); ; view = reads.get(caller, job)) {
            if (view.status().equals("running")) {
                return view;
            }
            assertTrue(System.nanoTime() < deadline && List.of("queued", "building").contains(view.status()),
                    "the job did not start: " + view.status());
            Thread.sleep(10);
        }
    }

    private OffsetDateTime leaseOf(UUID job) throws SQLException {
        try (Connection c = db.getConnection();
                PreparedStatement q = c.prepareStatement("SELECT lease_until FROM jobs WHERE id = ?")) {
            q.setObject(1, job);
            try (ResultSet r = q.executeQuery()) {
                assertTrue(r.next());
                return r.getObject(1, OffsetDateTime.class);
            }
        }
    }

    @Test
    void aJobDoesNotPassOneThatAWorkerCouldClaim() throws SQLException {
        Caller waiting = tenant("waiting", 0);
        UUID first = jobs.submit(waiting, bash("echo first"), null).job().id();
        Caller later = tenant("later", null);
        try (Connection holder = db.getConnection()) {
            holder.setAutoCommit(false);
            // Held by this transaction, the first job is skipped by every claim and stays queued
            // once its tenant may run it: a job a worker could claim now, still waiting.
            try (PreparedStatement lock = holder.prepareStatement("SELECT 1 FROM jobs WHERE id = ? FOR UPDATE")) {
                lock.setObject(1, first);
                lock.executeQuery().close();
            }
            try (Connection c = db.getConnection();
                    PreparedStatement lift = c.prepareStatement("UPDATE tenants SET policy = policy - 'max_running' WHERE id = ?")) {
                lift.setObject(1, waiting.tenantId());
                assertEquals(1, lift.executeUpdate());
            }
            JobView second = jobs.submit(later, bash("echo second"), null).job();
            assertEquals("queued", second.status(), "a job went past one that waited");
            JobView done = waits.await(later, second.id(), Duration.ofSeconds(30));
            assertEquals("succeeded", done.status());
            assertEquals("queued", reads.get(waiting, first).status());
            holder.rollback();
        }
        assertEquals("succeeded", waits.await(waiting, first, Duration.ofSeconds(30)).status());
    }

    @Test
    void aTenantAtItsRunningCapWaitsInTheQueue() {
        Caller capped = tenant("capped", 1);
        UUID running = jobs.submit(capped, bash("sleep 30"), null).job().id();
        JobView next = jobs.submit(capped, bash("echo next"), null).job();
        assertEquals("queued", next.status());
        jobs.cancel(capped, running);
        assertEquals("succeeded", waits.await(capped, next.id(), Duration.ofSeconds(30)).status());
    }

    /** Whether the bash environment of these packages is not cached under the pin already known. */
    private boolean notCached(List<String> packages) {
        EnvironmentRequest request = EnvironmentRequest.of(Language.BASH, packages.stream().map(PackageName::parse)
                .toList(), false);
        return pins.known().flatMap(pin -> environments.lookup(request.cacheKey(config.executor().system(), pin,
                expressions.hash()))).isEmpty();
    }
}
