package dev.nixexec.tenant;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * What a tenant may ask for; a missing field means the service-wide default. {@code maxTimeoutSeconds},
 * {@code maxOutputBytes}, {@code maxMemoryBytes}, {@code maxPids} and {@code maxCpuSeconds} can only
 * narrow the service's own limits: a job's {@code limits} may not exceed them, and a job that leaves
 * a limit out runs under the smaller of the service's value and the cap. {@code webhookHosts}: where
 * a job's {@code callback_url} may point ({@link WebhookHosts}); none listed, no callbacks.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record TenantPolicy(List<String> languages, List<String> packageAllowlist, List<String> packageDenylist,
        Boolean network, Long maxTimeoutSeconds, Long maxOutputBytes, Integer maxQueued, Integer maxRunning,
        List<String> webhookHosts, Long maxMemoryBytes, Integer maxPids, Long maxCpuSeconds) {

    /** A policy that lists no webhook hosts and caps no run's memory, processes or CPU time beyond the service's. */
    public TenantPolicy(List<String> languages, List<String> packageAllowlist, List<String> packageDenylist,
            Boolean network, Long maxTimeoutSeconds, Long maxOutputBytes, Integer maxQueued, Integer maxRunning) {
        this(languages, packageAllowlist, packageDenylist, network, maxTimeoutSeconds, maxOutputBytes, maxQueued,
                maxRunning, null, null, null, null);
    }

    public static TenantPolicy defaults() {
        return new TenantPolicy(null, null, null, null, null, null, null, null);
    }

    public WebhookHosts webhooks() {
        return new WebhookHosts(webhookHosts == null ? List.of() : webhookHosts);
    }

    public boolean networkAllowed() {
        return Boolean.TRUE.equals(network);
    }
}
