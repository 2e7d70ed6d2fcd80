package dev.nixexec.refusal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What text a caller sends may hold. No text holds NUL (PostgreSQL cannot store it, C strings end
 * at it) or a lone UTF-16 surrogate (it has no UTF-8 form: it would be stored as {@code ?}, merging
 * two file names or changing code, or fail the run late). A label — a member called {@code name},
 * {@code description} or {@code agent}, which people read in tables and terminals — holds no
 * control character either (C0, DEL, C1: escape sequences, line breaks). Checked once over a whole
 * request body or tool call, so that no field is forgotten.
 */
public final class UntrustedText {

    /** Members that are labels wherever they appear: sessions, specs, profiles, keys, tenants, workspaces. */
    private static final Set<String> LABELS = Set.of("name", "description", "agent");
    /** A job's metadata is the caller's own free-form JSON: its members are no labels of ours. */
    private static final String FREE_FORM = "metadata";

    private UntrustedText() {
    }

    /** Why {@code text} is not text, if it is not. */
    public static Optional<String> problem(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == 0) {
                return Optional.of("contains a NUL character (U+0000)");
            }
            if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return Optional.of(String.format("contains a lone UTF-16 surrogate (U+%04X), which is no character", (int) c));
            }
        }
        return Optional.empty();
    }

    /** Why {@code text} is not a label, if it is not: not text, or a control character in it. */
    private static Optional<String> labelProblem(String text) {
        Optional<String> problem = problem(text);
        if (problem.isPresent()) {
            return problem;
        }
        return text.chars().filter(UntrustedText::isControl).mapToObj(c -> String.format(
                "contains a control character (U+%04X); a name, description or agent is one line of printable text", c))
                .findFirst();
    }

    /** C0, DEL and C1. */
    private static boolean isControl(int c) {
        return c < 0x20 || c >= 0x7f && c <= 0x9f;
    }

    /**
     * Every problem in a parsed JSON value (maps, lists, strings, as Jackson or Vert.x read them),
     * each named by its path as the REST API names fields: {@code env.A}, {@code files[0].path}. A
     * bad member name is reported under the object that holds it.
     */
    public static List<FieldError> problems(Object json) {
        List<FieldError> errors = new ArrayList<>();
        collect("", json, true, false, errors);
        return errors;
    }

    private static void collect(String path, Object value, boolean labels, boolean label, List<FieldError> errors) {
        switch (value) {
            case String text -> (label ? labelProblem(text) : problem(text))
                    .ifPresent(problem -> errors.add(new FieldError(path.isEmpty() ? "body" : path, problem)));
            case Map<?, ?> map -> map.forEach((key, member) -> {
                String name = String.valueOf(key);
                Optional<String> bad = problem(name);
                if (bad.isPresent()) {
                    errors.add(new FieldError(path.isEmpty() ? "body" : path, "a member name " + bad.get()));
                } else {
                    boolean inside = labels && !name.equals(FREE_FORM);
                    collect((path.isEmpty() ? "" : path + ".") + printable(name), member, inside,
                            labels && LABELS.contains(name), errors);
                }
            });
            case List<?> list -> {
                for (int i = 0; i < list.size(); i++) {
                    collect(path + "[" + i + "]", list.get(i), labels, false, errors);
                }
            }
            case null, default -> {
            }
        }
    }

    /** A member name as a field path shows it: control characters as {@code ?}, so a refusal echoes none. */
    private static String printable(String name) {
        StringBuilder shown = new StringBuilder(name.length());
        name.codePoints().forEach(c -> shown.appendCodePoint(isControl(c) ? '?' : c));
        return shown.toString();
    }
}
