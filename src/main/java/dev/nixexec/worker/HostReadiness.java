package dev.nixexec.worker;

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

/** Readiness DOWN, and a plain start-up message, when nix or the sandbox backend cannot run here. */
@Readiness
@ApplicationScoped
public class HostReadiness implements HealthCheck {

    private static final Logger LOG = Logger.getLogger(HostReadiness.class);

    private final NixCommand nix;
    private final NixStoreProbe store;
    private final Sandbox sandbox;
    private final Cgroups cgroups;

    public HostReadiness(NixCommand nix, NixStoreProbe store, Sandbox sandbox, Cgroups cgroups) {
        this.nix = nix;
        this.store = store;
        this.sandbox = sandbox;
        this.cgroups = cgroups;
    }

    void onStart(@Observes StartupEvent event) {
        if (!nix.available()) {
            LOG.error("nix is not installed or not on PATH: jobs cannot get environments (install Nix >= 2.8; "
                    + "on Debian: apt-get install nix-bin)");
        }
        sandbox.unavailableReason().ifPresent(reason -> LOG.errorf("the sandbox cannot run: %s (on Debian: "
                + "apt-get install bubblewrap)", reason));
        if (!cgroups.available()) {
            LOG.warnf("sandbox cgroups: %s", cgroups.describe());
        }
    }

    @Override
    public HealthCheckResponse call() {
        NixStoreProbe.Answer nixStore = nix.available() ? store.current() : null;
        var response = HealthCheckResponse.named("execution-host")
                .withData("nix", nix.nixPath().map(Object::toString).orElse("missing"))
                .withData("nix-store", nixStore == null ? "not probed: nix is missing" : nixStore.detail())
                .withData("sandbox", sandbox.unavailableReason().orElse("ok"))
                .withData("cgroups", cgroups.describe());
        boolean up = nixStore != null && nixStore.ok() && sandbox.unavailableReason().isEmpty();
        return (up ? response.up() : response.down()).build();
    }
}
