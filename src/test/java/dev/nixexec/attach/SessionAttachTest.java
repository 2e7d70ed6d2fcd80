package dev.nixexec.attach;

import static dev.nixexec.testing.JsonBody.json;
import static dev.nixexec.testing.JsonBody.read;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.nixexec.testing.Api;
import dev.nixexec.testing.NixSpy;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.net.http.WebSocketHandshakeException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A shell in a real session, end to end: created over REST (its environment built by a worker),
 * attached over a real WebSocket, what the shell wrote to /workspace and ~ stored back and read by
 * the session's next command; the refusals against the real sessions.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
class SessionAttachTest {

    @TestHTTPResource("/")
    URI base;

    private WebSocket connect(String key, String session, AttachEndpointTest.Terminal terminal) {
        return HttpClient.newHttpClient().newWebSocketBuilder().header("Authorization", "Bearer " + key)
                .buildAsync(URI.create(base.toString().replaceFirst("^http", "ws") + "v1/sessions/" + session
                        + "/attach"), terminal).join();
    }

    private int refusal(String key, String session) {
        try {
            connect(key, session, new AttachEndpointTest.Terminal());
        } catch (CompletionException e) {
            if (e.getCause() instanceof WebSocketHandshakeException refused) {
                return refused.getResponse().statusCode();
            }
            throw e;
        }
        throw new AssertionError("the upgrade was accepted");
    }

    @Test
    void whatTheShellWritesTheNextCommandReads() throws Exception {
        String tenant = Api.tenant("shell");
        String member = Api.key(tenant, "member");
        String session = read(Api.as(member).body(Map.of("packages", List.of("hello"), "name", "for-a-shell"))
                .post("/v1/sessions?wait=120").then().statusCode(201).extract().asString(), "id");

        AttachEndpointTest.Terminal terminal = new AttachEndpointTest.Terminal();
        WebSocket ws = connect(member, "for-a-shell", terminal);
        ws.sendBinary(ByteBuffer.wrap(("echo from-the-shell > /workspace/note.txt; echo kept > ~/.profile-note; "
                + "hello; echo done-$((6*7))\n").getBytes(StandardCharsets.UTF_8)), true).join();
        terminal.await("done-42");
        terminal.await("Hello, world!");
        ws.sendBinary(ByteBuffer.wrap("exit 0\n".getBytes(StandardCharsets.UTF_8)), true).join();
        assertEquals("1000 exit 0", terminal.closed.get(30, TimeUnit.SECONDS));

        Api.as(member).body(Map.of("command", List.of("cat", "/workspace/note.txt", "/home/sandbox/.profile-note")))
                .post("/v1/sessions/" + session + "/exec?wait=60").then().statusCode(200)
                .body(json("stdout", org.hamcrest.Matchers.equalTo("from-the-shell\nkept\n")));
    }

    @Test
    void aShellEndsWhenItsSessionIsDestroyed() throws Exception {
        String tenant = Api.tenant("shell");
        String member = Api.key(tenant, "member");
        String session = read(Api.as(member).body(Map.of()).post("/v1/sessions?wait=120").then().statusCode(201)
                .extract().asString(), "id");
        AttachEndpointTest.Terminal terminal = new AttachEndpointTest.Terminal();
        WebSocket ws = connect(member, session, terminal);
        ws.sendBinary(ByteBuffer.wrap("echo up-$((6*7))\n".getBytes(StandardCharsets.UTF_8)), true).join();
        terminal.await("up-42");
        Api.as(member).delete("/v1/sessions/" + session).then().statusCode(204);
        assertEquals("4004 the session was destroyed", terminal.closed.get(30, TimeUnit.SECONDS));
    }

    private static double gauge(String name) {
        double sum = 0;
        for (String line : io.restassured.RestAssured.given().get("/q/metrics").then().statusCode(200).extract().asString()
                .split("\n")) {
            if (line.startsWith(name + " ") || line.startsWith(name + "{")) {
                sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return sum;
    }

    /** /q/metrics tells the sessions of the fleet by status and the shells attached on this node. */
    @Test
    void sessionsAndAttachedShellsAreGauges() throws Exception {
        double readyBefore = readyGauge();
        double shellsBefore = gauge("nixexec_shells_attached");
        String member = Api.key(Api.tenant("gauges"), "member");
        String session = read(Api.as(member).body(Map.of()).post("/v1/sessions?wait=120").then().statusCode(201)
                .extract().asString(), "id");
        await().atMost(Duration.ofSeconds(30)).until(() -> readyGauge() == readyBefore + 1);

        AttachEndpointTest.Terminal terminal = new AttachEndpointTest.Terminal();
        WebSocket ws = connect(member, session, terminal);
        ws.sendBinary(ByteBuffer.wrap("echo up-$((6*7))\n".getBytes(StandardCharsets.UTF_8)), true).join();
        terminal.await("up-42");
        await().atMost(Duration.ofSeconds(30)).until(() -> gauge("nixexec_shells_attached") == shellsBefore + 1);
        ws.sendBinary(ByteBuffer.wrap("exit 0\n".getBytes(StandardCharsets.UTF_8)), true).join();
        assertEquals("1000 exit 0", terminal.closed.get(30, TimeUnit.SECONDS));
        await().atMost(Duration.ofSeconds(30)).until(() -> gauge("nixexec_shells_attached") == shellsBefore);

        Api.as(member).delete("/v1/sessions/" + session).then().statusCode(204);
        await().atMost(Duration.ofSeconds(30)).until(() -> readyGauge() == readyBefore);
    }

    private static double readyGauge() {
        double sum = 0;
        for (String line : io.restassured.RestAssured.given().get("/q/metrics").then().statusCode(200).extract().asString()
                .split("\n")) {
            if (line.startsWith("nixexec_sessions{") && line.contains("status=\"ready\"")) {
                sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return sum;
    }

    @Test
    void theRealSessionsRefuseBeforeTheUpgrade() {
        String tenant = Api.tenant("shell");
        String member = Api.key(tenant, "member");
        String session = read(Api.as(member).body(Map.of()).post("/v1/sessions?wait=120").then().statusCode(201)
                .extract().asString(), "id");
        assertEquals(403, refusal(Api.key(tenant, "auditor"), session));
        assertEquals(404, refusal(Api.key(Api.tenant("shell-other"), "member"), session));
        Api.as(member).delete("/v1/sessions/" + session).then().statusCode(204);
        assertEquals(409, refusal(member, session), "a destroyed session takes no shell (409, as an exec in it)");
    }
}
