package dev.nixexec.attach;

import static dev.nixexec.testing.JsonBody.json;
import static dev.nixexec.testing.JsonBody.read;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.hamcrest.Matchers.equalTo;

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
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The attach endpoint through a real WebSocket client (the JDK's), against the shells of real
 * sessions (created over REST, their environments built by this node's worker). The idle
 * timeout's close is in {@link AttachLocalModeTest}, whose profile shortens it.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
class AttachEndpointTest {

    @TestHTTPResource("/")
    URI base;

    /** What came over the connection: terminal bytes, and the close. */
    static final class Terminal implements WebSocket.Listener {
        final StringBuilder screen = new StringBuilder();
        final CompletableFuture<String> closed = new CompletableFuture<>();

        @Override
        public synchronized CompletionStage<?> onBinary(WebSocket ws, ByteBuffer data, boolean last) {
            screen.append(StandardCharsets.UTF_8.decode(data));
            notifyAll();
            ws.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket ws, int code, String reason) {
            closed.complete(code + " " + reason);
            return null;
        }

        @Override
        public void onError(WebSocket ws, Throwable error) {
            closed.completeExceptionally(error);
        }

        synchronized void await(String text) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!screen.toString().contains(text)) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new AssertionError("the terminal did not show " + text + ": " + screen);
                }
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
        }
    }

    private URI attach(String session) {
        return URI.create(base.toString().replaceFirst("^http", "ws") + "v1/sessions/" + session + "/attach");
    }

    private WebSocket connect(String key, String session, Terminal terminal) {
        WebSocket.Builder builder = HttpClient.newHttpClient().newWebSocketBuilder();
        if (key != null) {
            builder.header("Authorization", "Bearer " + key);
        }
        return builder.buildAsync(attach(session), terminal).join();
    }

    private int refusal(String key, String session) {
        try {
            connect(key, session, new Terminal());
        } catch (CompletionException e) {
            if (e.getCause() instanceof WebSocketHandshakeException refused) {
                return refused.getResponse().statusCode();
            }
            throw e;
        }
        throw new AssertionError("the upgrade was accepted");
    }

    /** A new ready session of the tenant with these packages (none: bash and coreutils); its id. */
    static String session(String memberKey, List<String> packages) {
        return read(Api.as(memberKey).body(Map.of("packages", packages)).post("/v1/sessions?wait=120").then()
                .statusCode(201).body(json("status", equalTo("ready"))).extract().asString(), "id");
    }

    private static void type(WebSocket ws, String text) {
        ws.sendBinary(ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)), true).join();
    }

    @Test
    void typedCommandsRunResizeAndTheExitCodeClosesTheConnection() throws Exception {
        String tenant = Api.tenant("attach");
        String key = Api.key(tenant, "member");
        String session = session(key, List.of("python3"));
        Terminal terminal = new Terminal();
        WebSocket ws = connect(key, session, terminal);
        type(ws, "echo $((6*7))\n");
        terminal.await("42\r\n");
        ws.sendText("{\"resize\":[132,43]}", true).join();
        type(ws, "python3 -c \"import os; s = os.get_terminal_size(0); print('size', s.lines, s.columns)\"\n");
        terminal.await("size 43 132");
        type(ws, "exit 3\n");
        assertEquals("1000 exit 3", terminal.closed.get(30, TimeUnit.SECONDS));

        // audited like a job: its start, and its end with the bytes each way and the duration
        String auditor = Api.key(tenant, "auditor");
        java.util.List<java.util.Map<String, Object>> items = read(Api.as(auditor).get("/v1/audit?limit=20").then()
                .statusCode(200).extract().asString(), "items");
        java.util.Map<String, Object> end = items.stream().filter(i -> "shell_ended".equals(i.get("kind"))).findFirst()
                .orElseThrow(() -> new AssertionError("no shell_ended record: " + items));
        @SuppressWarnings("unchecked")
        java.util.Map<String, Object> detail = (java.util.Map<String, Object>) end.get("detail");
        assertEquals(session, detail.get("session_id"));
        assertEquals(3, detail.get("exit_code"));
        assertTrue(((Number) detail.get("bytes_in")).longValue() > 0 && ((Number) detail.get("bytes_out")).longValue() > 0,
                detail.toString());
        assertTrue(detail.containsKey("duration_ms"), detail.toString());
        assertTrue(items.stream().anyMatch(i -> "shell_started".equals(i.get("kind"))), items.toString());
    }

    /** Piped input, all at once before any prompt: a script, as a non-interactive client sends it. */
    @Test
    void pipedInputRunsAsAScript() throws Exception {
        String key = Api.memberKey("attach");
        String session = session(key, List.of());
        Terminal terminal = new Terminal();
        WebSocket ws = connect(key, session, terminal);
        type(ws, "x=piped\necho \"got-$x\"\nexit 0\n");
        assertEquals("1000 exit 0", terminal.closed.get(30, TimeUnit.SECONDS));
        assertTrue(terminal.screen.toString().contains("got-piped"), terminal.screen.toString());
    }

    @Test
    void aBadTextFrameClosesTheConnection() throws Exception {
        String key = Api.memberKey("attach");
        String session = session(key, List.of());
        Terminal terminal = new Terminal();
        WebSocket ws = connect(key, session, terminal);
        ws.sendText("{\"resize\":\"big\"}", true).join();
        assertEquals("1003 a text frame must be {\"resize\":[columns,rows]}", terminal.closed.get(30, TimeUnit.SECONDS));
    }

    @Test
    void refusalsComeBeforeTheUpgrade() {
        String tenant = Api.tenant("attach");
        String session = session(Api.key(tenant, "member"), List.of());
        assertEquals(401, refusal(null, session), "no key");
        assertEquals(401, refusal("nx_not_a_key", session), "an unknown key");
        assertEquals(403, refusal(Api.key(tenant, "auditor"), session), "auditors never exec");
        assertEquals(404, refusal(Api.memberKey("other"), session), "another tenant's session");
        assertEquals(404, refusal(Api.key(tenant, "member"), UUID.randomUUID().toString()), "an unknown session");
    }
}
