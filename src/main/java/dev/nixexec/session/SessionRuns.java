package dev.nixexec.session;

import dev.nixexec.sandbox.PersistentPaths;
import io.quarkus.narayana.jta.QuarkusTransaction;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * What a worker needs of a session to run one of its jobs: which paths are writable and the
 * nixpkgs revision its environment was built on, and its materialised workspace laid out as the
 * sandbox mounts it.
 */
@ApplicationScoped
public class SessionRuns {

    /** A session as its jobs run in it; no revision while it is building (its build job is the one running). */
    public record Context(UUID sessionId, Set<String> writable, Optional<String> nixpkgsRevision) {
    }

    private final SessionRepository repository;

    SessionRuns(SessionRepository repository) {
        this.repository = repository;
    }

    /** The session, unless it is gone or destroyed. */
    public Optional<Context> context(UUID sessionId) {
        return QuarkusTransaction.requiringNew().call(() -> repository.byId(sessionId))
                .filter(row -> row.status() != SessionStatus.DESTROYED)
                .map(row -> new Context(row.id(), Set.copyOf(row.writable()), Optional.ofNullable(row.nixpkgsRevision())));
    }

    /**
     * The session's persistent paths in {@code root}, a run's materialised copy of its workspace:
     * {@code workspace/}, {@code home/} and {@code cache/} made if the stored files had none.
     */
    public PersistentPaths paths(Path root, Context context) throws IOException {
        for (PersistentPaths.Mount mount : PersistentPaths.MOUNTS) {
            Files.createDirectories(root.resolve(mount.directory()));
        }
        return new PersistentPaths(root, context.writable());
    }
}
