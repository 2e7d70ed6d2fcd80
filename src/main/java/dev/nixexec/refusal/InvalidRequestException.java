package dev.nixexec.refusal;

import java.util.List;
import java.util.stream.Collectors;

/** The request was refused before anything ran or was stored. */
public class InvalidRequestException extends RuntimeException {

    private final List<FieldError> errors;
    private final boolean tooLarge;

    public InvalidRequestException(List<FieldError> errors, boolean tooLarge) {
        this(errors, tooLarge, errors.stream().map(e -> e.field() + ": " + e.message()).collect(Collectors.joining("; ")));
    }

    /** With a summary of its own ({@code detail} over REST) rather than the problems joined. */
    public InvalidRequestException(List<FieldError> errors, boolean tooLarge, String summary) {
        super(summary);
        this.errors = List.copyOf(errors);
        this.tooLarge = tooLarge;
    }

    public List<FieldError> errors() {
        return errors;
    }

    /** True when the refusal is about size (HTTP 413) rather than content (400). */
    public boolean tooLarge() {
        return tooLarge;
    }
}
