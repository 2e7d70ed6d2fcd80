package dev.nixexec.worker;

import dev.nixexec.config.NixExecConfig;
import dev.nixexec.nix.EnvironmentRequest;
import dev.nixexec.nix.EnvironmentsAhead;
import dev.nixexec.nix.PackageName;
import dev.nixexec.nix.PrebuildEntry;
import dev.nixexec.profile.Profile;
import dev.nixexec.profile.Profiles;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.List;
import java.util.Optional;
import org.jboss.logging.Logger;

/**
 * Builds (or copies from the fleet's cache) the environments of {@code nixexec.environments.prebuild}
 * on a worker node at start, one after another in the background; their progress is this node's
 * part of {@code GET /v1/nodes}. A malformed entry or an unknown profile shows there as failed.
 */
@ApplicationScoped
public class PrebuildAtStart {

    private static final Logger LOG = Logger.getLogger(PrebuildAtStart.class);

    private final NixExecConfig config;
    private final EnvironmentsAhead ahead;
    private final Profiles profiles;
    private final NodeEnvironmentsWriter writer;
    private volatile Thread thread;

    PrebuildAtStart(NixExecConfig config, EnvironmentsAhead ahead, Profiles profiles, NodeEnvironmentsWriter writer) {
        this.config = config;
        this.ahead = ahead;
        this.profiles = profiles;
        this.writer = writer;
    }

    void start(@Observes StartupEvent event) {
        List<String> entries = config.environments().prebuild().orElse(List.of());
        if (config.node().role().equals("api") || entries.isEmpty()) {
            return;
        }
        thread = Thread.ofVirtual().name("prebuild").start(() -> run(entries));
    }

    void stop(@Observes ShutdownEvent event) {
        Thread running = thread;
        if (running != null) {
            running.interrupt();
        }
    }

    private void run(List<String> entries) {
        LOG.infof("building %d environments ahead", entries.size());
        for (String raw : entries) {
            if (Thread.currentThread().isInterrupted()) {
                return;
            }
            PrebuildEntry entry;
            try {
                entry = PrebuildEntry.parse(raw);
            } catch (IllegalArgumentException e) {
                ahead.failed(raw.strip(), EnvironmentsAhead.Source.PREBUILD, "not a prebuild entry: " + e.getMessage(),
                        writer::write);
                continue;
            }
            Optional<EnvironmentRequest> request = request(entry);
            if (request.isEmpty()) {
                continue;
            }
            ahead.ensure(entry.text(), EnvironmentsAhead.Source.PREBUILD, request.get(), writer::write);
        }
    }

    private Optional<EnvironmentRequest> request(PrebuildEntry entry) {
        return switch (entry) {
            case PrebuildEntry.Packages packages -> Optional.of(packages.request());
            case PrebuildEntry.FromProfile fromProfile -> {
                // built-in profiles only: a tenant's own profile belongs to that tenant, not to the fleet
                Optional<Profile> profile = profiles.find(null, fromProfile.profile()).filter(Profile::builtIn);
                if (profile.isEmpty()) {
                    ahead.failed(entry.text(), EnvironmentsAhead.Source.PREBUILD,
                            "no built-in profile '" + fromProfile.profile() + "'", writer::write);
                    yield Optional.empty();
                }
                try {
                    List<PackageName> names = profile.get().spec().packages().stream().map(PackageName::parse).toList();
                    yield Optional.of(EnvironmentRequest.of(entry.language(), names, profile.get().spec().network()));
                } catch (IllegalArgumentException e) {
                    ahead.failed(entry.text(), EnvironmentsAhead.Source.PREBUILD, e.getMessage(), writer::write);
                    yield Optional.empty();
                }
            }
        };
    }
}
