package dev.nixexec.profile;

import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * nixo's spec: what a sandbox is made of. {@code packages} are top-level nixpkgs attributes
 * ({@code git}, {@code python3}); the environment always has bash and the everyday tools
 * (EnvironmentRequest), and a CA bundle when {@code network} is on. A spec names no language: a job adds its language's interpreter.
 */
public record Spec(List<String> packages, Map<String, String> env, boolean network, Set<WritablePath> writable) {

    /** A spec that does not say which paths are writable gets all of them. */
    public static final Set<WritablePath> ALL_WRITABLE = Set.copyOf(EnumSet.allOf(WritablePath.class));

    public Spec {
        packages = packages == null ? List.of() : List.copyOf(packages);
        env = env == null ? Map.of() : Map.copyOf(env);
        writable = writable == null ? ALL_WRITABLE : Set.copyOf(writable);
    }
}
