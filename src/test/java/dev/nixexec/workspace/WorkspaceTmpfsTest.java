package dev.nixexec.workspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.nixexec.config.StatePaths;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Workspace mounts are made ahead of runs and detached (and replaced) after them, and none outlives the service. */
@QuarkusTest
class WorkspaceTmpfsTest {

    private static final long SIZE = 1 << 20;

    @Inject
    StatePaths paths;

    @Test
    void mountsAheadDetachesAfterAndLeavesNothingWhenStopped() throws Exception {
        WorkspaceTmpfs tmpfs = new WorkspaceTmpfs(paths);
        assumeTrue(tmpfs.available(), "workspace tmpfs needs a root service on Linux");
        Set<Path> before = mounts();

        Path first = tmpfs.take(SIZE);
        assertTrue(mounts().contains(first));
        eventually(() -> newMounts(before).size() == 1 + 2, "two more mounted ahead: " + newMounts(before));

        Path second = tmpfs.take(SIZE);
        assertNotEquals(first, second);
        assertTrue(mounts().contains(second));
        try (var entries = Files.list(second)) {
            assertEquals(0, entries.count(), "a mount made ahead is fresh");
        }
        Files.writeString(first.resolve("used.txt"), "x");

        tmpfs.release(first);
        eventually(() -> !mounts().contains(first) && !Files.exists(first), "a released mount is detached and deleted");
        eventually(() -> tmpfs.readyAhead().size() == 2, "after a run, another is mounted ahead");

        tmpfs.stop();
        assertEquals(before, mounts(), "everything this service mounted is detached when it stops");
        assertFalse(Files.exists(second));
    }

    private Set<Path> newMounts(Set<Path> before) {
        Set<Path> now = new HashSet<>(mounts());
        now.removeAll(before);
        return now;
    }

    private Set<Path> mounts() {
        try {
            String prefix = paths.jobsDir().resolve("ws-").toString();
            return Files.readAllLines(Path.of("/proc/self/mountinfo")).stream().map(line -> line.split(" ")[4])
                    .filter(p -> p.startsWith(prefix)).map(Path::of).collect(Collectors.toSet());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void eventually(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, what);
            Thread.sleep(20);
        }
    }
}
