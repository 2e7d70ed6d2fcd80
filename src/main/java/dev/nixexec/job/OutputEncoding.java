package dev.nixexec.job;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Optional;

/**
 * How a job's {@code stdout} and {@code stderr} appear in its JSON: as text ({@code utf-8}: bytes
 * that are not UTF-8, and NUL, show as U+FFFD) or as base64 of the exact bytes kept.
 */
public enum OutputEncoding {
    UTF_8("utf-8"),
    BASE64("base64");

    private final String id;

    OutputEncoding(String id) {
        this.id = id;
    }

    /** The wire and stored value. */
    @JsonValue
    public String id() {
        return id;
    }

    public static Optional<OutputEncoding> byId(String id) {
        for (OutputEncoding encoding : values()) {
            if (encoding.id.equals(id)) {
                return Optional.of(encoding);
            }
        }
        return Optional.empty();
    }
}
