package dev.nixexec.sandbox;

import java.nio.file.Path;
import java.util.List;

/** What one run's {@code /nix/store} is: the setting {@link StoreView} made concrete by {@link StoreViews}. */
public sealed interface StoreMount {

    /** The host's whole store, one read-only bind. */
    StoreMount WHOLE_STORE = new WholeStore();

    /** The bubblewrap options that mount it. */
    List<String> bwrapOptions();

    record WholeStore() implements StoreMount {
        @Override
        public List<String> bwrapOptions() {
            return List.of("--ro-bind", "/nix/store", "/nix/store");
        }
    }

    /** A prepared directory holding exactly the closure (see {@link StoreViews}), one read-only bind at /nix/store. */
    record ClosureView(Path dir) implements StoreMount {
        @Override
        public List<String> bwrapOptions() {
            return List.of("--ro-bind", dir.toString(), "/nix/store");
        }
    }

    /**
     * One read-only bind per closure path: as strict as a view, but bubblewrap's start-up grows with
     * the closure (it re-reads the mount table for every bind). Where a view cannot be made.
     */
    record EachPath(List<String> paths) implements StoreMount {
        public EachPath {
            paths = List.copyOf(paths);
        }

        @Override
        public List<String> bwrapOptions() {
            return paths.stream().flatMap(p -> java.util.stream.Stream.of("--ro-bind", p, p)).toList();
        }
    }
}
