package dev.nixexec.sandbox;

import java.util.Locale;

/**
 * How the environment's store closure is made visible. {@code WHOLE_STORE} is one read-only bind of
 * /nix/store: start-up does not grow with the closure (measured in docs/benchmarks.md). {@code
 * CLOSURE} binds each closure path: nothing else of the store is visible, at ~0.6 ms per path.
 */
public enum StoreView {
    WHOLE_STORE, CLOSURE;

    public static StoreView parse(String value) {
        return switch (value.toLowerCase(Locale.ROOT)) {
            case "whole-store" -> WHOLE_STORE;
            case "closure" -> CLOSURE;
            default -> throw new IllegalArgumentException("nixexec.sandbox.store-view must be whole-store or closure, not " + value);
        };
    }
}
