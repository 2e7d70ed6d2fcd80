package dev.nixexec.workspace;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.nixexec.config.StatePaths;
import dev.nixexec.testing.NixSpy;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Workspace mounts are made ahead of runs; after a run its directory goes and the mount is used
 * again only if nothing at all of the run is left in it; none outlives the service.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
class WorkspaceTmpfsTest {

    private static final long SIZE = 1 << 20;

    @Inject
    StatePaths paths;

    @Test
    void mountsAheadReusesOnlyEmptyMountsAndLeavesNothingWhenStopped() throws Exception {
        WorkspaceTmpfs tmpfs = new WorkspaceTmpfs(paths);
        // Only a root service on Linux mounts workspace tmpfs (without, there is nothing to test here);
        // .ci/run runs as root, so CI always runs this.
        assumeTrue(tmpfs.available(), "workspace tmpfs needs a root service on Linux");
        Set<Path> before = mounts();
        try {
            Path first = tmpfs.take(SIZE);
            assertTrue(mounts().contains(first.getParent()), "a run's directory is alone on a tmpfs");
            eventually(() -> tmpfs.readyAhead().size() == 2, "two more mounted ahead: " + newMounts(before));
            assertTrue(mounts().containsAll(tmpfs.readyAhead()));

            Path second = tmpfs.take(SIZE);
            assertNotEquals(first.getParent(), second.getParent());
            assertEquals(1, tmpfs.readyAhead().size(), "taken from those waiting, so one has room again");
            try (var entries = Files.list(second)) {
                assertEquals(0, entries.count(), "a run's directory starts empty");
            }

            // a run that leaves files: its directory goes, the mount waits for the next run
            Files.writeString(first.resolve("used.txt"), "x");
            tmpfs.release(first);
            eventually(() -> !Files.exists(first) && tmpfs.readyAhead().contains(first.getParent()),
                    "an emptied mount is used again");
            assertTrue(mounts().contains(first.getParent()));

            // a run whose deleted file is still held open: the mount is not used again
            Path held = second.resolve("held.bin");
            try (FileChannel open = FileChannel.open(held, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                open.write(ByteBuffer.wrap(new byte[64 * 1024]));
                Files.delete(held);
                tmpfs.release(second);
                eventually(() -> !mounts().contains(second.getParent()), "a mount with blocks still in use is detached");
                assertFalse(tmpfs.readyAhead().contains(second.getParent()));
            }

            eventually(() -> tmpfs.readyAhead().size() == 2, "another is mounted in its place");
            Set<Path> ours = new HashSet<>(tmpfs.readyAhead());
            ours.add(first.getParent());
            tmpfs.stop();
            // (only this instance's: the service's own may be busy with an earlier test's runs)
            assertTrue(java.util.Collections.disjoint(ours, mounts()), "everything this service mounted is detached when it stops");
            assertFalse(Files.exists(first.getParent()));
        } finally {
            tmpfs.stop(); // also when an assertion failed: a test leaves no mount behind
        }
    }

    /**
     * A crashed service's mounts (its lock file there, held by nobody) are detached when a service
     * starts; a live service's (its lock held by another process) are left alone.
     */
    @Test
    void mountsOfAServiceThatIsGoneAreDetachedAtStartUp() throws Exception {
        WorkspaceTmpfs tmpfs = new WorkspaceTmpfs(paths);
        // As above: only a root service on Linux mounts workspace tmpfs; .ci/run runs as root.
        assumeTrue(tmpfs.available(), "workspace tmpfs needs a root service on Linux");
        Files.createDirectories(paths.jobsDir());
        String gone = UUID.randomUUID().toString();
        Path goneLock = Files.createFile(paths.jobsDir().resolve("ws-" + gone + ".lock"));
        Path goneMount = mounted("ws-" + gone + "-" + UUID.randomUUID());
        String alive = UUID.randomUUID().toString();
        Path aliveLock = Files.createFile(paths.jobsDir().resolve("ws-" + alive + ".lock"));
        Path aliveMount = mounted("ws-" + alive + "-" + UUID.randomUUID());
        // another service's lock, as the JVM takes it (fcntl), held by another process
        Process holder = new ProcessBuilder("python3", "-c", "import fcntl, sys, time\n"
                + "f = open(sys.argv[1], 'a')\nfcntl.lockf(f, fcntl.LOCK_EX)\nprint('held', flush=True)\ntime.sleep(120)",
                aliveLock.toString()).start();
        try {
            assertEquals("held", new java.io.BufferedReader(new java.io.InputStreamReader(holder.getInputStream())).readLine());
            tmpfs.reclaimLeftovers();
            assertFalse(mounts().contains(goneMount), "a crashed service's mount is still there");
            assertFalse(Files.exists(goneMount));
            assertFalse(Files.exists(goneLock));
            assertTrue(mounts().contains(aliveMount), "a live service's mount was taken away");
            assertTrue(Files.exists(aliveLock));
        } finally {
            holder.destroyForcibly().waitFor();
            for (Path dir : List.of(goneMount, aliveMount)) {
                if (mounts().contains(dir)) {
                    new ProcessBuilder("umount", dir.toString()).start().waitFor();
                }
                Files.deleteIfExists(dir.resolve("left.txt"));
                Files.deleteIfExists(dir);
            }
            Files.deleteIfExists(goneLock);
            Files.deleteIfExists(aliveLock);
            tmpfs.stop();
        }
    }

    private Path mounted(String name) throws Exception {
        Path dir = Files.createDirectory(paths.jobsDir().resolve(name));
        assertEquals(0, new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=1m", "nix-exec-workspace", dir.toString())
                .inheritIO().start().waitFor());
        Files.writeString(dir.resolve("left.txt"), "a run's file");
        return dir;
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

    private static void eventually(BooleanSupplier condition, String what) {
        await(what).atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20)).until(condition::getAsBoolean);
    }
}
