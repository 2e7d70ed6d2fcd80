package dev.nixexec.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.net.SocketAddress;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The start-up decision of local mode (no keys): a non-loopback listening address is refused with
 * one line naming the setting that would force it; and which connection peers count as local.
 */
class LocalModeBindTest {

    @Test
    void aNonLoopbackAddressIsRefusedUnlessForced() {
        for (String host : new String[] {"0.0.0.0", "::", "[::]", "192.0.2.2", ""}) {
            Optional<String> refusal = LocalModePeerCheck.refusal("quarkus.http.host", host, false);
            assertTrue(refusal.isPresent(), host);
            assertFalse(refusal.get().contains("\n"), refusal.get());
            assertTrue(refusal.get().contains("quarkus.http.host=" + host), refusal.get());
            assertTrue(refusal.get().contains("nixexec.auth.local-mode-allow-non-loopback-bind=true"), refusal.get());
            assertEquals(Optional.empty(), LocalModePeerCheck.refusal("quarkus.http.host", host, true), host);
        }
        assertTrue(LocalModePeerCheck.refusal("quarkus.management.host", "0.0.0.0", false).orElseThrow()
                .contains("quarkus.management.host=0.0.0.0"));
    }

    @Test
    void loopbackAddressesAreAccepted() {
        for (String host : new String[] {"127.0.0.1", "127.0.0.2", "::1", "[::1]", "localhost", "LOCALHOST"}) {
            assertEquals(Optional.empty(), LocalModePeerCheck.refusal("quarkus.http.host", host, false), host);
        }
    }

    @Test
    void onlyLoopbackAndUnixSocketPeersAreLocal() {
        assertTrue(LocalModePeerCheck.loopbackPeer(SocketAddress.inetSocketAddress(40000, "127.0.0.1")));
        assertTrue(LocalModePeerCheck.loopbackPeer(SocketAddress.inetSocketAddress(40000, "::1")));
        assertTrue(LocalModePeerCheck.loopbackPeer(SocketAddress.inetSocketAddress(40000, "::ffff:127.0.0.1")));
        assertTrue(LocalModePeerCheck.loopbackPeer(SocketAddress.domainSocketAddress("/run/nix-exec.sock")));
        assertFalse(LocalModePeerCheck.loopbackPeer(SocketAddress.inetSocketAddress(40000, "192.0.2.2")));
        assertFalse(LocalModePeerCheck.loopbackPeer(SocketAddress.inetSocketAddress(40000, "::ffff:192.0.2.2")));
        assertFalse(LocalModePeerCheck.loopbackPeer(SocketAddress.inetSocketAddress(40000, "fe80::1")));
        assertFalse(LocalModePeerCheck.loopbackPeer(null));
    }
}
