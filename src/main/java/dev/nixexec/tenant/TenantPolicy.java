package dev.nixexec.tenant;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * What a tenant may ask for; a missing field means the service-wide default. {@code maxTimeoutSeconds}
 * and {@code maxOutputBytes} can only narrow the service's own limits. {@code webhookHosts}: where a
 * job's {@code callback_url} may point ({@link WebhookHosts}); none listed, no callbacks.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record TenantPolicy(List<String> languages, List<String> packageAllowlist, List<String> packageDenylist,
        Boolean network, Long maxTimeoutSeconds, Long maxOutputBytes, Integer maxQueued, Integer maxRunning,
        List<String> webhookHosts) {

    /** A policy that lists no webhook hosts. */
    public TenantPolicy(List<String> languages, List<String> packageAllowlist, List<String> packageDenylist,
            Boolean network, Long maxTimeoutSeconds, Long maxOutputBytes, Integer maxQueued, Integer maxRunning) {
        this(languages, packageAllowlist, packageDenylist, network, maxTimeoutSeconds, maxOutputBytes, maxQueued,
                maxRunning, null);
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
