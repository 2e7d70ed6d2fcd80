package dev.nixexec.workspace;

import dev.nixexec.refusal.FieldError;
import dev.nixexec.refusal.InvalidRequestException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;

/**
 * A file's path inside a workspace, relative and confined: segments separated by single slashes,
 * none empty, {@code .} or {@code ..}, no leading slash, no NUL, backslash or control character.
 * Whatever a caller or a job sends becomes one of these or is refused, so a stored path can never
 * name anything outside the workspace when it is materialised.
 */
public record WorkspacePath(String value) {

    static final int MAX_BYTES = 1024;
    static final int MAX_SEGMENT_BYTES = 255;

    public WorkspacePath {
        Optional<String> problem = problem(value);
        if (problem.isPresent()) {
            throw new IllegalArgumentException(problem.get());
        }
    }

    /** The path, or a 400 naming {@code field}. */
    public static WorkspacePath parse(String field, String raw) {
        Optional<String> problem = problem(raw);
        if (problem.isPresent()) {
            throw new InvalidRequestException(List.of(new FieldError(field, problem.get())), false);
        }
        return new WorkspacePath(raw);
    }

    /** Why {@code raw} is not a workspace path, if it is not. */
    public static Optional<String> problem(String raw) {
        if (raw == null || raw.isEmpty()) {
            return Optional.of("a path is required");
        }
        if (raw.getBytes(StandardCharsets.UTF_8).length > MAX_BYTES) {
            return Optional.of("path is longer than " + MAX_BYTES + " bytes");
        }
        if (raw.startsWith("/")) {
            return Optional.of("'" + raw + "' is absolute; paths are relative to /workspace");
        }
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c < 0x20 || c == 0x7f || c == '\\') {
                return Optional.of("path contains a control character or backslash");
            }
        }
        for (String segment : raw.split("/", -1)) {
            if (segment.isEmpty() || segment.equals(".") || segment.equals("..")) {
                return Optional.of("'" + raw + "' has an empty, '.' or '..' segment");
            }
            if (segment.getBytes(StandardCharsets.UTF_8).length > MAX_SEGMENT_BYTES) {
                return Optional.of("a segment of the path is longer than " + MAX_SEGMENT_BYTES + " bytes");
            }
        }
        return Optional.empty();
    }

    /** True when this path is {@code root} or lies under it. */
    public boolean within(WorkspacePath root) {
        return value.equals(root.value) || value.startsWith(root.value + "/");
    }

    @Override
    public String toString() {
        return value;
    }
}
