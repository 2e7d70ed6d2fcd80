package dev.nixexec.security;

import static dev.nixexec.testing.Runs.describe;
import static dev.nixexec.testing.Runs.stdout;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.nixexec.config.NixExecConfig;
import dev.nixexec.config.StatePaths;
import dev.nixexec.nix.Environment;
import dev.nixexec.nix.EnvironmentCache;
import dev.nixexec.nix.EnvironmentRequest;
import dev.nixexec.nix.Language;
import dev.nixexec.sandbox.BwrapSandbox;
import dev.nixexec.sandbox.Cgroups;
import dev.nixexec.sandbox.HostUids;
import dev.nixexec.sandbox.LauncherPool;
import dev.nixexec.sandbox.Limits;
import dev.nixexec.sandbox.RunGate;
import dev.nixexec.sandbox.SandboxEvent;
import dev.nixexec.sandbox.SandboxResult;
import dev.nixexec.sandbox.SandboxSpec;
import dev.nixexec.sandbox.Specs;
import dev.nixexec.sandbox.StoreViews;
import dev.nixexec.sandbox.UserModeNetwork;
import dev.nixexec.testing.ConfigOverride;
import dev.nixexec.testing.NixSpy;
import dev.nixexec.execution.ExecutionEngine;
import dev.nixexec.execution.ExecutionEvent;
import dev.nixexec.execution.ExecutionRequest;
import dev.nixexec.execution.ExecutionResult;
import dev.nixexec.testing.Runs;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Runs without a cgroup, as an operator who set {@code nixexec.sandbox.allow-without-cgroups}
 * gets them (built by hand, beside this instance's own sandbox, with a cgroup parent outside the
 * cgroup filesystem), and the unsized {@code /dev} tmpfs, in both modes.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
class NoCgroupsOptOutTest {

    /** 64 processes; files up to 200 MiB, so that only the mounts' sizes stop the fills. */
    private static final Limits LIMITS = new Limits(Duration.ofSeconds(30), 256L << 20, 64, 0, 200L << 20,
            32L << 20, 64L << 20, 64 * 1024);

    /** Forks 1,000 children that wait on a pipe, so every one is alive at once. */
    static final String FORK_BOMB = """
            import errno, os
            r, w = os.pipe()
            made, failure = 0, None
            for i in range(1000):
                try:
                    pid = os.fork()
                except OSError as e:
                    failure = errno.errorcode[e.errno]
                    break
                if pid == 0:
                    os.close(w)
                    os.read(r, 1)
                    os._exit(0)
                made += 1
            print('capped' if made < 64 else 'made %d' % made, failure, flush=True)
            os.close(w)
            for i in range(made):
                os.wait()
            """;

    /** Tries to write 100 MiB into /dev and into /dev/shm. */
    static final String DEV_FILL = """
            import errno, os
            def fill(path):
                try:
                    with open(path, 'wb', buffering=0) as f:
                        for i in range(100):
                            f.write(bytes(1 << 20))
                    print(path, 'took 100 MiB', flush=True)
                except OSError as e:
                    size = os.path.getsize(path) if os.path.exists(path) else 0
                    print(path, errno.errorcode[e.errno], 'at most 16 MiB' if size <= 16 << 20 else size, flush=True)
            fill('/dev/fill')
            fill('/dev/shm/fill')
            """;

    @Inject
    NixExecConfig config;

    @Inject
    StatePaths paths;

    @Inject
    HostUids uids;

    @Inject
    EnvironmentCache environments;

    @Inject
    ExecutionEngine engine;

    @Test
    void withTheOptOutAForkBombIsCappedByRlimitNproc() throws Exception {
        // RLIMIT_NPROC counts per uid: a per-run uid (the service as root) makes it a per-run limit
        assumeTrue(uids.switching(), "runs switch uid only when the service is root");
        assertEquals("capped EAGAIN\n", runWithoutCgroups(FORK_BOMB).stdout().text());
    }

    @Test
    void withTheOptOutDevCannotBeFilled() throws Exception {
        SandboxResult result = runWithoutCgroups(DEV_FILL);
        assertEquals("""
                /dev/fill EROFS at most 16 MiB
                /dev/shm/fill ENOSPC at most 16 MiB
                """, result.stdout().text(), result.stderr().text());
    }

    @Test
    void withCgroupsDevCannotBeFilledEither() {
        ExecutionEngine.ValidatedRequest request = engine.validate(ExecutionRequest.of("python", DEV_FILL)).withLimits(LIMITS);
        ExecutionResult result = engine.execute(request, () -> true, environment -> true).filter(e -> e instanceof ExecutionEvent.Finished)
                .map(e -> ((ExecutionEvent.Finished) e).result()).toUni().await().atMost(Duration.ofMinutes(2));
        assertEquals("""
                /dev/fill EROFS at most 16 MiB
                /dev/shm/fill ENOSPC at most 16 MiB
                """, stdout(result), describe(result));
    }

    @Test
    void withoutTheOptOutNoRunStarts() {
        Cgroups none = new Cgroups(withoutCgroups(false));
        assertFalse(none.available());
        LauncherPool pool = new LauncherPool(withoutCgroups(false), paths, none, uids);
        try {
            Optional<String> reason = new BwrapSandbox(withoutCgroups(false), pool, new StoreViews(withoutCgroups(false), paths),
                    new UserModeNetwork(withoutCgroups(false), new HostUids(withoutCgroups(false)))).unavailableReason();
            assertTrue(reason.orElse("").contains("memory and process limits cannot be enforced"), reason.toString());
        } finally {
            pool.close();
        }
    }

    private NixExecConfig withoutCgroups(boolean optOut) {
        NixExecConfig.Sandbox sandbox = ConfigOverride.of(NixExecConfig.Sandbox.class, config.sandbox(),
                // nothing can make a directory there, not even code that mistook any directory for a cgroup
                Map.of("cgroupParent", Optional.of("/proc/nixexec-no-cgroups"),
                        "warmLaunchers", 0, "allowWithoutCgroups", optOut));
        return ConfigOverride.of(NixExecConfig.class, config, Map.of("sandbox", sandbox));
    }

    private SandboxResult runWithoutCgroups(String code) throws Exception {
        NixExecConfig optOut = withoutCgroups(true);
        Cgroups none = new Cgroups(optOut);
        assertFalse(none.available());
        LauncherPool pool = new LauncherPool(optOut, paths, none, uids);
        try {
            BwrapSandbox sandbox = new BwrapSandbox(optOut, pool, new StoreViews(optOut, paths), new UserModeNetwork(optOut, new HostUids(optOut)));
            assertEquals(Optional.empty(), sandbox.unavailableReason());
            Environment env = environments.get(EnvironmentRequest.of(Language.PYTHON, List.of()));
            SandboxSpec spec = Specs.fresh(env.storePath(), env.closure(), Language.PYTHON.fileName(),
                    code.getBytes(StandardCharsets.UTF_8), Language.PYTHON.command(), Map.of(), new byte[0], LIMITS, false);
            return sandbox.run(spec, RunGate.OPEN).filter(e -> e instanceof SandboxEvent.Exited)
                    .map(e -> ((SandboxEvent.Exited) e).result()).toUni().await().atMost(Duration.ofMinutes(1));
        } finally {
            pool.close();
        }
    }
}
