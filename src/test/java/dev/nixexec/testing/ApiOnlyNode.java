package dev.nixexec.testing;

import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.Map;

/**
 * A node that takes requests but runs no jobs, so a test's own claimers are the only ones; behind
 * a reverse proxy on the same host, set as docs/operations.md tells an operator to set it for
 * nginx (forwarded headers taken from 127.0.0.1 only). One profile, one application start, for
 * the tests of either: requests that carry no forwarded headers are served as without a proxy.
 */
public class ApiOnlyNode implements QuarkusTestProfile {

    /** The one address whose forwarded headers count. */
    public static final String TRUSTED_PROXY = "127.0.0.1";

    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of("nixexec.node.role", "api",
                "quarkus.http.proxy.proxy-address-forwarding", "true",
                "quarkus.http.proxy.allow-x-forwarded", "true",
                "quarkus.http.proxy.enable-forwarded-host", "true",
                "quarkus.http.proxy.trusted-proxies", TRUSTED_PROXY);
    }
}
