package dev.nixexec.worker;

import dev.nixexec.config.NixExecConfig;
import dev.nixexec.logging.JobLogContext;
import dev.nixexec.job.JobTransitions;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.TimeUnit;
import org.jboss.logging.Logger;

/**
 * Stores the ends of runs with group commit: the run that finds no write going on writes every
 * result waiting at that moment, its own among them, in one transaction ({@link JobTransitions#finish}),
 * and goes on while more wait. A lone result is written at once on its own run's thread (no timer,
 * no hand-off to another thread); under load, results that arrive during a write share the next
 * one, so the database sees one commit for many jobs.
 */
@ApplicationScoped
public class ResultWriter {

    private static final Logger LOG = Logger.getLogger(ResultWriter.class);
    private static final int MAX_BATCH = 64;

    private record Pending(String nodeId, JobTransitions.Finish finish, CompletableFuture<Boolean> stored) {
    }

    private final JobTransitions transitions;
    private final Duration patience;
    private final ConcurrentLinkedQueue<Pending> pending = new ConcurrentLinkedQueue<>();
    /** Whether a run is writing results now. */
    private final AtomicBoolean writing = new AtomicBoolean();
    private volatile boolean stopped;

    ResultWriter(JobTransitions transitions, NixExecConfig config) {
        this.transitions = transitions;
        this.patience = config.jobs().lease().multipliedBy(2);
    }

    /**
     * Stores one run's end; returns whether the job was still this node's. Blocks until written.
     * While the database is away (restarting, failing over) it tries again for twice the lease:
     * the run keeps its lease meanwhile, and a result that arrives late is still the honest one.
     * After that it gives up, and the reaper ends the job once its lease runs out.
     */
    public boolean write(String nodeId, JobTransitions.Finish finish) {
        if (stopped) {
            throw new IllegalStateException("the service is stopping; result of job " + finish.id() + " not stored");
        }
        long deadline = System.nanoTime() + patience.toNanos();
        long backoffMs = 200;
        while (true) {
            CompletableFuture<Boolean> stored = new CompletableFuture<>();
            pending.add(new Pending(nodeId, finish, stored));
            writeWhileWaiting(stored);
            try {
                // Bounded: a write queued just as the service stopped is never taken by a writer.
                return stored.orTimeout(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS).join();
            } catch (CompletionException e) {
                if (stopped || System.nanoTime() + backoffMs * 1_000_000 > deadline) {
                    throw e;
                }
                LOG.warnf("could not store the result of job %s (%s); trying again in %d ms", finish.id(),
                        e.getCause() == null ? e.getMessage() : e.getCause().getMessage(), backoffMs);
                try {
                    Thread.sleep(backoffMs);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
                backoffMs = Math.min(backoffMs * 2, 5_000);
            }
        }
    }

    /**
     * Writes what waits unless another thread is writing, until {@code own} (a run's result; null:
     * none) is stored; what arrived meanwhile a thread of its own writes, so that the run goes on.
     * A result added while another thread writes is taken by it: that thread looks again after it
     * stops writing.
     */
    private void writeWhileWaiting(CompletableFuture<Boolean> own) {
        while (!stopped && !pending.isEmpty() && writing.compareAndSet(false, true)) {
            try {
                // results of other jobs too: what this writes carries no job's log context
                JobLogContext.detached(this::writeBatch).run();
            } finally {
                writing.set(false);
            }
            if (own != null && own.isDone()) {
                if (!pending.isEmpty()) {
                    Thread.ofVirtual().name("result-writer").start(() -> writeWhileWaiting(null));
                }
                return;
            }
        }
    }

    private void writeBatch() {
        List<Pending> batch = new ArrayList<>();
        for (Pending p = pending.poll(); p != null; p = batch.size() < MAX_BATCH ? pending.poll() : null) {
            batch.add(p);
        }
        Map<String, List<Pending>> byNode = new LinkedHashMap<>();
        batch.forEach(p -> byNode.computeIfAbsent(p.nodeId(), n -> new ArrayList<>()).add(p));
        byNode.forEach(this::store);
    }

    private void store(String nodeId, List<Pending> group) {
        try {
            Set<UUID> stored = transitions.finish(nodeId, group.stream().map(Pending::finish).toList());
            group.forEach(p -> p.stored().complete(stored.contains(p.finish().id())));
        } catch (RuntimeException e) {
            if (group.size() == 1) {
                group.get(0).stored().completeExceptionally(e);
                return;
            }
            // One bad result must not cost the others theirs: store them one by one.
            LOG.warnf("storing %d results together failed (%s); storing them one by one", group.size(), e.getMessage());
            group.forEach(p -> store(nodeId, List.of(p)));
        }
    }

    @PreDestroy
    void stop() {
        stopped = true;
        for (Pending left = pending.poll(); left != null; left = pending.poll()) {
            left.stored().completeExceptionally(new IllegalStateException("the service stopped before storing it"));
        }
    }
}
