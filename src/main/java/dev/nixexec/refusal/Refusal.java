package dev.nixexec.refusal;

import java.time.Duration;
import java.util.Optional;

/** A refusal with an HTTP-like status: the REST and MCP adapters render it, each in its own way. */
public class Refusal extends RuntimeException {

    /** The kinds of refusal, each with the status the contract gives it. */
    public enum Kind {
        UNAUTHENTICATED(401), FORBIDDEN(403), NOT_FOUND(404), CONFLICT(409), TOO_MANY(429), UNAVAILABLE(503);

        public final int status;

        Kind(int status) {
            this.status = status;
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
}
