package dev.nixexec.sandbox;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/** For the benchmark (dev.nixexec.bench): a view built and removed outside the service's views directory. */
public final class StoreViewTiming {

    private StoreViewTiming() {
    }

    /** Builds a view of the closure at {@code view}, which must not exist, on the store's filesystem. */
    public static StoreMount build(Path view, List<String> closure) throws IOException {
        StoreViews.build(view, closure);
        return new StoreMount.ClosureView(view);
    }

    public static void remove(Path view) throws IOException {
        StoreViews.deleteTree(view);
    }
}
