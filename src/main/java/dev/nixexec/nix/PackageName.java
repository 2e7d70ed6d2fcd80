package dev.nixexec.nix;

import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A nixpkgs attribute path such as {@code python3Packages.numpy}. The grammar is deliberately
 * narrower than Nix's: plain identifiers joined by dots, so a name can never be an option, a path,
 * a URL or an expression.
 */
public record PackageName(String value, List<String> segments) {

    public static final int MAX_LENGTH = 200;
    public static final int MAX_SEGMENTS = 6;
    private static final Pattern SEGMENT = Pattern.compile("[A-Za-z_][A-Za-z0-9_-]{0,99}");

    public PackageName {
        segments = List.copyOf(segments);
    }

    /** Parses a name or throws {@link IllegalArgumentException} with a reason fit for the user. */
    public static PackageName parse(String raw) {
        if (raw == null || raw.isEmpty()) {
            throw new IllegalArgumentException("package name is empty");
        }
        if (raw.length() > MAX_LENGTH) {
            throw new IllegalArgumentException("package name is longer than " + MAX_LENGTH + " characters");
        }
        List<String> segments = Arrays.asList(raw.split("\\.", -1));
        if (segments.size() > MAX_SEGMENTS) {
            throw new IllegalArgumentException("package name has more than " + MAX_SEGMENTS + " parts");
        }
        for (String segment : segments) {
            if (!SEGMENT.matcher(segment).matches()) {
                throw new IllegalArgumentException(
                        "package name must be a nixpkgs attribute path like python3Packages.numpy "
                                + "(letters, digits, '_' and '-', parts separated by '.', each starting with a letter or '_')");
            }
        }
        return new PackageName(raw, segments);
    }

    /** Segments after the first (the path inside a package set). */
    public List<String> tail() {
        return segments.subList(1, segments.size());
    }

    @Override
    public String toString() {
        return value;
    }
}
