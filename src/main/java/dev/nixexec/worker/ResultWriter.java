package dev.nixexec.worker;

import dev.nixexec.config.NixExecConfig;
import dev.nixexec.job.GroupCommit;
import dev.nixexec.job.JobTransitions;
import dev.nixexec.logging.JobLogContext;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.jboss.logging.Logger;

/**
 * Stores the ends of runs with group commit ({@link GroupCommit}, one writer at a time): the run
 * that finds no write going on writes every result waiting at that moment, its own among them, in
 * one statement per node ({@link JobTransitions#finish}). A lone result is written at once on its
 * own run's thread; under load, results that arrive during a write share the next one.
 */
@ApplicationScoped
public class ResultWriter {

    private static final Logger LOG = Logger.getLogger(ResultWriter.class);
    private static final int MAX_BATCH = 64;

    private record Result(String nodeId, JobTransitions.Finish finish) {
    }

    private final JobTransitions transitions;
    private final Duration patience;
    private final GroupCommit<Result, Boolean> commits = new GroupCommit<>(MAX_BATCH, 1, this::writeBatch);
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
        long deadline = System.nanoTime() + patience.toNanos();
        long backoffMs = 200;
        while (true) {
            if (stopped) {
                throw new IllegalStateException("the service is stopping; result of job " + finish.id() + " not stored");
            }
            try {
                return commits.write(new Result(nodeId, finish));
            } catch (RuntimeException e) {
                if (stopped || System.nanoTime() + backoffMs * 1_000_000 > deadline) {
                    throw e;
                }
                LOG.warnf("could not store the result of job %s (%s); trying again in %d ms", finish.id(),
                        e.getMessage(), backoffMs);
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

    /** Results of other jobs too: what this writes carries no job's log context. */
    private void writeBatch(List<GroupCommit.Item<Result, Boolean>> batch) {
        JobLogContext.detached(() -> {
            Map<String, List<GroupCommit.Item<Result, Boolean>>> byNode = new LinkedHashMap<>();
            batch.forEach(p -> byNode.computeIfAbsent(p.value().nodeId(), n -> new ArrayList<>()).add(p));
            byNode.forEach(this::store);
        }).run();
    }

    private void store(String nodeId, List<GroupCommit.Item<Result, Boolean>> group) {
        try {
            Set<UUID> stored = transitions.finish(nodeId, group.stream().map(p -> p.value().finish()).toList());
            group.forEach(p -> p.succeed(stored.contains(p.value().finish().id())));
        } catch (RuntimeException e) {
            if (group.size() == 1) {
                group.get(0).fail(e);
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
    }
}
