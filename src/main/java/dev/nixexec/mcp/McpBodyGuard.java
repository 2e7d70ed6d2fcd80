package dev.nixexec.mcp;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.io.IOException;
import java.util.List;

/**
 * Answers JSON-RPC bodies the MCP extension (1.13) cannot take with a JSON-RPC error instead of its
 * 500 or a dropped connection: a body that is not JSON, too deeply nested, not an object, or sent as
 * a form (whose decoder fails on long fields). A batch (an array) is refused too: the extension runs
 * every call of one for a single request of the key's rate, and MCP 2025-06-18 dropped batching
 * anyway. Both transports' POSTs are guarded: {@code /mcp} and the SSE transport's
 * {@code /mcp/messages/<id>}. Everything else passes on untouched, after authentication (the
 * security handlers run before routes).
 */
@ApplicationScoped
public class McpBodyGuard {

    static final int MAX_DEPTH = 64;
    /** Where JSON-RPC messages are POSTed: Streamable HTTP's endpoint and the SSE transport's. */
    static final List<String> PATHS = List.of("/mcp", "/mcp/messages/*");
    private static final long MAX_BODY = 10L << 20;
    private final JsonFactory json = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_DEPTH).build()).build();

    void install(@Observes Router router) {
        for (String path : PATHS) {
            router.post(path).order(-10).handler(this::contentType);
            router.post(path).order(-9).handler(BodyHandler.create(false).setBodyLimit(MAX_BODY));
            router.post(path).order(-8).handler(this::shape);
        }
    }

    /** A form body would go through the form decoder, which fails (500) on long fields; JSON-RPC is never a form. */
    private void contentType(RoutingContext ctx) {
        String type = ctx.request().getHeader("Content-Type");
        String lower = type == null ? "" : type.toLowerCase(java.util.Locale.ROOT);
        if (lower.contains("form-urlencoded") || lower.contains("multipart/")) {
            refuse(ctx, 415, -32600, "Content-Type must be application/json");
            return;
        }
        ctx.next();
    }

    private void shape(RoutingContext ctx) {
        String problem = problem(ctx.body().buffer() == null ? new byte[0] : ctx.body().buffer().getBytes());
        if (problem != null) {
            refuse(ctx, 400, problem.startsWith("Parse") ? -32700 : -32600, problem);
            return;
        }
        ctx.next();
    }

    /** Null when the body is one JSON object, else what is wrong with it. */
    String problem(byte[] body) {
        try (JsonParser p = json.createParser(body)) {
            JsonToken first = p.nextToken();
            if (first == JsonToken.START_OBJECT) {
                p.skipChildren();
            } else if (first == JsonToken.START_ARRAY) {
                return "Invalid Request: batches are not supported (MCP 2025-06-18 removed them); "
                        + "send one JSON-RPC message per request";
            } else {
                return "Invalid Request: a JSON-RPC message is a JSON object";
            }
            if (p.nextToken() != null) {
                return "Parse error: more than one JSON value";
            }
            return null;
        } catch (IOException e) {
            return "Parse error: not JSON, or nested deeper than " + MAX_DEPTH;
        }
    }

    private static void refuse(RoutingContext ctx, int status, int code, String message) {
        JsonObject error = new JsonObject().put("jsonrpc", "2.0").putNull("id")
                .put("error", new JsonObject().put("code", code).put("message", message));
        ctx.response().setStatusCode(status).putHeader("Content-Type", "application/json").end(error.toBuffer());
    }
}
