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
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.jboss.logging.Logger;

/**
 * Stores the ends of runs with group commit: one writer takes every result waiting at that moment
 * and stores them in one transaction ({@link JobTransitions#finish}). A lone result is written at
 * once (no timer, no added latency); under load, results that arrive during a write share the
 * next one, so the database sees one commit for many jobs.
 */
@ApplicationScoped
public class ResultWriter {

    private static final Logger LOG = Logger.getLogger(ResultWriter.class);
    private static final int MAX_BATCH = 64;

    private record Pending(String nodeId, JobTransitions.Finish finish, CompletableFuture<Boolean> stored) {
    }

    private final JobTransitions transitions;
    private final Duration patience;
    private final LinkedBlockingQueue<Pending> pending = new LinkedBlockingQueue<>();
    private Thread writer;
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
            ensureWriting();
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

    private synchronized void ensureWriting() {
        if (writer == null && !stopped) {
            // serves every job, though the first one to finish starts it
            writer = Thread.ofVirtual().name("result-writer").start(JobLogContext.detached(this::writeLoop));
        }
    }

    private void writeLoop() {
        while (true) {
            List<Pending> batch = new ArrayList<>();
            try {
                batch.add(pending.take());
            } catch (InterruptedException e) {
                return;
            }
            pending.drainTo(batch, MAX_BATCH - 1);
            Map<String, List<Pending>> byNode = new LinkedHashMap<>();
            batch.forEach(p -> byNode.computeIfAbsent(p.nodeId(), n -> new ArrayList<>()).add(p));
            byNode.forEach(this::store);
        }
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
    synchronized void stop() {
        stopped = true;
        if (writer != null) {
            writer.interrupt();
        }
        for (Pending left = pending.poll(); left != null; left = pending.poll()) {
            left.stored().completeExceptionally(new IllegalStateException("the service stopped before storing it"));
        }
    }
}
