package dev.nixexec.worker;

import dev.nixexec.config.NixExecConfig;
import dev.nixexec.job.ClaimedJob;
import dev.nixexec.job.JobNotifications;
import dev.nixexec.job.FleetNodes;
import dev.nixexec.job.JobTransitions;
import dev.nixexec.job.LocalSlots;
import dev.nixexec.job.PendingSubmission;
import dev.nixexec.sandbox.Sandbox;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.scheduler.Scheduled;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.net.InetAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.jboss.logging.Logger;

/**
 * This node's workers: a claim loop woken by NOTIFY on submit (polling slowly as a fallback), one
 * {@link JobRun} per claimed job up to {@code nixexec.node.concurrency}, a heartbeat that keeps
 * the leases and picks up cancels (and tells the {@link LeaseReaper} the database answered). A
 * free slot is also offered to jobs submitted on this node ({@link LocalSlots}).
 */
@ApplicationScoped
public class WorkerPool implements LocalSlots {

    private static final Logger LOG = Logger.getLogger(WorkerPool.class);

    private final NixExecConfig config;
    private final FleetNodes fleet;
    private final JobTransitions transitions;
    private final JobNotifications notifications;
    private final JobRun.Factory runs;
    private final LeaseReaper reaper;
    private final Sandbox sandbox;
    private final String nodeId;
    private final boolean working;
    private final Semaphore slots;
    private final Semaphore wake = new Semaphore(0);
    private final Map<UUID, JobRun> active = new ConcurrentHashMap<>();
    private volatile boolean claiming;
    /** From the shutdown event on, scheduled database work stops: the datasource is going away. */
    private volatile boolean shuttingDown;
    private Thread claimLoop;

    public WorkerPool(NixExecConfig config, FleetNodes fleet, JobTransitions transitions, JobNotifications notifications,
            JobRun.Factory runs, LeaseReaper reaper, Sandbox sandbox) {
        this.config = config;
        this.fleet = fleet;
        this.transitions = transitions;
        this.notifications = notifications;
        this.runs = runs;
        this.reaper = reaper;
        this.sandbox = sandbox;
        this.nodeId = config.node().id().orElseGet(WorkerPool::defaultNodeId);
        String role = config.node().role();
        if (!List.of("all", "api", "worker").contains(role)) {
            throw new IllegalArgumentException("nixexec.node.role must be all, api or worker, not " + role);
        }
        this.working = !role.equals("api");
        if (config.node().concurrency() < 1) {
            // the YAML file is checked at load; a value from the environment or a property only here
            throw new IllegalArgumentException("nixexec.node.concurrency must be at least 1, not "
                    + config.node().concurrency());
        }
        this.slots = new Semaphore(config.node().concurrency());
    }

    public String nodeId() {
        return nodeId;
    }

    void start(@Observes StartupEvent event) {
        if (!working) {
            return;
        }
        // A node whose sandbox cannot run (or cannot bound a run's memory and processes) leaves the
        // queue's jobs to other nodes: it neither claims nor offers its slots to local submissions.
        Optional<String> unavailable = sandbox.unavailableReason();
        if (unavailable.isPresent()) {
            LOG.errorf("worker node %s claims no jobs: the sandbox cannot run: %s", nodeId, unavailable.get());
            return;
        }
        fleet.heartbeat(nodeId, config.node().role(), config.node().concurrency(), Set.of());
        notifications.onSubmitted(wake::release);
        notifications.onCancel(this::cancel);
        claiming = true;
        claimLoop = Thread.ofVirtual().name("claim-loop").start(this::claimLoop);
        LOG.infof("worker node %s: %d slots", nodeId, config.node().concurrency());
    }

    private void claimLoop() {
        while (claiming) {
            // The free slots are held while claiming, so a local submission cannot take one that a
            // claimed job then lacks; it goes through the queue instead.
            int free = slots.drainPermits();
            int claimed = 0;
            if (free > 0) {
                try {
                    for (ClaimedJob job : transitions.claim(nodeId, free)) {
                        run(job);
                        claimed++;
                    }
                } catch (RuntimeException e) {
                    LOG.warnf("claiming failed: %s", e.getMessage());
                } finally {
                    slots.release(free - claimed);
                }
            }
            if (claimed == 0 || slots.availablePermits() == 0) {
                try {
                    wake.tryAcquire(config.jobs().poll().toMillis(), TimeUnit.MILLISECONDS);
                    wake.drainPermits();
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    /** Runs a job claimed by this node in a slot already held for it. */
    private void run(ClaimedJob job) {
        run(job, Optional.empty());
    }

    /** Runs a job in a slot already held for it; a pending one waits for its submission where it must. */
    private void run(ClaimedJob job, Optional<PendingSubmission> pending) {
        JobRun run = runs.create(job, nodeId, this::finished, pending);
        active.put(job.id(), run);
        run.start();
    }

    @Override
    public Optional<Slot> take() {
        if (!working || !claiming || !slots.tryAcquire()) {
            return Optional.empty();
        }
        return Optional.of(new Slot() {
            @Override
            public String nodeId() {
                return nodeId;
            }

            @Override
            public void run(ClaimedJob job) {
                if (claiming) {
                    WorkerPool.this.run(job);
                    return;
                }
                // the node began stopping meanwhile: the job goes back to the queue for another node
                try {
                    transitions.giveBack(job.id(), nodeId);
                } finally {
                    release();
                }
            }

            @Override
            public boolean runPending(ClaimedJob job, PendingSubmission pending) {
                if (!claiming) {
                    release();
                    return false;
                }
                WorkerPool.this.run(job, Optional.of(pending));
                return true;
            }

            @Override
            public void release() {
                slots.release();
                wake.release();
            }
        });
    }

    /** Stops this node's run of the job, if it has one: the job was cancelled. */
    void cancel(UUID jobId) {
        JobRun run = active.get(jobId);
        if (run != null) {
            run.cancel();
        }
    }

    /**
     * Only this run leaves {@link #active}: a run of the same job may have replaced it, e.g. a job
     * whose submission's hand-off was refused claimed here while its early run still ends.
     */
    private void finished(JobRun run) {
        active.remove(run.jobId(), run);
        slots.release();
        wake.release();
    }

    @Scheduled(every = "${nixexec.jobs.heartbeat:5s}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void heartbeat() {
        if (shuttingDown) {
            return;
        }
        long started = System.nanoTime();
        try {
            Instant databaseNow = fleet.databaseNow();
            if (working && claiming) {
                for (UUID id : fleet.heartbeat(nodeId, config.node().role(), config.node().concurrency(),
                        Set.copyOf(active.keySet()))) {
                    cancel(id);
                }
            }
            reaper.heard(started, System.nanoTime(), databaseNow);
        } catch (RuntimeException e) {
            reaper.lost();
            // one line per beat while the database is away, not a stack trace every few seconds
            LOG.warnf("heartbeat failed: %s", RootMessage.of(e));
        }
    }

    /** Stops claiming, lets running jobs finish within the grace period, then ends the rest honestly. */
    void stop(@Observes @Priority(1) ShutdownEvent event) {
        shuttingDown = true;
        if (!working || !claiming) {
            return;
        }
        claiming = false;
        // Woken, not interrupted: an interrupt closes the connection of a claim in flight (the
        // socket channel is interruptible) and its transaction fails with an I/O error.
        wake.release();
        if (claimLoop != null) {
            try {
                claimLoop.join(Duration.ofSeconds(10));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        long deadline = System.nanoTime() + config.jobs().shutdownGrace().toNanos();
        while (!active.isEmpty() && System.nanoTime() < deadline) {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                break;
            }
        }
        active.values().forEach(JobRun::abandon);
        long abandonDeadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (!active.isEmpty() && System.nanoTime() < abandonDeadline) {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                break;
            }
        }
        fleet.leave(nodeId);
    }

    private static String defaultNodeId() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (java.io.IOException e) {
            host = "node";
        }
        byte[] suffix = new byte[3];
        ThreadLocalRandom.current().nextBytes(suffix);
        return host + "-" + HexFormat.of().formatHex(suffix);
    }
}
