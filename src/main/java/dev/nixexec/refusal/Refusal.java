package dev.nixexec.refusal;

import java.time.Duration;
import java.util.Optional;
import java.util.UUID;

/** A refusal with an HTTP-like status: the REST and MCP adapters render it, each in its own way. */
public class Refusal extends RuntimeException {

    /** The kinds of refusal, each with the status the contract gives it. */
    public enum Kind {
        UNAUTHENTICATED(401, "Unauthorized"), FORBIDDEN(403, "Forbidden"), NOT_FOUND(404, "Not Found"),
        CONFLICT(409, "Conflict"), TOO_MANY(429, "Too Many Requests"), UNAVAILABLE(503, "Service Unavailable");

        public final int status;
        /** The status's reason phrase: a problem's title. */
        public final String title;

        Kind(int status, String title) {
            this.status = status;
            this.title = title;
        }
    }

    private final Kind kind;
    private final Duration retryAfter;

    public Refusal(Kind kind, String message) {
        this(kind, message, null);
    }

    /** A refusal that passes: the caller may try again after {@code retryAfter} (REST: Retry-After). */
    public Refusal(Kind kind, String message, Duration retryAfter) {
        super(message);
        this.kind = kind;
        this.retryAfter = retryAfter;
    }

    public Kind kind() {
        return kind;
    }

    public Optional<Duration> retryAfter() {
        return Optional.ofNullable(retryAfter);
    }

    public static Refusal notFound(Object id) {
        return new Refusal(Kind.NOT_FOUND, "no job " + id);
    }

    /** An id in a request's path: a UUID, and anything else is as unknown as an id no row has (404). */
    public static UUID uuidOr404(String id, String notFound) {
        try {
            return UUID.fromString(id);
        } catch (IllegalArgumentException e) {
            throw new Refusal(Kind.NOT_FOUND, notFound);
        }
    }
}
