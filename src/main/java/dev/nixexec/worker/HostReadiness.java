package dev.nixexec.worker;

import dev.nixexec.config.NixExecConfig;
import dev.nixexec.nix.NixCommand;
import dev.nixexec.nix.NixStoreProbe;
import dev.nixexec.sandbox.Cgroups;
import dev.nixexec.sandbox.Sandbox;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;
import org.jboss.logging.Logger;

/**
 * Readiness DOWN when nix, its store, the sandbox backend or the runs' resource limits cannot work
 * here. Anyone may read readiness, so it answers in fixed words; the reasons, with their host and
 * cgroup paths, go to the log (at start, and from the store probe when the store goes away).
 */
@Readiness
@ApplicationScoped
public class HostReadiness implements HealthCheck {

    private static final Logger LOG = Logger.getLogger(HostReadiness.class);

    private final NixCommand nix;
    private final NixStoreProbe store;
    private final Sandbox sandbox;
    private final Cgroups cgroups;
    private final boolean allowWithoutCgroups;

    public HostReadiness(NixCommand nix, NixStoreProbe store, Sandbox sandbox, Cgroups cgroups, NixExecConfig config) {
        this.nix = nix;
        this.store = store;
        this.sandbox = sandbox;
        this.cgroups = cgroups;
        this.allowWithoutCgroups = config.sandbox().allowWithoutCgroups();
    }

    void onStart(@Observes StartupEvent event) {
        if (!nix.available()) {
            LOG.error("nix is not installed or not on PATH: jobs cannot get environments (install Nix >= 2.8; "
                    + "on Debian: apt-get install nix-bin)");
        }
        sandbox.networkUnavailableReason().ifPresent(reason -> LOG.warnf(
                "jobs, session commands and shells with network will fail on this node: %s", reason));
        sandbox.unavailableReason().ifPresentOrElse(
                reason -> LOG.errorf("the sandbox cannot run, so this node is not ready: %s", reason),
                () -> {
                    if (!cgroups.available() && allowWithoutCgroups) {
                        LOG.warnf("sandbox cgroups: %s. Runs go on without them because "
                                + "nixexec.sandbox.allow-without-cgroups=true: memory is bounded per process only "
                                + "(RLIMIT_AS/RLIMIT_DATA, tmpfs contents not counted), processes only by RLIMIT_NPROC "
                                + "on a per-run uid (the service as root), not at all otherwise", cgroups.describe());
                    }
                });
    }

    @Override
    public HealthCheckResponse call() {
        NixStoreProbe.Answer nixStore = nix.available() ? store.current() : null;
        boolean sandboxOk = sandbox.unavailableReason().isEmpty();
        var response = HealthCheckResponse.named("execution-host")
                .withData("nix", nix.available() ? "ok" : "missing")
                .withData("nix-store", nixStore == null ? "not probed" : nixStore.ok() ? "ok" : "down")
                .withData("sandbox", sandboxOk ? "ok" : "unavailable")
                // runs without network do not need it: the node stays ready
                .withData("network", sandbox.networkUnavailableReason().isEmpty() ? "ok" : "unavailable")
                .withData("limits", cgroups.available() ? "cgroups" : allowWithoutCgroups ? "rlimits only" : "none");
        boolean up = nixStore != null && nixStore.ok() && sandboxOk;
        return (up ? response.up() : response.down()).build();
    }
}
