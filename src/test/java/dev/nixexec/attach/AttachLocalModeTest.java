package dev.nixexec.attach;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.nixexec.testing.NixSpy;
import dev.nixexec.tenant.Tenants;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.net.http.WebSocketHandshakeException;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Local mode (no keys): a page of another origin cannot open a shell (a browser sends any site's
 * WebSocket to 127.0.0.1; DNS rebinding gets past a Host check), a client of this machine (no
 * Origin, as a program sends) can.
 */
@QuarkusTest
@TestProfile(AttachLocalModeTest.Profile.class)
@WithTestResource(NixSpy.class)
class AttachLocalModeTest {

    public static class Profile implements QuarkusTestProfile {
        @Override
        public Set<Class<?>> getEnabledAlternatives() {
            return Set.of(FixtureSessionShells.class);
        }

        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("nixexec.auth.enabled", "false");
        }
    }

    @TestHTTPResource("/")
    URI base;

    @Inject
    FixtureSessionShells sessions;

    @Inject
    Tenants tenants;

    private WebSocket connect(String origin, String session, AttachEndpointTest.Terminal terminal) {
        WebSocket.Builder builder = HttpClient.newHttpClient().newWebSocketBuilder();
        if (origin != null) {
            builder.header("Origin", origin);
        }
        return builder.buildAsync(URI.create(base.toString().replaceFirst("^http", "ws") + "v1/sessions/" + session
                + "/attach"), terminal).join();
    }

    @Test
    void aForeignOriginIsRefusedBeforeTheUpgradeAndThisMachineIsServed() throws Exception {
        UUID session = sessions.create(tenants.localOperator().tenantId());
        CompletionException refused = org.junit.jupiter.api.Assertions.assertThrows(CompletionException.class,
                () -> connect("http://attacker.example", session.toString(), new AttachEndpointTest.Terminal()));
        var response = ((WebSocketHandshakeException) refused.getCause()).getResponse();
        assertEquals(403, response.statusCode());

        AttachEndpointTest.Terminal terminal = new AttachEndpointTest.Terminal();
        WebSocket ws = connect(null, session.toString(), terminal);
        ws.sendBinary(java.nio.ByteBuffer.wrap("echo $((6*7)); exit 0\n".getBytes()), true).join();
        terminal.await("42\r\n");
        assertEquals("1000 exit 0", terminal.closed.get(30, TimeUnit.SECONDS));
    }
}
