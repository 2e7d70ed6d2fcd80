package dev.nixexec.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.nixexec.testing.LocalMode;
import dev.nixexec.testing.NixSpy;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.RestAssured;
import java.net.ConnectException;
import java.net.InetAddress;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;

/**
 * Local mode (no keys) with no listening address configured: the service listens on 127.0.0.1
 * only, so a client on the network cannot even connect, whatever Host it would send.
 */
@QuarkusTest
@TestProfile(LocalMode.class)
@WithTestResource(NixSpy.class)
class LocalModeLoopbackOnlyTest {

    @Test
    void theServiceIsNotReachableOnTheNetworkAddress() throws Exception {
        assertEquals("127.0.0.1", ConfigProvider.getConfig().getValue("quarkus.http.host", String.class));
        InetAddress lan = LanPeer.address().orElse(null);
        assumeTrue(lan != null, "this host has no non-loopback IPv4 address to play a network client from");
        int port = RestAssured.port;

        assertThrows(ConnectException.class, () -> LanPeer.exchange(lan, lan, port, "POST", "/v1/jobs?wait=10",
                "Host: localhost\r\nContent-Type: application/json\r\n", "{\"language\":\"bash\",\"code\":\"echo pwned\"}"));

        InetAddress loopback = InetAddress.getByName("127.0.0.1");
        String served = LanPeer.exchange(loopback, loopback, port, "GET", "/v1/languages", "Host: localhost\r\n", "");
        assertTrue(served.startsWith("HTTP/1.1 200"), served);
    }
}
