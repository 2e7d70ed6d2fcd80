package dev.nixexec.profile;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/** The sandbox paths a session, profile or spec may make writable; every other path is read-only. */
public enum WritablePath {
    WORKSPACE("/workspace"),
    HOME("/home/sandbox"),
    CACHE("/cache"),
    TMP("/tmp");

    private final String path;

    WritablePath(String path) {
        this.path = path;
    }

    public String path() {
        return path;
    }

    public static Optional<WritablePath> of(String path) {
        return Arrays.stream(values()).filter(w -> w.path.equals(path)).findFirst();
    }

    /** Every path that may be made writable, in this order. */
    public static List<String> paths() {
        return Arrays.stream(values()).map(WritablePath::path).toList();
    }
}
