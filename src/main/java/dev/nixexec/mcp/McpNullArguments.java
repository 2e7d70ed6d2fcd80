package dev.nixexec.mcp;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Leaves the {@code null} members of a {@code tools/call}'s {@code arguments} out, as not given
 * (many agent frameworks send {@code null} for the optional arguments they do not set), and makes
 * missing {@code arguments} {@code {}}: the extension (1.13) builds an input guardrail's context
 * with {@code Map.copyOf}, which takes no nulls, and answered either with the JSON-RPC error
 * -32603 before {@link ArgumentShapes} ran. A required argument left out so is refused in one
 * line. On both transports' POSTs (the stdio command relays to {@code /mcp}), after
 * {@link McpBodyGuard} has let one JSON object through and before the extension reads the body.
 */
@ApplicationScoped
public class McpNullArguments {

    // every non-ASCII character escaped, so that what was sent (a lone surrogate too) reaches the tool as it was
    private final JsonFactory json = JsonFactory.builder().enable(JsonWriteFeature.ESCAPE_NON_ASCII).build();

    void install(@Observes Router router) {
        for (String path : McpBodyGuard.PATHS) {
            router.post(path).order(-7).handler(this::leaveOutNulls);
        }
    }

    private void leaveOutNulls(RoutingContext ctx) {
        JsonObject message;
        try {
            message = ctx.body().asJsonObject();
        } catch (DecodeException e) {
            ctx.next(); // what Vert.x cannot decode (a member named twice) the extension refuses itself, as before
            return;
        }
        if ("tools/call".equals(message.getValue("method")) && message.getValue("params") instanceof JsonObject params
                && needsRewrite(params.getValue("arguments"))) {
            ctx.setBody(Buffer.buffer(withoutNullArguments(ctx.body().buffer().getBytes())));
        }
        ctx.next();
    }

    private static boolean needsRewrite(Object arguments) {
        return arguments == null || arguments instanceof JsonObject given && given.getMap().containsValue(null);
    }

    /** The message token for token, but for the null members of {@code params.arguments}; {@code {}} for none. */
    byte[] withoutNullArguments(byte[] body) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(body.length);
        try (JsonParser in = json.createParser(body); JsonGenerator gen = json.createGenerator(out)) {
            boolean sawArguments = false;
            for (JsonToken token = in.nextToken(); token != null; token = in.nextToken()) {
                JsonStreamContext at = in.getParsingContext();
                boolean argumentsItself = token == JsonToken.FIELD_NAME && isParams(at) && in.currentName().equals("arguments");
                if (argumentsItself || token == JsonToken.FIELD_NAME && isArguments(at)) {
                    String name = in.currentName();
                    sawArguments |= argumentsItself;
                    if (in.nextToken() == JsonToken.VALUE_NULL && !argumentsItself) {
                        continue;
                    }
                    gen.writeFieldName(name);
                    if (in.currentToken() == JsonToken.VALUE_NULL) {
                        gen.writeStartObject();
                        gen.writeEndObject();
                    } else {
                        gen.copyCurrentEventExact(in);
                    }
                    continue;
                }
                // params just closed (the context is its parent's again) without arguments
                if (token == JsonToken.END_OBJECT && !sawArguments && at.getNestingDepth() == 1
                        && "params".equals(at.getCurrentName())) {
                    gen.writeObjectFieldStart("arguments");
                    gen.writeEndObject();
                }
                gen.copyCurrentEventExact(in);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("re-reading a message McpBodyGuard has read", e);
        }
        return out.toByteArray();
    }

    /** Inside the message's params object. */
    private static boolean isParams(JsonStreamContext at) {
        return at.inObject() && at.getNestingDepth() == 2 && "params".equals(at.getParent().getCurrentName());
    }

    /** Inside the params' arguments object. */
    private static boolean isArguments(JsonStreamContext at) {
        return at.inObject() && at.getNestingDepth() == 3 && "arguments".equals(at.getParent().getCurrentName())
                && isParams(at.getParent());
    }
}
