package dev.nixexec.job;

import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The {@code tenant} label of the job counters: the tenant's name for the first {@code max}
 * tenants this node counts, {@value #OTHER} for every later one. Each label value is a set of series
 * in every scraper, so their number must not grow with the platform's tenants. A name once given
 * stays (tenant names do not change), so a tenant's series never switch label; which tenants are
 * named depends on the order a node meets them and is not shared between nodes.
 */
final class TenantLabels {

    static final String OTHER = "other";

    private final int max;
    private final Function<UUID, Optional<String>> names;
    private final Map<UUID, String> named = new ConcurrentHashMap<>();

    TenantLabels(int max, Function<UUID, Optional<String>> names) {
        this.max = max;
        this.names = names;
    }

    /** The label of the tenant's series; looks the name up (once) only while there is room for it. */
    String of(UUID tenantId) {
        String known = named.get(tenantId);
        if (known != null || named.size() >= max) {
            return known != null ? known : OTHER;
        }
        Optional<String> name = names.apply(tenantId);
        if (name.isEmpty()) {
            return OTHER;
        }
        synchronized (named) {
            if (named.size() < max) {
                named.putIfAbsent(tenantId, name.get());
            }
        }
        return named.getOrDefault(tenantId, OTHER);
    }
}
