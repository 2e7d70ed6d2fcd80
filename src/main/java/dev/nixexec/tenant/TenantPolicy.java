package dev.nixexec.tenant;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * What a tenant may ask for; a missing field means the service-wide default. {@code maxTimeoutSeconds}
 * and {@code maxOutputBytes} can only narrow the service's own limits.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record TenantPolicy(List<String> languages, List<String> packageAllowlist, List<String> packageDenylist,
        Boolean network, Long maxTimeoutSeconds, Long maxOutputBytes, Integer maxQueued, Integer maxRunning) {

    public static TenantPolicy defaults() {
        return new TenantPolicy(null, null, null, null, null, null, null, null);
    }

    public boolean networkAllowed() {
        return Boolean.TRUE.equals(network);
    }
}
