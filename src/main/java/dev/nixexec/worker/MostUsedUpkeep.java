package dev.nixexec.worker;

import dev.nixexec.config.NixExecConfig;
import dev.nixexec.nix.EnvironmentsAhead;
import dev.nixexec.nix.MostUsedEnvironments;
import dev.nixexec.nix.PackagePolicy;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.jboss.logging.Logger;

/**
 * Periodically: the most requested environments of the last 24 hours (top
 * {@code nixexec.environments.keep-most-used}) are had on this worker, built or copied from the
 * fleet's cache, so the next job asking for one is a hit wherever it lands. Their GC roots keep
 * them; progress shows in {@code GET /v1/nodes}.
 */
@ApplicationScoped
public class MostUsedUpkeep {

    private static final Logger LOG = Logger.getLogger(MostUsedUpkeep.class);
    static final Duration WINDOW = Duration.ofHours(24);

    private final NixExecConfig config;
    private final EnvironmentDemand demand;
    private final EnvironmentsAhead ahead;
    private final NodeEnvironmentsWriter writer;
    private final PackagePolicy policy;
    private volatile boolean stopping;

    MostUsedUpkeep(NixExecConfig config, EnvironmentDemand demand, EnvironmentsAhead ahead, NodeEnvironmentsWriter writer) {
        this.config = config;
        this.demand = demand;
        this.ahead = ahead;
        this.writer = writer;
        this.policy = new PackagePolicy(config.sandbox().packageDenylist().orElse(List.of()),
                config.sandbox().packageAllowlist());
    }

    @Scheduled(every = "${nixexec.environments.upkeep-interval:15m}", delayed = "${nixexec.environments.upkeep-interval:15m}",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void upkeep() {
        int top = config.environments().keepMostUsed();
        if (stopping || top == 0 || config.node().role().equals("api")) {
            return;
        }
        List<MostUsedEnvironments.Chosen> chosen;
        try {
            chosen = MostUsedEnvironments.choose(demand.recent(WINDOW), top, policy);
        } catch (RuntimeException e) {
            LOG.warnf("cannot read the most used environments: %s", RootMessage.of(e));
            return;
        }
        Set<String> names = chosen.stream().map(MostUsedEnvironments.Chosen::name).collect(Collectors.toSet());
        ahead.keepMostUsed(names);
        for (MostUsedEnvironments.Chosen one : chosen) {
            if (stopping) {
                return;
            }
            ahead.ensure(one.name(), EnvironmentsAhead.Source.MOST_USED, one.request(), writer::write);
        }
        writer.write();
    }

    void stop(@Observes ShutdownEvent event) {
        stopping = true;
    }
}
