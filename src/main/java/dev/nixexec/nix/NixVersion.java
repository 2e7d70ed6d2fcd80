package dev.nixexec.nix;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Nix version, compared as {@code builtins.compareVersions} compares the ones nixpkgs checks
 * (numeric parts, left to right; a missing part is lower): {@code 2.8.0 < 2.18}.
 */
public record NixVersion(String text, List<Integer> parts) implements Comparable<NixVersion> {

    private static final Pattern VERSION = Pattern.compile("(\\d+(?:\\.\\d+)*)");

    /** The first version in {@code text}: {@code nix (Nix) 2.8.0} is 2.8.0, {@code "2.18"} is 2.18. */
    public static Optional<NixVersion> parse(String text) {
        Matcher m = VERSION.matcher(text == null ? "" : text);
        if (!m.find()) {
            return Optional.empty();
        }
        List<Integer> parts = new ArrayList<>();
        for (String part : m.group(1).split("\\.")) {
            try {
                parts.add(Integer.parseInt(part));
            } catch (NumberFormatException tooLong) {
                return Optional.empty();
            }
        }
        return Optional.of(new NixVersion(m.group(1), List.copyOf(parts)));
    }

    /**
     * The minimum nixpkgs declares in {@code lib/minver.nix}: a Nix file whose value is a version
     * string, {@code "2.18"}, after comments. Read as text, never evaluated.
     */
    public static Optional<NixVersion> ofMinver(String nixSource) {
        StringBuilder code = new StringBuilder();
        for (String line : nixSource.split("\n")) {
            int comment = line.indexOf('#');
            code.append(comment < 0 ? line : line.substring(0, comment)).append('\n');
        }
        Matcher quoted = Pattern.compile("\"([^\"]*)\"").matcher(code);
        return quoted.find() ? parse(quoted.group(1)) : Optional.empty();
    }

    @Override
    public int compareTo(NixVersion other) {
        for (int i = 0; i < Math.max(parts.size(), other.parts.size()); i++) {
            int mine = i < parts.size() ? parts.get(i) : -1;
            int theirs = i < other.parts.size() ? other.parts.get(i) : -1;
            if (mine != theirs) {
                return Integer.compare(mine, theirs);
            }
        }
        return 0;
    }

    @Override
    public String toString() {
        return text;
    }
}
