package dev.nixexec.api;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.io.JsonEOFException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.nixexec.refusal.FieldError;
import dev.nixexec.refusal.InvalidRequestException;
import dev.nixexec.refusal.JsonShape;
import dev.nixexec.refusal.UntrustedText;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.ext.Provider;
import jakarta.ws.rs.ext.ReaderInterceptor;
import jakarta.ws.rs.ext.ReaderInterceptorContext;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.List;

/**
 * Every JSON body, checked before any resource reads a field of it, every problem at once:
 * <ul>
 * <li>JSON that does not parse, or with anything after its one value, is refused saying where
 * (line and column);</li>
 * <li>every string ({@link UntrustedText}): NUL and lone surrogates anywhere, control characters in
 * labels, each naming the field;</li>
 * <li>its shape against the type the resource takes ({@link JsonShape}): unknown members and values of
 * the wrong type, each naming its path.</li>
 * </ul>
 * A job submission's shape problems are not refused here but handed to the resource with what can
 * be read ({@link SubmitShape}), so that its bad values ({@code language}, {@code timeout}) are
 * listed with them. Any other JSON failure is the server's own.
 */
@Provider
public class BodyText implements ReaderInterceptor {

    private final ObjectMapper json;
    private final JsonShape shape;
    private final SubmitShape submitShape;

    public BodyText(ObjectMapper json, SubmitShape submitShape) {
        this.json = json;
        this.shape = new JsonShape(json);
        this.submitShape = submitShape;
    }

    @Override
    public Object aroundReadFrom(ReaderInterceptorContext context) throws IOException {
        if (!isJson(context.getMediaType())) {
            return proceed(context);
        }
        byte[] body = context.getInputStream().readAllBytes();
        context.setInputStream(new ByteArrayInputStream(body));
        if (body.length == 0) {
            return proceed(context);
        }
        JsonNode tree = parse(body);
        if (tree == null) {
            // only white space: read as no body, which each resource refuses in its own words
            context.setInputStream(new ByteArrayInputStream(new byte[0]));
            return proceed(context);
        }
        List<FieldError> untrusted = UntrustedText.problems(json.treeToValue(tree, Object.class));
        if (!untrusted.isEmpty()) {
            throw new InvalidRequestException(untrusted, false);
        }
        List<FieldError> problems = shape.problems(tree, json.constructType(context.getGenericType()));
        if (!problems.isEmpty()) {
            if (context.getType() != SubmitBody.class || !tree.isObject()) {
                throw JsonShape.refusal(problems);
            }
            submitShape.found(problems);
            context.setInputStream(new ByteArrayInputStream(json.writeValueAsBytes(JsonShape.without(tree, problems))));
        }
        return proceed(context);
    }

    private static Object proceed(ReaderInterceptorContext context) throws IOException {
        try {
            return context.proceed();
        } catch (JsonProcessingException e) {
            throw new UnreadableBody(e);
        }
    }

    /** The body's one JSON value; refused, saying where, when it is not JSON or more follows it. */
    private JsonNode parse(byte[] body) throws IOException {
        try (JsonParser parser = json.createParser(body)) {
            JsonNode tree;
            try {
                tree = json.reader().without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).readTree(parser);
            } catch (JsonProcessingException e) {
                throw notJson(e);
            }
            JsonLocation end = parser.currentLocation();
            long line = end.getLineNr();
            long column = end.getColumnNr();
            for (long i = end.getByteOffset(); i < body.length; i++) {
                byte b = body[(int) i];
                if (b == '\n') {
                    line++;
                    column = 1;
                } else if (b == ' ' || b == '\t' || b == '\r') {
                    column++;
                } else {
                    throw refusal("body", "more follows the JSON value (line " + line + ", column " + column
                            + "); a body is one JSON value", "the request body has data after its JSON value");
                }
            }
            return tree;
        }
    }

    private static InvalidRequestException notJson(JsonProcessingException e) {
        String message = e.getOriginalMessage() == null ? "" : e.getOriginalMessage();
        if (message.startsWith("Duplicate field ")) {
            String name = message.substring("Duplicate field ".length()).replace("'", "");
            return refusal(name, "named twice", "duplicate field '" + name + "'");
        }
        String what = e instanceof JsonEOFException ? "the JSON ends before its value is complete"
                : "not valid JSON";
        return refusal("body", what + where(e.getLocation()), "the request body is not valid JSON" + where(e.getLocation()));
    }

    private static String where(JsonLocation at) {
        return at == null || at.getLineNr() < 1 ? "" : " (line " + at.getLineNr() + ", column " + at.getColumnNr() + ")";
    }

    /** One problem, whose document's {@code detail} reads as it did before {@code errors[]} listed every problem. */
    private static InvalidRequestException refusal(String field, String message, String detail) {
        return new InvalidRequestException(List.of(new FieldError(field, message)), false, detail);
    }

    private static boolean isJson(MediaType type) {
        return type != null && (type.getSubtype().equals("json") || type.getSubtype().endsWith("+json"));
    }

    /** A request body Jackson could not read into what the resource takes: the caller's error (400). */
    static final class UnreadableBody extends RuntimeException {

        UnreadableBody(JsonProcessingException cause) {
            super(cause.getOriginalMessage(), cause, false, false);
        }

        JsonProcessingException reading() {
            return (JsonProcessingException) getCause();
        }
    }
}
