package dev.nixexec.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.nixexec.testing.ConfigOverride;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every instance owns its jobs directory: a service and the tests beside it never share one. */
class StatePathsTest {

    /**
     * Only a root service keeps its jobs under /run (a non-root one keeps them in its state
     * directory); as another user the two /run cases have no code path to exercise, so they are
     * skipped, with that reason. CI runs as root.
     */
    private static boolean root() {
        return "root".equals(System.getProperty("user.name"));
    }

    private static StatePaths of(Path stateDir) {
        NixExecConfig.Executor executor = ConfigOverride.of(NixExecConfig.Executor.class, null,
                Map.of("cacheDir", Optional.empty(), "tempDir", Optional.empty()));
        return new StatePaths(ConfigOverride.of(NixExecConfig.class, null,
                Map.of("stateDir", Optional.of(stateDir), "executor", executor)));
    }

    /** @TempDir is 0700, as under root's home or a mktemp -d checkout: run uids cannot pass through. */
    @Test
    void aRootServiceWhoseStateOthersCannotEnterHasARunTimeJobsDirectoryOfItsOwn(@TempDir Path base) {
        assumeTrue(root(), "only a root service keeps jobs under /run");
        Path one = StatePaths.defaultJobsDir(base.resolve("one"));
        Path other = StatePaths.defaultJobsDir(base.resolve("other"));
        assertEquals(StatePaths.privateRunDir(), one.getParent());
        assertNotEquals(StatePaths.privateRunDir().resolve("jobs"), one, "the host-wide jobs directory");
        assertNotEquals(one, other);
        assertEquals(one, StatePaths.defaultJobsDir(base.resolve("one")), "a restart finds its directory again");
    }

    @Test
    void aStateDirectoryOthersCanEnterKeepsTheJobsInside(@TempDir Path base) throws Exception {
        Files.setPosixFilePermissions(base, PosixFilePermissions.fromString("rwx--x--x"));
        Path state = base.resolve("state");
        assertEquals(state.resolve("jobs"), StatePaths.defaultJobsDir(state));
    }

    @Test
    void theRunTimeJobsDirectoryGoesWhenItsLastUserStops(@TempDir Path base) throws Exception {
        assumeTrue(root(), "only a root service keeps jobs under /run");
        StatePaths paths = of(base.resolve("state"));
        Path jobs = paths.jobsDir();
        try {
            assertTrue(jobs.startsWith(StatePaths.privateRunDir()), jobs.toString());
            Path run = Files.createDirectory(jobs.resolve("run"));
            paths.releaseJobsDir();
            assertTrue(Files.isDirectory(jobs), "removed while a run's directory was in it");
            Files.delete(run);
            paths.releaseJobsDir();
            assertFalse(Files.exists(jobs), jobs + " outlived the instance");
        } finally {
            Files.deleteIfExists(jobs.resolve("run"));
            Files.deleteIfExists(jobs);
        }
    }

    @Test
    void aJobsDirectoryInTheStateDirectoryStays(@TempDir Path base) throws Exception {
        Files.setPosixFilePermissions(base, PosixFilePermissions.fromString("rwx--x--x"));
        StatePaths paths = of(base.resolve("state"));
        Path jobs = paths.jobsDir();
        paths.releaseJobsDir();
        assertTrue(Files.isDirectory(jobs), jobs + " was removed");
    }

    /** A directory the service keeps private is its own, a directory, and writable by no one else. */
    @Test
    void aPrivateDirectoryThatIsNotTheServicesAloneIsRefused(@TempDir Path base) throws Exception {
        Path own = Files.createDirectory(base.resolve("own"));
        assertEquals(own, StatePaths.ensurePrivate(own));
        Path shared = Files.createDirectory(base.resolve("shared"), PosixFilePermissions.asFileAttribute(
                PosixFilePermissions.fromString("rwxrwx--x")));
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwx--x"));
        assertTrue(assertThrows(IOException.class, () -> StatePaths.ensurePrivate(shared)).getMessage()
                .contains("with rwxrwx--x"));
        Path link = Files.createSymbolicLink(base.resolve("link"), own);
        assertTrue(assertThrows(IOException.class, () -> StatePaths.ensurePrivate(link)).getMessage()
                .contains("a symbolic link"));
        Path file = Files.createFile(base.resolve("file"));
        assertThrows(IOException.class, () -> StatePaths.ensurePrivate(file));
        if (root()) {
            Path others = Files.createDirectory(base.resolve("others"));
            Files.setAttribute(others, "unix:uid", 65534);
            assertThrows(IOException.class, () -> StatePaths.ensurePrivate(others));
        }
    }
}
