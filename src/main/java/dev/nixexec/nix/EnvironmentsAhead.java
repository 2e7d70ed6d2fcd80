package dev.nixexec.nix;

import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jboss.logging.Logger;

/**
 * Environments this node has ahead of demand, and how far it got with each: the configured
 * prebuild list at start, the fleet's most used ones on a schedule. Each is had through the
 * {@link EnvironmentCache} (a hit, a copy from the fleet's cache, or a build), so a job asking for
 * one meanwhile shares the build instead of starting another.
 */
@ApplicationScoped
public class EnvironmentsAhead {

    private static final Logger LOG = Logger.getLogger(EnvironmentsAhead.class);

    /** Why the node has it: listed in {@code prebuild}, or among the most used of the last day. */
    public enum Source {
        PREBUILD, MOST_USED
    }

    public enum Status {
        BUILDING, BUILT, FAILED
    }

    /** One environment's state on this node; {@code detail} is its store path or why it failed. */
    public record Progress(String name, Source source, Status status, String detail, Instant updatedAt) {
    }

    private final EnvironmentCache cache;
    private final Map<String, Progress> progress = new ConcurrentHashMap<>();

    EnvironmentsAhead(EnvironmentCache cache) {
        this.cache = cache;
    }

    /** Has the environment on this node (blocking), recording each step. */
    public Progress ensure(String name, Source source, EnvironmentRequest request, Runnable changed) {
        record(new Progress(name, source, Status.BUILDING, "", Instant.now()), changed);
        try {
            Environment environment = cache.get(request);
            return record(new Progress(name, source, Status.BUILT, environment.storePath(), Instant.now()), changed);
        } catch (EnvironmentException e) {
            LOG.warnf("environment %s (%s) not built ahead: %s", name, source, e.getMessage());
            return failed(name, source, e.code() + ": " + e.getMessage(), changed);
        } catch (RuntimeException e) {
            LOG.warnf(e, "environment %s (%s) not built ahead", name, source);
            return failed(name, source, "internal error", changed);
        }
    }

    /** An entry that never reached a build (malformed, an unknown profile). */
    public Progress failed(String name, Source source, String why, Runnable changed) {
        return record(new Progress(name, source, Status.FAILED, why, Instant.now()), changed);
    }

    /** Forgets most-used entries no longer chosen (their environments stay built). */
    public void keepMostUsed(java.util.Set<String> names) {
        progress.values().removeIf(p -> p.source() == Source.MOST_USED && !names.contains(p.name()));
    }

    public List<Progress> progress() {
        return progress.values().stream()
                .sorted(Comparator.comparing(Progress::source).thenComparing(Progress::name)).toList();
    }

    private Progress record(Progress step, Runnable changed) {
        // a name both listed and most used shows once, as listed
        Progress before = progress.get(step.name());
        Progress shown = before != null && before.source() == Source.PREBUILD && step.source() == Source.MOST_USED
                ? new Progress(step.name(), Source.PREBUILD, step.status(), step.detail(), step.updatedAt()) : step;
        progress.put(step.name(), shown);
        changed.run();
        return shown;
    }
}
