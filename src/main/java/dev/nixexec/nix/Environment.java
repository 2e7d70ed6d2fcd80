package dev.nixexec.nix;

import java.util.List;

/** A built environment: its store path, the closure that must be visible to run it, and how it was had. */
public record Environment(String cacheKey, String storePath, List<String> closure, String nixpkgsRevision,
        boolean cacheHit, long buildMs) {

    public Environment {
        closure = List.copyOf(closure);
    }

    Environment asHit() {
        return new Environment(cacheKey, storePath, closure, nixpkgsRevision, true, 0);
    }
}
