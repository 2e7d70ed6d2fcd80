package dev.nixexec.tenant;

import dev.nixexec.config.NixExecConfig;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Callers by key hash and policies by tenant, kept only while this node hears every change: a
 * revoke notifies all nodes in its own transaction ({@link #CHANNEL}) and each drops all it holds;
 * while the node's notification connection is down nothing is kept. An entry also lapses after
 * {@code nixexec.auth.cache-ttl}, for changes made to the database by hand. Unknown keys are never
 * kept, so a new key works at once and guessing cannot fill the memory. A kept key carries its
 * expiry, which its user checks on every use ({@link LiveKey#liveAt}).
 */
@ApplicationScoped
public class TenantCache {

    /** The notification channel of revokes and policy changes. */
    public static final String CHANNEL = "nixexec_tenants";
    private static final int MAX_ENTRIES = 10_000;

    private record Entry<T>(T value, long expiresAt) {
    }

    private final long ttlNanos;
    private final Map<String, Entry<LiveKey>> keys = new ConcurrentHashMap<>();
    private final Map<UUID, Entry<TenantPolicy>> policies = new ConcurrentHashMap<>();
    private long generation;
    private volatile boolean hearing;

    TenantCache(NixExecConfig config) {
        this.ttlNanos = config.auth().cacheTtl().toNanos();
    }

    /** The notification connection is up (and listening on {@link #CHANNEL}) or down. */
    public synchronized void hearing(boolean up) {
        hearing = up;
        dropAll();
    }

    /** A key or policy changed somewhere in the fleet. */
    public synchronized void changed() {
        dropAll();
    }

    /** The key kept for this hash, if any: no database, so it may be asked on an event loop. */
    Optional<LiveKey> kept(String keyHash) {
        Entry<LiveKey> kept = keys.get(keyHash);
        return kept != null && System.nanoTime() - kept.expiresAt() < 0 ? Optional.of(kept.value()) : Optional.empty();
    }

    Optional<LiveKey> key(String keyHash, Supplier<Optional<LiveKey>> read) {
        Optional<LiveKey> kept = kept(keyHash);
        if (kept.isPresent()) {
            return kept;
        }
        long seen = generation();
        Optional<LiveKey> key = read.get();
        key.ifPresent(k -> keep(keys, keyHash, k, seen));
        return key;
    }

    TenantPolicy policy(UUID tenantId, Supplier<TenantPolicy> read) {
        Entry<TenantPolicy> kept = policies.get(tenantId);
        if (kept != null && System.nanoTime() - kept.expiresAt() < 0) {
            return kept.value();
        }
        long seen = generation();
        TenantPolicy policy = read.get();
        keep(policies, tenantId, policy, seen);
        return policy;
    }

    private synchronized long generation() {
        return generation;
    }

    /** Kept only if nothing changed since the read began: else the read may predate the change. */
    private synchronized <K, V> void keep(Map<K, Entry<V>> map, K key, V value, long seen) {
        if (!hearing || ttlNanos <= 0 || generation != seen) {
            return;
        }
        if (map.size() >= MAX_ENTRIES) {
            map.clear();
        }
        map.put(key, new Entry<>(value, System.nanoTime() + ttlNanos));
    }

    private void dropAll() {
        generation++;
        keys.clear();
        policies.clear();
    }
}
