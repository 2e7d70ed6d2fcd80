package dev.nixexec.tenant;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Which fields of a policy allow more than an operator's grant; a missing field is the service's default. */
class GrantTest {

    private static TenantPolicy policy(List<String> languages, List<String> allow, List<String> deny, Boolean network,
            Long timeout, Integer queued, Integer running, List<String> hooks, Long memory) {
        return new TenantPolicy(languages, allow, deny, network, timeout, null, queued, running, hooks, memory, null, null);
    }

    private static final TenantPolicy DEFAULTS = TenantPolicy.defaults();

    @Test
    void theServiceDefaultsGrantNoNetworkNoIpLiteralAndNoCapAboveTheDefaultCaps() {
        Grant grant = new Grant(DEFAULTS, 1000, 16);
        assertEquals(List.of(), grant.exceededBy(DEFAULTS));
        assertEquals(List.of("network"), grant.exceededBy(policy(null, null, null, true, null, null, null, null, null)));
        assertEquals(List.of("max_queued", "max_running"),
                grant.exceededBy(policy(null, null, null, null, null, 1001, 17, null, null)));
        assertEquals(List.of(), grant.exceededBy(policy(null, null, null, false, null, 1000, 16, null, null)));
        // the run caps only ever narrow the service's own limits: any value is within a grant that leaves them out
        assertEquals(List.of(), grant.exceededBy(policy(null, null, null, null, 99_999L, null, null, null, 1L << 40)));
        assertEquals(List.of("webhook_hosts"),
                grant.exceededBy(policy(null, null, null, null, null, null, null, List.of("hooks.example.com", "127.0.0.1"), null)));
        assertEquals(List.of(), grant.exceededBy(policy(null, null, null, null, null, null, null, List.of("hooks.example.com:443"), null)));
    }

    @Test
    void listsAndCapsMustStayInsideWhatIsGranted() {
        TenantPolicy granted = policy(List.of("python", "bash"), List.of("hello", "jq"), List.of("curl"), true, 30L, 5, 2,
                List.of("[::1]:8080", "10.0.0.5"), 1L << 30);
        Grant grant = new Grant(granted, 1000, 16);
        assertEquals(List.of(), grant.exceededBy(granted));
        assertEquals(List.of(), grant.exceededBy(policy(List.of("bash"), List.of("jq"), List.of("curl", "wget"), false, 1L, 0, 1,
                List.of("[0:0:0:0:0:0:0:1]:8080", "10.0.0.5:8443", "hooks.example.com"), 1L)),
                "narrower everywhere (an IPv6 literal spelled otherwise, a port of a host granted on any)");
        assertEquals(List.of("languages", "package_allowlist", "package_denylist", "max_timeout_seconds", "max_queued",
                        "max_running", "webhook_hosts", "max_memory_bytes"),
                grant.exceededBy(policy(null, null, null, true, null, null, null, List.of("[::1]:8081"), null)),
                "every field left out is the default, wider than each granted bound");
        assertEquals(List.of("webhook_hosts"), grant.exceededBy(policy(List.of("bash"), List.of("jq"), List.of("curl"), true,
                30L, 5, 2, List.of("[::1]"), 1L << 30)), "a literal granted on one port, asked on every port");
        assertEquals(List.of("languages"), grant.exceededBy(policy(List.of("python", "ruby"), List.of("hello"), List.of("curl"),
                true, 30L, 5, 2, List.of(), 1L << 30)));
    }
}
