package dev.nixexec.config;

import io.smallrye.config.WithDefault;
import java.time.Duration;

/**
 * What one tenant or key may take from the others: its share of a node's slots, its request
 * rate and its open waits (docs/operations.md, "Queue fairness").
 */
public interface LimitSettings {
    /** Slots of each node a tenant leaves to the others while another tenant contends; 0: none. */
    @WithDefault("1")
    int reservedSlots();

    /** A tenant that submitted a job this recently contends for slots, as one with a job waiting does. */
    @WithDefault("5m")
    Duration contentionWindow();

    /** Requests per second one API key may make to /v1 and /mcp, sustained. */
    @NonZero
    @WithDefault("100")
    int requestsPerSecond();

    /** Requests one key may make at once before its rate applies. */
    @NonZero
    @WithDefault("1000")
    int requestBurst();

    /** Waiting requests one key may have open at once ({@code ?wait=}, event streams, MCP waits). */
    @NonZero
    @WithDefault("32")
    int waitsPerKey();

    /**
     * Requests per second the keys of one tenant may make together, sustained: minting keys
     * does not multiply a tenant's share.
     */
    @NonZero
    @WithDefault("200")
    int tenantRequestsPerSecond();

    /** Requests the keys of one tenant may make at once, together, before the tenant's rate applies. */
    @NonZero
    @WithDefault("2000")
    int tenantRequestBurst();

    /** Waiting requests the keys of one tenant may have open at once, together. */
    @NonZero
    @WithDefault("64")
    int waitsPerTenant();
}
