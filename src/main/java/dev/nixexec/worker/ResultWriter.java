package dev.nixexec.worker;

import dev.nixexec.job.JobQueue;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import org.jboss.logging.Logger;

/**
 * Stores the ends of runs with group commit: one writer takes every result waiting at that moment
 * and stores them in one transaction ({@link JobQueue#finishAll}). A lone result is written at
 * once (no timer, no added latency); under load, results that arrive during a write share the
 * next one, so the database sees one commit for many jobs.
 */
@ApplicationScoped
public class ResultWriter {

    private static final Logger LOG = Logger.getLogger(ResultWriter.class);
    private static final int MAX_BATCH = 64;

    private record Pending(String nodeId, JobQueue.Finish finish, CompletableFuture<Boolean> stored) {
    }

    private final JobQueue queue;
    private final LinkedBlockingQueue<Pending> pending = new LinkedBlockingQueue<>();
    private Thread writer;
    private boolean stopped;

    ResultWriter(JobQueue queue) {
        this.queue = queue;
    }

    /** Stores one run's end; returns whether the job was still this node's. Blocks until written. */
    public boolean write(String nodeId, JobQueue.Finish finish) {
        CompletableFuture<Boolean> stored = new CompletableFuture<>();
        pending.add(new Pending(nodeId, finish, stored));
        ensureWriting();
        return stored.join();
    }

    private synchronized void ensureWriting() {
        if (writer == null && !stopped) {
            writer = Thread.ofVirtual().name("result-writer").start(this::writeLoop);
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
            Set<UUID> stored = queue.finishAll(nodeId, group.stream().map(Pending::finish).toList());
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
    }
}
