package dev.nixexec.sandbox;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;

/**
 * Directories a run keeps beyond itself (a session's): {@code root} holds {@code workspace},
 * {@code home} and {@code cache}, bind-mounted at {@code /workspace}, {@code /home/sandbox} and
 * {@code /cache}. Only the sandbox paths in {@code writable} can be written; the others (and
 * {@code /tmp}, a fresh tmpfs either way, when it is not among them) are mounted read-only.
 */
public record PersistentPaths(Path root, Set<String> writable) {

    public static final String HOME = "/home/sandbox";
    public static final String CACHE = "/cache";
    public static final String TMP = "/tmp";

    /** A persistent sandbox path and the directory under {@link #root} that holds it. */
    public record Mount(String directory, String target) {
    }

    /** Every persistent path, in mount order. */
    public static final List<Mount> MOUNTS = List.of(new Mount("workspace", BwrapArguments.WORKSPACE),
            new Mount("home", HOME), new Mount("cache", CACHE));

    public PersistentPaths {
        writable = Set.copyOf(writable);
    }

    public boolean writable(String target) {
        return writable.contains(target);
    }
}
