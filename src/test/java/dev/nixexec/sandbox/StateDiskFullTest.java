package dev.nixexec.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.nixexec.config.NixExecConfig;
import dev.nixexec.testing.ConfigOverride;
import dev.nixexec.config.StatePaths;
import dev.nixexec.nix.Environment;
import dev.nixexec.nix.EnvironmentCache;
import dev.nixexec.nix.EnvironmentRequest;
import dev.nixexec.nix.Language;
import dev.nixexec.testing.DiskFill;
import dev.nixexec.testing.NixSpy;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The job directory's filesystem full (a 1 MiB tmpfs mounted as {@code executor.temp-dir}): a run
 * fails at once with a clear error, leaves nothing behind, and the next run after space is freed
 * works, without a restart.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
class StateDiskFullTest {

    private static final Limits LIMITS = new Limits(Duration.ofSeconds(10), 256L << 20, 64, 0, 8L << 20,
            32L << 20, 32L << 20, 64 * 1024);

    @Inject
    NixExecConfig config;

    @Inject
    StatePaths instance;

    @Inject
    HostUids uids;

    @Inject
    Cgroups cgroups;

    @Inject
    EnvironmentCache environments;

    @Test
    void aFullJobsDirectoryFailsRunsCleanlyAndRecovers() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "mounting a tmpfs needs root");
        // in this instance's jobs directory, which the run's uid can pass through whatever directory the checkout is in
        Path mount = Files.createDirectory(instance.jobsDir().resolve("full-disk-" + UUID.randomUUID()));
        assertEquals(0, exec("mount", "-t", "tmpfs", "-o", "size=1m,mode=0711", "tmpfs", mount.toString()));
        try {
            Path jobs = mount.resolve("jobs");
            NixExecConfig.Executor executor = ConfigOverride.of(NixExecConfig.Executor.class, config.executor(),
                    Map.of("tempDir", Optional.of(jobs)));
            NixExecConfig.Sandbox sandboxConfig = ConfigOverride.of(NixExecConfig.Sandbox.class, config.sandbox(),
                    Map.of("warmLaunchers", 0));
            NixExecConfig small = ConfigOverride.of(NixExecConfig.class, config, Map.of("executor", executor, "sandbox", sandboxConfig));
            StatePaths paths = new StatePaths(small);
            LauncherPool pool = new LauncherPool(small, paths, cgroups, uids);
            try {
                BwrapSandbox sandbox = new BwrapSandbox(small, pool, new StoreViews(small, paths), new UserModeNetwork(small, new HostUids(small)));
                Environment env = environments.get(EnvironmentRequest.of(Language.PYTHON, List.of()));
                assertEquals("ok\n", run(sandbox, env, "print('ok')").stdout().text(), "a run before the disk fills");

                Path filler = paths.jobsDir().resolve("filler");
                // the first run's directory goes in the background; gone only after the disk filled, it would make room
                settled(paths.jobsDir(), List.of());
                DiskFill.bytes(filler);
                long start = System.nanoTime();
                Throwable refused = failure(sandbox, env, "print('ok')");
                assertTrue(Duration.ofNanos(System.nanoTime() - start).toSeconds() < 5, "a full disk made the run hang");
                assertTrue(String.valueOf(refused.getMessage()).contains("No space left on device"), String.valueOf(refused));
                assertFalse(String.valueOf(refused.getMessage()).contains(mount.toString()), "a host path: " + refused);
                assertEquals(List.of(filler), settled(paths.jobsDir(), List.of(filler)), "a run directory was left on the full disk");

                // room for the run directory but not for a 512 KiB program: it fails writing the code
                Files.delete(filler);
                fill(filler, 512 << 10);
                Throwable half = failure(sandbox, env, "#" + "x".repeat(512 << 10) + "\nprint('ok')");
                assertTrue(String.valueOf(half.getMessage()).contains("No space left on device"), String.valueOf(half));
                assertFalse(String.valueOf(half.getMessage()).contains(mount.toString()), "a host path: " + half);
                assertEquals(List.of(filler), settled(paths.jobsDir(), List.of(filler)), "a half-written run directory was left behind");

                Files.delete(filler);
                assertEquals("ok\n", run(sandbox, env, "print('ok')").stdout().text(), "no recovery after space came back");
            } finally {
                pool.close();
            }
        } finally {
            assertEquals(0, exec("umount", mount.toString()));
            Files.delete(mount);
        }
    }

    private static SandboxResult run(BwrapSandbox sandbox, Environment env, String code) {
        return sandbox.run(spec(env, code), RunGate.OPEN).filter(e -> e instanceof SandboxEvent.Exited)
                .map(e -> ((SandboxEvent.Exited) e).result()).toUni().await().atMost(Duration.ofMinutes(1));
    }

    private static Throwable failure(BwrapSandbox sandbox, Environment env, String code) {
        try {
            SandboxResult result = run(sandbox, env, code);
            throw new AssertionError("the run went ahead on a full disk: " + result.stdout().text() + result.stderr().text());
        } catch (RuntimeException e) {
            return e.getCause() != null && !(e instanceof SandboxException) ? e.getCause() : e;
        }
    }

    private static SandboxSpec spec(Environment env, String code) {
        return Specs.fresh(env.storePath(), env.closure(), Language.PYTHON.fileName(),
                code.getBytes(StandardCharsets.UTF_8), Language.PYTHON.command(), Map.of(), new byte[0], LIMITS, false);
    }

    /** Fills the filesystem, leaving {@code spare} bytes free (roughly: tmpfs counts whole pages). */
    private static void fill(Path file, long spare) throws IOException {
        long free = Files.getFileStore(file.getParent()).getUsableSpace() - spare;
        try (OutputStream out = Files.newOutputStream(file)) {
            byte[] block = new byte[4096];
            for (long written = 0; written + block.length <= free; written += block.length) {
                out.write(block);
            }
        }
    }

    /** The directory's entries once they are {@code expected}, or after 10 s (a run's directory goes in the background). */
    private static List<Path> settled(Path dir, List<Path> expected) throws IOException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        List<Path> entries = list(dir);
        while (!entries.equals(expected) && System.nanoTime() < deadline) {
            Thread.onSpinWait();
            entries = list(dir);
        }
        return entries;
    }

    /** The entries of runs: the pool's shared /etc files (etc-…) stay while the pool does. */
    private static List<Path> list(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> !p.getFileName().toString().startsWith("etc-")).toList();
        }
    }

    private static int exec(String... argv) throws Exception {
        Process p = new ProcessBuilder(argv).inheritIO().start();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        return p.exitValue();
    }
}
