package dev.nixexec.tenant;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.nixexec.refusal.FieldError;
import java.util.ArrayList;
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

    /**
     * What is wrong with this policy beyond its JSON shape, each under its JSON name below
     * {@code policy.}; empty when nothing is. The same check for a tenant made and a policy changed.
     */
    public List<FieldError> problems() {
        List<FieldError> errors = new ArrayList<>();
        names("policy.languages", languages, errors);
        names("policy.package_allowlist", packageAllowlist, errors);
        names("policy.package_denylist", packageDenylist, errors);
        atLeast("policy.max_timeout_seconds", maxTimeoutSeconds, 1, errors);
        atLeast("policy.max_output_bytes", maxOutputBytes, 0, errors);
        atLeast("policy.max_queued", maxQueued, 0, errors);
        atLeast("policy.max_running", maxRunning, 0, errors);
        return errors;
    }

    private static void names(String field, List<String> names, List<FieldError> errors) {
        if (names == null) {
            return;
        }
        for (int i = 0; i < names.size(); i++) {
            String name = names.get(i);
            if (name == null || name.isBlank() || name.length() > 200) {
                errors.add(new FieldError(field + "[" + i + "]", "must be a name of 1 to 200 characters"));
            }
        }
    }

    private static void atLeast(String field, Number value, long least, List<FieldError> errors) {
        if (value != null && value.longValue() < least) {
            errors.add(new FieldError(field, "must be at least " + least + " (or absent: the service's default)"));
        }
    }
}
