package dev.nixexec.attach;

import dev.nixexec.nix.Environment;
import dev.nixexec.nix.EnvironmentCache;
import dev.nixexec.nix.EnvironmentRequest;
import dev.nixexec.nix.Language;
import dev.nixexec.sandbox.Limits;
import dev.nixexec.sandbox.SandboxSpec;
import dev.nixexec.session.SessionShell;
import dev.nixexec.session.SessionShells;
import dev.nixexec.tenant.Caller;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Sessions for the attach tests until the session side is merged: a session is a tenant and a
 * name, its sandbox the fixture's python environment. Enabled by {@link AttachProfile} only.
 */
@Alternative
@ApplicationScoped
public class FixtureSessionShells implements SessionShells {

    static final Limits LIMITS = new Limits(Duration.ofMinutes(1), 256L * 1024 * 1024, 64, 0, 64L * 1024 * 1024,
            16L * 1024 * 1024, 16L * 1024 * 1024, 1024 * 1024);

    private final EnvironmentCache environments;
    private final Map<String, UUID> sessions = new ConcurrentHashMap<>();

    public FixtureSessionShells(EnvironmentCache environments) {
        this.environments = environments;
    }

    /** A session of this tenant; its id. */
    UUID create(UUID tenantId) {
        UUID id = UUID.randomUUID();
        sessions.put(id.toString(), tenantId);
        return id;
    }

    /** Fixture sessions are never destroyed. */
    @Override
    public boolean live(UUID sessionId) {
        return true;
    }

    @Override
    public Optional<SessionShell> open(Caller caller, String idOrName) {
        UUID tenant = sessions.get(idOrName);
        if (tenant == null || !tenant.equals(caller.tenantId())) {
            return Optional.empty();
        }
        Environment env;
        try {
            env = environments.get(EnvironmentRequest.of(Language.PYTHON, List.of()));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        SandboxSpec spec = new SandboxSpec(env.storePath(), env.closure(), "unused", new byte[0], List.of("bash"),
                Map.of(), new byte[0], LIMITS, false);
        UUID id = UUID.fromString(idOrName);
        return Optional.of(new SessionShell() {
            @Override
            public UUID sessionId() {
                return id;
            }

            @Override
            public UUID tenantId() {
                return tenant;
            }

            @Override
            public SandboxSpec sandbox() {
                return spec;
            }

            @Override
            public void close() {
            }
        });
    }
}
