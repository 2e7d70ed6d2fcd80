package dev.nixexec.tenant;

import dev.nixexec.refusal.Refusal;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.OffsetDateTime;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.jboss.logging.Logger;

/**
 * The keys of what a request leaves open on this node: event streams, {@code ?wait} long-polls,
 * MCP calls following their job, attached shells. A key is authenticated when the request comes;
 * a revoke or an expiry must also reach what it opened. Every second, while anything is open, one
 * query reads every watched key; each watch of a key revoked, expired or deleted since is ended,
 * with the reason, and stops within a second or two.
 */
@ApplicationScoped
public class KeyWatch {

    private static final Logger LOG = Logger.getLogger(KeyWatch.class);
    /** What a request with no key (local mode) holds open: it never ends for a key's sake. */
    private static final Watched KEYLESS = new Watched() {
        @Override
        public Optional<String> ended() {
            return Optional.empty();
        }

        @Override
        public void close() {
        }
    };

    /** What a wait of a key no longer live ends with: 401 over REST, a tool error over MCP. */
    public static final class KeyEnded extends Refusal {
        KeyEnded(String reason) {
            super(Kind.UNAUTHENTICATED, reason);
        }
    }

    /** One thing a key holds open. */
    public interface Watched extends AutoCloseable {

        /** Why the key no longer holds it (revoked, expired), once it does not. */
        Optional<String> ended();

        /** Throws {@link KeyEnded} (401) with the reason once the key no longer holds. */
        default void check() {
            ended().ifPresent(reason -> {
                throw new KeyEnded(reason);
            });
        }

        /** Stops watching: what it held is closed. */
        @Override
        void close();
    }

    private final Map<UUID, Set<Watch>> byKey = new ConcurrentHashMap<>();

    /**
     * Watches the caller's key for as long as what it opened is open; {@code onEnd} is told the
     * reason once the key no longer holds (on the checking thread: it must not block).
     */
    public Watched watch(Caller caller, Consumer<String> onEnd) {
        if (caller.keyId() == null) {
            return KEYLESS;
        }
        Watch watch = new Watch(caller.keyId(), onEnd);
        byKey.computeIfAbsent(caller.keyId(), k -> ConcurrentHashMap.newKeySet()).add(watch);
        return watch;
    }

    @Scheduled(every = "1s", concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void endWatchesOfDeadKeys() {
        if (byKey.isEmpty()) {
            return;
        }
        Set<UUID> watched = Set.copyOf(byKey.keySet());
        Map<UUID, String> dead;
        try {
            dead = QuarkusTransaction.requiringNew().call(() -> notLive(watched));
        } catch (RuntimeException e) {
            // the database is away: nothing can be told, so what is open stays open until it is back
            LOG.warnf("the keys of open streams could not be checked: %s", e.getMessage());
            return;
        }
        dead.forEach((key, reason) -> {
            Set<Watch> watches = byKey.remove(key);
            if (watches != null) {
                watches.forEach(w -> w.end(reason));
            }
        });
    }

    /** Of these keys, those no longer live, with the reason. */
    private static Map<UUID, String> notLive(Set<UUID> keys) {
        Map<UUID, String> dead = new HashMap<>();
        keys.forEach(key -> dead.put(key, "the API key no longer exists"));
        OffsetDateTime now = OffsetDateTime.now();
        List<ApiKey> found = ApiKey.list("id in ?1", keys);
        for (ApiKey key : found) {
            if (key.revokedAt != null) {
                dead.put(key.id, "the API key was revoked");
            } else if (key.expiresAt != null && !now.isBefore(key.expiresAt)) {
                dead.put(key.id, "the API key expired");
            } else {
                dead.remove(key.id);
            }
        }
        return dead;
    }

    private final class Watch implements Watched {
        private final UUID key;
        private final Consumer<String> onEnd;
        private final AtomicReference<String> reason = new AtomicReference<>();

        Watch(UUID key, Consumer<String> onEnd) {
            this.key = key;
            this.onEnd = onEnd;
        }

        void end(String why) {
            if (reason.compareAndSet(null, why)) {
                onEnd.accept(why);
            }
        }

        @Override
        public Optional<String> ended() {
            return Optional.ofNullable(reason.get());
        }

        @Override
        public void close() {
            byKey.computeIfPresent(key, (k, watches) -> {
                watches.remove(this);
                return watches.isEmpty() ? null : watches;
            });
        }
    }
}
