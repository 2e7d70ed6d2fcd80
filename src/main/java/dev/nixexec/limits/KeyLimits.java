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
 * each of which holds a thread and a watch for up to a minute. Over either the caller is told to
 * come back (429, Retry-After). Local mode has no key and no limit. Only keys that authenticated
 * get an entry, and an entry goes once it is idle: a bucket that filled up again is the same as
 * none, a key with no wait open has no count.
 */
@ApplicationScoped
public class KeyLimits {

    /** How soon a key over its waits is told to try again: waits end as jobs do. */
    static final Duration WAIT_RETRY = Duration.ofSeconds(1);

    private final double rate;
    private final double burst;
    private final int waitsPerKey;
    private final ConcurrentHashMap<UUID, Bucket> buckets = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<UUID, Integer> waits = new ConcurrentHashMap<>();

    public KeyLimits(NixExecConfig config) {
        this.rate = config.limits().requestsPerSecond();
        this.burst = config.limits().requestBurst();
        this.waitsPerKey = config.limits().waitsPerKey();
    }

    /** Empty when the caller's request may go on; else how long until its key may make one. */
    public Optional<Duration> request(Caller caller) {
        if (caller.keyId() == null) {
            return Optional.empty();
        }
        long now = System.nanoTime();
        double lacking = buckets.computeIfAbsent(caller.keyId(), k -> new Bucket(now)).take(now);
        return lacking <= 0 ? Optional.empty() : Optional.of(Duration.ofSeconds((long) Math.ceil(lacking / rate)));
    }

    /** The refusal of a request over its key's rate, for the adapters to render. */
    public Refusal tooMany(Duration retryAfter) {
        return new Refusal(Refusal.Kind.TOO_MANY, "this API key made more than " + (long) rate
                + " requests a second (bursts of " + (long) burst + "); try again in " + retryAfter.toSeconds() + "s",
                retryAfter);
    }

    /** One open wait of a key, given back once by {@link #close}. */
    public interface Wait extends AutoCloseable {
        @Override
        void close();
    }

    /** Holds one of the caller's key's waits until closed; a key at its cap is refused (429). */
    public Wait startWait(Caller caller) {
        UUID key = caller.keyId();
        if (key == null) {
            return () -> { };
        }
        boolean[] held = new boolean[1];
        waits.compute(key, (k, open) -> {
            int n = open == null ? 0 : open;
            held[0] = n < waitsPerKey;
            return held[0] ? n + 1 : open;
        });
        if (!held[0]) {
            throw new Refusal(Refusal.Kind.TOO_MANY, "this API key has " + waitsPerKey
                    + " waiting requests open, its cap; ask without wait, or try again when one has ended", WAIT_RETRY);
        }
        AtomicBoolean closed = new AtomicBoolean();
        return () -> {
            if (closed.compareAndSet(false, true)) {
                waits.computeIfPresent(key, (k, open) -> open <= 1 ? null : open - 1);
            }
        };
    }

    /** Drops the buckets that filled up again: a full bucket and no bucket are the same. */
    @Scheduled(every = "1m", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void evictIdle() {
        long now = System.nanoTime();
        buckets.values().removeIf(b -> b.full(now));
    }

    private final class Bucket {
        private double tokens = burst;
        private long at;

        Bucket(long now) {
            at = now;
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

        synchronized boolean full(long now) {
            refill(now);
            return tokens >= burst;
        }

        private void refill(long now) {
            tokens = Math.min(burst, tokens + (now - at) / 1e9 * rate);
            at = now;
        }
    }
}
