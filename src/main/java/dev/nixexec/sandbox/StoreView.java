package dev.nixexec.sandbox;

import java.util.Locale;

/**
 * The setting {@code nixexec.sandbox.store-view}: what a run sees under /nix/store. {@code CLOSURE},
 * the default, is its environment's closure and nothing else, through a view {@link StoreViews}
 * prepares once per closure; {@code WHOLE_STORE} is the host's whole store (every environment of the
 * node). Both are one read-only bind: start-up does not grow with the closure (docs/benchmarks.md).
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
