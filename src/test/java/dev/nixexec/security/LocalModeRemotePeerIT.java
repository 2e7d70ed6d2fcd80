package dev.nixexec.security;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.nixexec.testing.NixSpy;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.RestAssured;
import java.net.InetAddress;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Local mode (no keys) forced to listen on every address, and trusting forwarded headers from
 * any proxy: a client on the network still gets 403 and runs nothing, whatever it claims in
 * Host, X-Forwarded-For, X-Forwarded-Host or Forwarded. Only the TCP peer address counts.
 */
@QuarkusTest
@TestProfile(LocalModeRemotePeerIT.ListeningEverywhere.class)
@WithTestResource(NixSpy.class)
class LocalModeRemotePeerIT {

    public static class ListeningEverywhere implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("nixexec.auth.enabled", "false",
                    "quarkus.http.host", "0.0.0.0",
                    "nixexec.auth.local-mode-allow-non-loopback-bind", "true",
                    "quarkus.http.proxy.proxy-address-forwarding", "true",
                    "quarkus.http.proxy.allow-forwarded", "true",
                    "quarkus.http.proxy.allow-x-forwarded", "true",
                    "quarkus.http.proxy.enable-forwarded-host", "true");
        }
    }

    static final String LOOKS_LOCAL = "Host: localhost\r\n"
            + "X-Forwarded-For: 127.0.0.1\r\nX-Forwarded-Host: localhost\r\nX-Real-IP: 127.0.0.1\r\n"
            + "Forwarded: for=127.0.0.1;host=localhost;proto=http\r\n";

    @Test
    void aNetworkPeerClaimingToBeLocalRunsNothing() throws Exception {
        InetAddress lan = LanPeer.address().orElse(null);
        assumeTrue(lan != null, "this host has no non-loopback IPv4 address to play a network client from");
        InetAddress loopback = InetAddress.getByName("127.0.0.1");
        int port = RestAssured.port;
        String marker = "pwned-" + UUID.randomUUID();
        String job = "{\"language\":\"bash\",\"code\":\"echo " + marker + "\",\"metadata\":{\"probe\":\"" + marker + "\"}}";

        String remote = LanPeer.exchange(lan, lan, port, "POST", "/v1/jobs?wait=10",
                LOOKS_LOCAL + "Content-Type: application/json\r\n", job);
        assertTrue(remote.startsWith("HTTP/1.1 403"), remote);
        assertTrue(remote.contains("application/problem+json"), remote);
        assertFalse(remote.contains(marker), remote);

        for (String path : new String[] {"/mcp", "/ui/jobs", "/v1/languages", "/q/health/live"}) {
            String other = LanPeer.exchange(lan, lan, port, "GET", path, LOOKS_LOCAL, "");
            assertTrue(other.startsWith("HTTP/1.1 403"), path + ": " + other);
        }

        // The same request from a loopback peer is served, so the refusal above is the peer check's.
        String local = "local-" + UUID.randomUUID();
        String served = LanPeer.exchange(loopback, loopback, port, "POST", "/v1/jobs?wait=30",
                "Host: localhost\r\nContent-Type: application/json\r\n",
                "{\"language\":\"bash\",\"code\":\"echo hi\",\"metadata\":{\"probe\":\"" + local + "\"}}");
        assertTrue(served.startsWith("HTTP/1.1 20"), served);

        String listing = LanPeer.exchange(loopback, loopback, port, "GET", "/v1/jobs?limit=200", "Host: localhost\r\n", "");
        assertTrue(listing.contains(local), "the listing shows the loopback job: " + listing);
        assertFalse(listing.contains(marker), "no job was made for the network peer: " + listing);
    }
}
