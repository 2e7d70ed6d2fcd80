package dev.nixexec.tenant;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.nixexec.refusal.FieldError;
import dev.nixexec.sandbox.Limits;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

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

    /**
     * A run's limits within this policy's caps: one within them already stays as it is; one left at
     * the service's default takes the smaller of that and the cap. The same for a job when it is
     * claimed and for a shell when it attaches.
     */
    public Limits narrow(Limits l) {
        long memory = Math.min(l.memoryBytes(), Optional.ofNullable(maxMemoryBytes).orElse(Long.MAX_VALUE));
        int processes = Math.min(l.maxProcesses(), Optional.ofNullable(maxPids).orElse(Integer.MAX_VALUE));
        long cpu = maxCpuSeconds == null ? l.cpuSeconds() : Math.min(l.effectiveCpuSeconds(), maxCpuSeconds);
        long output = Math.min(l.maxOutputBytes(), Optional.ofNullable(maxOutputBytes).orElse(Long.MAX_VALUE));
        return new Limits(l.timeout(), memory, processes, cpu, l.maxFileBytes(), l.tmpBytes(), l.workspaceBytes(), output);
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
        // a cap on a run of 0 would leave no run possible: the sandbox refuses such limits
        atLeast("policy.max_memory_bytes", maxMemoryBytes, 1, errors);
        atLeast("policy.max_pids", maxPids, 1, errors);
        atLeast("policy.max_cpu_seconds", maxCpuSeconds, 1, errors);
        if (webhookHosts != null) {
            webhookHosts.stream().flatMap(entry -> WebhookHosts.problem(entry).stream())
                    .forEach(problem -> errors.add(new FieldError("policy.webhook_hosts", problem)));
        }
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
