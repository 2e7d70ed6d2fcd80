package dev.nixexec.config;

import io.smallrye.config.WithDefault;
import java.time.Duration;
import java.util.List;

/** Job callbacks ({@code callback_url}; docs/api.md, "Callbacks"). */
public interface WebhookSettings {
    /** How often each node looks for callbacks due. */
    @NonZero
    @WithDefault("1s")
    Duration poll();

    /** The longest one delivery attempt may take: connecting, sending, the receiver's answer. */
    @NonZero
    @WithDefault("10s")
    Duration attemptTimeout();

    /** The waits after each failed attempt; one attempt more than there are waits, then it has failed. */
    @WithDefault("1s,5s,30s,2m,10m")
    List<Duration> retryDelays();

    /** Delivery attempts one node makes at once; each is independent of the others. */
    @NonZero
    @WithDefault("64")
    int concurrency();

    /** Delivery attempts one node makes at once to one receiving host, so one slow host cannot take every place. */
    @NonZero
    @WithDefault("4")
    int concurrencyPerHost();
}
