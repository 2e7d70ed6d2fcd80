package dev.nixexec.tenant;

import java.util.ArrayList;
import java.util.List;

/**
 * What an operator granted a tenant: the widest policy the tenant's own admin may set. An admin may
 * narrow its tenant's policy within the grant and widen it back up to the grant, never beyond: its
 * caps, languages, packages, network and webhook addresses are the operator's to give. A field the
 * grant leaves out stands for the service's default, so an admin's cap on the tenant's queued or
 * running jobs may not exceed the service's default cap either (the other caps only ever narrow the
 * service's own limits, so any value of them is within a grant that leaves them out).
 */
public record Grant(TenantPolicy granted, int defaultMaxQueued, int defaultMaxRunning) {

    /** The JSON names of the fields in which {@code policy} allows more than this grant, in field order. */
    public List<String> exceededBy(TenantPolicy policy) {
        TenantPolicy g = granted;
        List<String> wider = new ArrayList<>();
        if (!within(policy.languages(), g.languages())) {
            wider.add("languages");
        }
        if (!within(policy.packageAllowlist(), g.packageAllowlist())) {
            wider.add("package_allowlist");
        }
        if (g.packageDenylist() != null && !g.packageDenylist().isEmpty()
                && (policy.packageDenylist() == null || !policy.packageDenylist().containsAll(g.packageDenylist()))) {
            wider.add("package_denylist");
        }
        if (policy.networkAllowed() && !g.networkAllowed()) {
            wider.add("network");
        }
        if (!atMost(policy.maxTimeoutSeconds(), g.maxTimeoutSeconds())) {
            wider.add("max_timeout_seconds");
        }
        if (!atMost(policy.maxOutputBytes(), g.maxOutputBytes())) {
            wider.add("max_output_bytes");
        }
        if (orDefault(policy.maxQueued(), defaultMaxQueued) > orDefault(g.maxQueued(), defaultMaxQueued)) {
            wider.add("max_queued");
        }
        if (orDefault(policy.maxRunning(), defaultMaxRunning) > orDefault(g.maxRunning(), defaultMaxRunning)) {
            wider.add("max_running");
        }
        // A host name is checked at each delivery and never reaches an internal address; an IP
        // literal may (it is how an operator lets callbacks into its own network), so only the grant lists one.
        WebhookHosts grantedHosts = g.webhooks();
        if (policy.webhooks().entries().stream().anyMatch(e -> WebhookHosts.namesIpLiteral(e) && !grantedHosts.covers(e))) {
            wider.add("webhook_hosts");
        }
        if (!atMost(policy.maxMemoryBytes(), g.maxMemoryBytes())) {
            wider.add("max_memory_bytes");
        }
        if (!atMost(policy.maxPids(), g.maxPids())) {
            wider.add("max_pids");
        }
        if (!atMost(policy.maxCpuSeconds(), g.maxCpuSeconds())) {
            wider.add("max_cpu_seconds");
        }
        return wider;
    }

    /** A list that allows what it names (null: everything) within the granted one. */
    private static boolean within(List<String> allowed, List<String> granted) {
        return granted == null || allowed != null && granted.containsAll(allowed);
    }

    /** A cap (null: the service's own limit) no higher than the granted one. */
    private static boolean atMost(Number cap, Number granted) {
        return granted == null || cap != null && cap.longValue() <= granted.longValue();
    }

    private static int orDefault(Integer cap, int fallback) {
        return cap == null ? fallback : cap;
    }
}
