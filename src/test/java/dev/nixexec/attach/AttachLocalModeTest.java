package dev.nixexec.attach;

import static dev.nixexec.testing.JsonBody.json;
import static dev.nixexec.testing.JsonBody.read;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.nixexec.testing.LocalMode;
import dev.nixexec.testing.NixSpy;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.net.http.WebSocketHandshakeException;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Local mode (no keys): a page of another origin cannot open a shell (a browser sends any site's
 * WebSocket to 127.0.0.1; DNS rebinding gets past a Host check), a client of this machine (no
 * Origin, as a program sends) can; an idle shell is closed with its reason.
 */
@QuarkusTest
@TestProfile(LocalMode.class)
@WithTestResource(NixSpy.class)
class AttachLocalModeTest {

    @TestHTTPResource("/")
    URI base;

    private WebSocket connect(String origin, String session, AttachEndpointTest.Terminal terminal) {
        WebSocket.Builder builder = HttpClient.newHttpClient().newWebSocketBuilder();
        if (origin != null) {
            builder.header("Origin", origin);
        }
        return builder.buildAsync(URI.create(base.toString().replaceFirst("^http", "ws") + "v1/sessions/" + session
                + "/attach"), terminal).join();
    }

    /** A new ready session: local mode has no keys, so the local operator's. */
    private static String session() {
        return read(given().contentType("application/json").body(Map.of()).post("/v1/sessions?wait=120").then()
                .statusCode(201).body(json("status", equalTo("ready"))).extract().asString(), "id");
    }

    @Test
    void aForeignOriginIsRefusedBeforeTheUpgradeAndThisMachineIsServed() throws Exception {
        String session = session();
        CompletionException refused = org.junit.jupiter.api.Assertions.assertThrows(CompletionException.class,
                () -> connect("http://attacker.example", session, new AttachEndpointTest.Terminal()));
        var response = ((WebSocketHandshakeException) refused.getCause()).getResponse();
        assertEquals(403, response.statusCode());

        AttachEndpointTest.Terminal terminal = new AttachEndpointTest.Terminal();
        WebSocket ws = connect(null, session, terminal);
        ws.sendBinary(java.nio.ByteBuffer.wrap("echo $((6*7)); exit 0\n".getBytes()), true).join();
        terminal.await("42\r\n");
        assertEquals("1000 exit 0", terminal.closed.get(30, TimeUnit.SECONDS));
    }

    /** {@link LocalMode} sets the idle timeout to 3s. */
    @Test
    void anIdleShellIsClosedWithItsReason() throws Exception {
        AttachEndpointTest.Terminal terminal = new AttachEndpointTest.Terminal();
        connect(null, session(), terminal);
        assertEquals("4001 idle: no byte either way for 3s", terminal.closed.get(30, TimeUnit.SECONDS));
    }
}
