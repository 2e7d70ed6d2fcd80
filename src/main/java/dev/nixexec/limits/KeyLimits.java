package dev.nixexec.limits;

import dev.nixexec.config.NixExecConfig;
import dev.nixexec.refusal.Refusal;
import dev.nixexec.tenant.Caller;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What one API key may take at once, on /v1 and /mcp alike: requests at a sustained rate with a
 * burst (a token bucket), and a number of open waits ({@code ?wait=}, event streams, MCP waits),
 * each of which holds a thread and a watch for up to a minute. The same two limits hold for all the
 * keys of one tenant together, so that minting keys does not multiply a tenant's share. Over any of
 * them the caller is told to come back (429, Retry-After), in words that name the limit: the key's
 * or the tenant's. Local mode has no key and no limit. Only keys that authenticated get an entry,
 * and an entry goes once it is idle: a bucket that filled up again is the same as none, a key or
 * tenant with no wait open has no count.
 */
@ApplicationScoped
public class KeyLimits {

    /** How soon a key over its waits is told to try again: waits end as jobs do. */
    static final Duration WAIT_RETRY = Duration.ofSeconds(1);

    private final Rate keyRate;
    private final Rate tenantRate;
    private final int waitsPerKey;
    private final int waitsPerTenant;
    private final ConcurrentHashMap<UUID, Bucket> keyBuckets = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<UUID, Bucket> tenantBuckets = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<UUID, Integer> keyWaits = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<UUID, Integer> tenantWaits = new ConcurrentHashMap<>();

    public KeyLimits(NixExecConfig config) {
        this.keyRate = new Rate(config.limits().requestsPerSecond(), config.limits().requestBurst());
        this.tenantRate = new Rate(config.limits().tenantRequestsPerSecond(), config.limits().tenantRequestBurst());
        this.waitsPerKey = config.limits().waitsPerKey();
        this.waitsPerTenant = config.limits().waitsPerTenant();
    }

    /** A sustained rate per second and the burst a full bucket allows. */
    private record Rate(double perSecond, double burst) {
    }

    /**
     * Empty when the caller's request may go on; else the refusal (429 with Retry-After) naming the
     * rate it is over, its key's or its tenant's. A request the tenant refuses costs the key nothing.
     */
    public Optional<Refusal> request(Caller caller) {
        if (caller.keyId() == null) {
            return Optional.empty();
        }
        long now = System.nanoTime();
        Bucket key = keyBuckets.computeIfAbsent(caller.keyId(), k -> new Bucket(keyRate, now));
        double keyLacks = key.take(now);
        if (keyLacks > 0) {
            return Optional.of(tooMany("this API key", keyRate, keyLacks));
        }
        double tenantLacks = tenantBuckets.computeIfAbsent(caller.tenantId(), t -> new Bucket(tenantRate, now)).take(now);
        if (tenantLacks > 0) {
            key.giveBack();
            return Optional.of(tooMany("the keys of this tenant together", tenantRate, tenantLacks));
        }
        return Optional.empty();
    }

    private static Refusal tooMany(String who, Rate rate, double lacking) {
        Duration after = Duration.ofSeconds((long) Math.ceil(lacking / rate.perSecond()));
        return new Refusal(Refusal.Kind.TOO_MANY, who + " made more than " + (long) rate.perSecond()
                + " requests a second (bursts of " + (long) rate.burst() + "); try again in " + after.toSeconds() + "s",
                after);
    }

    /** One open wait of a key, given back once by {@link #close}. */
    public interface Wait extends AutoCloseable {
        @Override
        void close();
    }

    /** As {@link #startWait(Caller)} for a request that waits {@code wait}; none for one that answers at once. */
    public Wait startWait(Caller caller, Duration wait) {
        return wait.isPositive() ? startWait(caller) : () -> { };
    }

    /** Holds one of the caller's key's and tenant's waits until closed; either at its cap is refused (429). */
    public Wait startWait(Caller caller) {
        UUID key = caller.keyId();
        if (key == null) {
            return () -> { };
        }
        if (!hold(keyWaits, key, waitsPerKey)) {
            throw new Refusal(Refusal.Kind.TOO_MANY, "this API key has " + waitsPerKey
                    + " waiting requests open, its cap; ask without wait, or try again when one has ended", WAIT_RETRY);
        }
        UUID tenant = caller.tenantId();
        if (!hold(tenantWaits, tenant, waitsPerTenant)) {
            release(keyWaits, key);
            throw new Refusal(Refusal.Kind.TOO_MANY, "the keys of this tenant have " + waitsPerTenant
                    + " waiting requests open together, the tenant's cap; ask without wait, or try again when one has ended",
                    WAIT_RETRY);
        }
        AtomicBoolean closed = new AtomicBoolean();
        return () -> {
            if (closed.compareAndSet(false, true)) {
                release(tenantWaits, tenant);
                release(keyWaits, key);
            }
        };
    }

    /** Counts one more open wait under {@code id} unless it has {@code cap}; whether it did. */
    private static boolean hold(ConcurrentHashMap<UUID, Integer> counts, UUID id, int cap) {
        boolean[] held = new boolean[1];
        counts.compute(id, (k, open) -> {
            int n = open == null ? 0 : open;
            held[0] = n < cap;
            return held[0] ? n + 1 : open;
        });
        return held[0];
    }

    private static void release(ConcurrentHashMap<UUID, Integer> counts, UUID id) {
        counts.computeIfPresent(id, (k, open) -> open <= 1 ? null : open - 1);
    }

    /** Drops the buckets that filled up again: a full bucket and no bucket are the same. */
    @Scheduled(every = "1m", concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void evictIdle() {
        long now = System.nanoTime();
        keyBuckets.values().removeIf(b -> b.full(now));
        tenantBuckets.values().removeIf(b -> b.full(now));
    }

    private static final class Bucket {
        private final Rate rate;
        private double tokens;
        private long at;

        Bucket(Rate rate, long now) {
            this.rate = rate;
            this.tokens = rate.burst();
            this.at = now;
        }

        /** Takes a token: 0 when there was one, else how many tokens it lacked. */
        synchronized double take(long now) {
            refill(now);
            if (tokens >= 1) {
                tokens -= 1;
                return 0;
            }
            return 1 - tokens;
        }

        /** Returns the token of a request that another limit refused. */
        synchronized void giveBack() {
            tokens = Math.min(rate.burst(), tokens + 1);
        }

        synchronized boolean full(long now) {
            refill(now);
            return tokens >= rate.burst();
        }

        private void refill(long now) {
            tokens = Math.min(rate.burst(), tokens + (now - at) / 1e9 * rate.perSecond());
            at = now;
        }
    }
}
