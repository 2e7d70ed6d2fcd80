package dev.nixexec.worker;

import dev.nixexec.config.NixExecConfig;
import dev.nixexec.job.FleetNodes;
import dev.nixexec.job.JobTransitions;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.scheduler.Scheduled;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.time.Instant;
import org.jboss.logging.Logger;

/**
 * The reaper, on every node (API-only ones too): takes back the jobs of nodes that stopped
 * renewing their leases ({@link JobTransitions#reap}; what becomes of each job is
 * {@code ExpiredLease}'s decision) and forgets nodes long silent. It acts only when its
 * {@link ReapGate} says this node's own contact with the database is steady enough to judge
 * others' leases; the heartbeat's round trips count as contact too ({@link #heard}).
 */
@ApplicationScoped
public class LeaseReaper {

    private static final Logger LOG = Logger.getLogger(LeaseReaper.class);

    private final JobTransitions transitions;
    private final FleetNodes fleet;
    private final ReapGate gate;
    /** From the shutdown event on, it stops: the datasource is going away. */
    private volatile boolean shuttingDown;

    LeaseReaper(NixExecConfig config, JobTransitions transitions, FleetNodes fleet) {
        this.transitions = transitions;
        this.fleet = fleet;
        this.gate = new ReapGate(config.jobs().lease(), config.jobs().heartbeat());
    }

    /** A round trip to the database that began and ended at these System.nanoTime readings. */
    void heard(long startedNanos, long endedNanos, Instant databaseNow) {
        gate.contact(startedNanos, endedNanos, databaseNow);
    }

    /** A round trip to the database failed. */
    void lost() {
        gate.lost();
    }

    @Scheduled(every = "${nixexec.jobs.heartbeat:5s}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void reap() {
        if (shuttingDown) {
            return;
        }
        // A reap already waiting on a stalled database must not act the moment it answers: it
        // asks the clock first, and only a prompt answer after a steady lease lets it go on.
        long started = System.nanoTime();
        try {
            Instant databaseNow = fleet.databaseNow();
            gate.contact(started, System.nanoTime(), databaseNow);
        } catch (RuntimeException e) {
            gate.lost();
            LOG.warnf("reaper cannot reach the database: %s", RootMessage.of(e));
            return;
        }
        if (!gate.mayReap(System.nanoTime())) {
            return;
        }
        int reaped = transitions.reap().count();
        fleet.forgetSilentNodes();
        if (reaped > 0) {
            LOG.infof("took back %d jobs of nodes that stopped heartbeating", reaped);
        }
    }

    void stop(@Observes @Priority(1) ShutdownEvent event) {
        shuttingDown = true;
    }
}
