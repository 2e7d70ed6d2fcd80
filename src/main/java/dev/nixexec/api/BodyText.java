package dev.nixexec.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.nixexec.refusal.FieldError;
import dev.nixexec.refusal.InvalidRequestException;
import dev.nixexec.refusal.UntrustedText;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.ext.Provider;
import jakarta.ws.rs.ext.ReaderInterceptor;
import jakarta.ws.rs.ext.ReaderInterceptorContext;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.List;

/**
 * Every string of every JSON body, checked once before any resource reads a field of it
 * ({@link UntrustedText}): NUL and lone surrogates anywhere, control characters in labels, each a
 * 400 naming the field. A body that does not parse is left to the body reader, whose failure is
 * then the caller's ({@link UnreadableBody}); any other JSON failure is the server's own.
 */
@Provider
public class BodyText implements ReaderInterceptor {

    private final ObjectMapper json;

    public BodyText(ObjectMapper json) {
        this.json = json;
    }

    @Override
    public Object aroundReadFrom(ReaderInterceptorContext context) throws IOException {
        if (isJson(context.getMediaType())) {
            byte[] body = context.getInputStream().readAllBytes();
            context.setInputStream(new ByteArrayInputStream(body));
            List<FieldError> errors = problems(body);
            if (!errors.isEmpty()) {
                throw new InvalidRequestException(errors, false);
            }
        }
        try {
            return context.proceed();
        } catch (JsonProcessingException e) {
            throw new UnreadableBody(e);
        }
    }

    private List<FieldError> problems(byte[] body) {
        Object value;
        try {
            value = body.length == 0 ? null : json.readValue(body, Object.class);
        } catch (IOException unreadable) {
            return List.of(); // the body reader answers it, naming what it expected
        }
        return UntrustedText.problems(value);
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
