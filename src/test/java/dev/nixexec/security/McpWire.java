package dev.nixexec.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;

/**
 * MCP on the wire, byte for byte what any client (or attacker) can send: JSON-RPC POSTs to /mcp
 * with whatever Mcp-Session-Id it likes, and the SSE transport's stream and message endpoint.
 */
final class McpWire {

    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    static final String ACCEPT = "application/json, text/event-stream";

    private final URI base;

    McpWire(URI base) {
        this.base = base;
    }

    /** A Streamable HTTP session opened (initialize, notifications/initialized) with this key. */
    Session open(String key) {
        HttpResponse<String> init = post(key, null, request(0, "initialize", new JsonObject()
                .put("protocolVersion", "2025-06-18").put("capabilities", new JsonObject())
                .put("clientInfo", new JsonObject().put("name", "wire").put("version", "1"))));
        assertEquals(200, init.statusCode(), init.body());
        String id = init.headers().firstValue("Mcp-Session-Id").orElse(null);
        assertNotNull(id, "initialize answers with a session id");
        HttpResponse<String> initialized = post(key, id, notification("notifications/initialized", new JsonObject()));
        assertEquals(202, initialized.statusCode(), initialized.body());
        return new Session(id, key);
    }

    record Session(String id, String key) {
    }

    static JsonObject request(Object id, String method, JsonObject params) {
        return new JsonObject().put("jsonrpc", "2.0").put("id", id).put("method", method).put("params", params);
    }

    static JsonObject notification(String method, JsonObject params) {
        return new JsonObject().put("jsonrpc", "2.0").put("method", method).put("params", params);
    }

    static JsonObject toolCall(Object id, String tool, Map<String, Object> arguments) {
        return request(id, "tools/call", new JsonObject().put("name", tool).put("arguments", new JsonObject(arguments)));
    }

    HttpRequest.Builder mcp(String key, String sessionId) {
        HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve("/mcp")).timeout(Duration.ofSeconds(120))
                .header("Accept", ACCEPT).header("Content-Type", "application/json");
        if (key != null) {
            b.header("Authorization", "Bearer " + key);
        }
        if (sessionId != null) {
            b.header("Mcp-Session-Id", sessionId);
        }
        return b;
    }

    HttpResponse<String> post(String key, String sessionId, JsonObject message) {
        return send(mcp(key, sessionId).POST(HttpRequest.BodyPublishers.ofString(message.encode())).build());
    }

    CompletableFuture<HttpResponse<String>> postAsync(String key, String sessionId, JsonObject message) {
        return HTTP.sendAsync(mcp(key, sessionId).POST(HttpRequest.BodyPublishers.ofString(message.encode())).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> delete(String key, String sessionId) {
        return send(mcp(key, sessionId).DELETE().build());
    }

    /** The tools/call answer in a POST's response, whether sent as JSON or as an SSE stream. */
    static JsonObject answer(HttpResponse<String> response, Object id) {
        assertEquals(200, response.statusCode(), response.body());
        String type = response.headers().firstValue("Content-Type").orElse("");
        Stream<String> messages = type.startsWith("text/event-stream")
                ? response.body().lines().filter(l -> l.startsWith("data:")).map(l -> l.substring(5).strip())
                : Stream.of(response.body());
        return messages.map(JsonObject::new).filter(m -> id.equals(m.getValue("id")) && !m.containsKey("method"))
                .findFirst().orElseThrow(() -> new AssertionError("no answer to " + id + " in " + response.body()));
    }

    /** The text of a tools/call result's first content, and whether it is an error. */
    record ToolResult(boolean isError, String text, JsonObject raw) {
        static ToolResult of(JsonObject answer) {
            JsonObject result = answer.getJsonObject("result");
            if (result == null) {
                throw new AssertionError("not a tool result: " + answer.encode());
            }
            return new ToolResult(result.getBoolean("isError", false),
                    result.getJsonArray("content").getJsonObject(0).getString("text"), result);
        }
    }

    /**
     * A tools/call whose arguments are written as JSON text by hand: escapes such as {@code \\ud800}
     * reach the server as sent, where a Java string would be re-encoded (a lone surrogate as {@code ?}).
     */
    ToolResult callWithJsonArguments(Session session, Object id, String tool, String arguments) {
        String message = toolCall(id, tool, Map.of("ARGUMENTS", "")).encode()
                .replace("{\"ARGUMENTS\":\"\"}", arguments);
        return ToolResult.of(answer(send(mcp(session.key(), session.id())
                .POST(HttpRequest.BodyPublishers.ofString(message)).build()), id));
    }

    ToolResult call(Session session, Object id, String tool, Map<String, Object> arguments) {
        return ToolResult.of(answer(post(session.key(), session.id(), toolCall(id, tool, arguments)), id));
    }

    /** The SSE transport: GET /mcp/sse, whose first event names this stream's message endpoint. */
    SseSession openSse(String key) {
        HttpRequest get = HttpRequest.newBuilder(base.resolve("/mcp/sse")).header("Accept", "text/event-stream")
                .header("Authorization", "Bearer " + key).GET().build();
        HttpResponse<Stream<String>> response;
        try {
            response = HTTP.send(get, HttpResponse.BodyHandlers.ofLines());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        assertEquals(200, response.statusCode());
        Iterator<String> lines = response.body().iterator();
        String endpoint = nextData(lines, "endpoint").orElseThrow(() -> new AssertionError("no endpoint event"));
        return new SseSession(endpoint, key, lines, response.body());
    }

    /** The data of the next event of this kind on an SSE stream. */
    static Optional<String> nextData(Iterator<String> lines, String event) {
        boolean wanted = false;
        while (lines.hasNext()) {
            String line = lines.next();
            if (line.startsWith("event:")) {
                wanted = line.substring(6).strip().equals(event);
            } else if (wanted && line.startsWith("data:")) {
                return Optional.of(line.substring(5).strip());
            }
        }
        return Optional.empty();
    }

    record SseSession(String endpoint, String key, Iterator<String> lines, Stream<String> stream) implements AutoCloseable {
        @Override
        public void close() {
            stream.close();
        }
    }

    /** POSTs a message to an SSE session's endpoint with this key; the answer comes on the stream. */
    HttpResponse<String> postSse(String endpoint, String key, JsonObject message) {
        return send(HttpRequest.newBuilder(base.resolve(endpoint)).timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/json").header("Authorization", "Bearer " + key)
                .POST(HttpRequest.BodyPublishers.ofString(message.encode())).build());
    }

    /** The next message on the SSE stream that answers this request id. */
    static JsonObject sseAnswer(SseSession sse, Object id) {
        while (true) {
            JsonObject message = new JsonObject(nextData(sse.lines(), "message")
                    .orElseThrow(() -> new AssertionError("the stream ended before the answer to " + id)));
            if (id.equals(message.getValue("id")) && !message.containsKey("method")) {
                return message;
            }
        }
    }

    static HttpResponse<String> send(HttpRequest request) {
        try {
            return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
