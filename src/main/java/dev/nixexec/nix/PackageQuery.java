package dev.nixexec.nix;

import dev.nixexec.refusal.FieldError;
import dev.nixexec.refusal.InvalidRequestException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A package search as asked over REST or MCP: the words (1 to {@value #MAX_TEXT} characters),
 * the package set a language names ({@code ""}: top-level packages, for a language without a set),
 * and how many answers (1 to {@value #MAX_LIMIT}, default {@value #DEFAULT_LIMIT}).
 */
public record PackageQuery(String text, Optional<String> packageSet, int limit) {

    public static final int MAX_TEXT = 100;
    public static final int MAX_LIMIT = 100;
    public static final int DEFAULT_LIMIT = 20;

    /** Read from the caller's words; {@code textField} names the words as the caller sent them. */
    public static PackageQuery of(String textField, String text, String language, Integer limit) {
        List<FieldError> errors = new ArrayList<>();
        if (text == null || text.isBlank()) {
            errors.add(new FieldError(textField, "what to search for is required"));
        } else if (text.strip().length() > MAX_TEXT || text.indexOf('\0') >= 0) {
            // PostgreSQL text cannot hold NUL
            errors.add(new FieldError(textField, "1 to " + MAX_TEXT + " characters, no NUL"));
        }
        Optional<Language> known = Language.byId(language);
        if (language != null && !language.isBlank() && known.isEmpty()) {
            errors.add(new FieldError("language", "unknown language '" + language + "'; one of "
                    + String.join(", ", Language.ids())));
        }
        int n = limit == null ? DEFAULT_LIMIT : limit;
        if (n < 1 || n > MAX_LIMIT) {
            errors.add(new FieldError("limit", "must be 1 to " + MAX_LIMIT));
        }
        if (!errors.isEmpty()) {
            throw new InvalidRequestException(errors, false);
        }
        return new PackageQuery(text.strip(), known.map(l -> l.packageSet().orElse("")), n);
    }
}
