package dev.nixexec.workspace;

import dev.nixexec.refusal.FieldError;
import dev.nixexec.refusal.InvalidRequestException;
import java.util.Base64;
import java.util.List;
import java.util.regex.Pattern;

/**
 * File content sent as base64 (REST {@code files}, MCP {@code write_workspace_file}), decoded
 * strictly: a lenient decoder skips what is not base64, so {@code "QUJD!!"} would become
 * {@code ABC} and {@code "!!!"} an empty file. Line breaks and spaces, as wrapping encoders
 * put them, are the only characters left out.
 */
public final class Base64Content {

    private static final Pattern WHITESPACE = Pattern.compile("[ \\t\\r\\n]+");

    private Base64Content() {
    }

    /** The bytes, or a 400 naming {@code field}. */
    public static byte[] decode(String field, String text) {
        try {
            return Base64.getDecoder().decode(WHITESPACE.matcher(text == null ? "" : text).replaceAll(""));
        } catch (IllegalArgumentException e) {
            throw new InvalidRequestException(List.of(new FieldError(field,
                    "not valid base64 (A-Z, a-z, 0-9, +, / and = padding; line breaks allowed)")), false);
        }
    }
}
