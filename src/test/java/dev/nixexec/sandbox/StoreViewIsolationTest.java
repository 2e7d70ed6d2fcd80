package dev.nixexec.sandbox;

import static dev.nixexec.testing.Runs.describe;
import static dev.nixexec.testing.Runs.stdout;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.config.NixExecConfig;
import dev.nixexec.config.StatePaths;
import dev.nixexec.execution.ExecutionEngine;
import dev.nixexec.execution.ExecutionRequest;
import dev.nixexec.execution.ExecutionResult;
import dev.nixexec.nix.Environment;
import dev.nixexec.nix.EnvironmentCache;
import dev.nixexec.nix.EnvironmentRequest;
import dev.nixexec.nix.Language;
import dev.nixexec.testing.ConfigOverride;
import dev.nixexec.testing.NixSpy;
import dev.nixexec.testing.Runs;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The default store view: a run sees its own environment's closure under /nix/store and nothing
 * else of the node's store (issue 18), a job or a shell alike; whole-store still shows all of it
 * when configured. Real environments from the fixture, the real sandbox.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
class StoreViewIsolationTest {

    @Inject
    ExecutionEngine engine;

    @Inject
    EnvironmentCache environments;

    @Inject
    BwrapShells shells;

    @Inject
    StoreViews views;

    @Inject
    NixExecConfig config;

    @Inject
    StatePaths paths;

    @Inject
    LauncherPool launchers;

    @Inject
    Cgroups cgroups;

    @Inject
    HostUids uids;

    private Environment python() throws Exception {
        return environments.get(EnvironmentRequest.of(Language.PYTHON, List.of()));
    }

    private Environment bash() throws Exception {
        return environments.get(EnvironmentRequest.of(Language.BASH, List.of()));
    }

    private static Set<String> names(List<String> closure) {
        return closure.stream().map(p -> Path.of(p).getFileName().toString()).collect(Collectors.toCollection(TreeSet::new));
    }

    /** Paths of A's closure that are not in B's: what a job in B must not reach. */
    private static List<String> onlyIn(Environment a, Environment b) {
        List<String> only = new ArrayList<>(a.closure());
        only.removeAll(b.closure());
        return only;
    }

    @Test
    void aJobSeesItsClosureAndNotAnotherEnvironmentsPaths() throws Exception {
        Environment other = python();
        Environment own = bash();
        List<String> foreign = onlyIn(other, own);
        assertTrue(foreign.contains(other.storePath()), "the python environment is not in bash's closure");
        String python3 = other.storePath() + "/bin/python3";
        assertTrue(Files.exists(Path.of(python3)), "the other environment is on the host: " + python3);

        ExecutionResult result = Runs.run(engine, ExecutionRequest.of("bash", """
                ls -A /nix/store
                echo ---
                for p in %s %s; do
                  [ -e "$p" ] && echo "EXISTS $p"
                  ls "$p" >/dev/null 2>&1 && echo "LISTED $p"
                  cat "$p" >/dev/null 2>&1 && echo "READ $p"
                done
                ln -s %s /tmp/through-a-link && ls /tmp/through-a-link/ >/dev/null 2>&1 && echo FOLLOWED
                cd /nix/store/%s 2>/dev/null && echo ENTERED
                echo done
                """.formatted(other.storePath(), python3, other.storePath(), Path.of(other.storePath()).getFileName())));
        assertEquals("succeeded", result.status(), describe(result));
        String[] parts = stdout(result).split("---\n", 2);
        Set<String> listed = new TreeSet<>(List.of(parts[0].strip().split("\n")));
        assertEquals(names(own.closure()), listed, "/nix/store holds exactly the job's own closure");
        assertEquals("done\n", parts[1], "nothing of the other environment is reachable, by name or by link");
    }

    @Test
    void pythonAndBashRunFromTheirViews() throws Exception {
        ExecutionResult py = Runs.run(engine, ExecutionRequest.of("python",
                "import os, json\nprint(len(os.listdir('/nix/store')), json.dumps([1]))"));
        assertEquals("succeeded", py.status(), describe(py));
        assertEquals(python().closure().size() + " [1]\n", stdout(py));
        ExecutionResult sh = Runs.run(engine, ExecutionRequest.of("bash", "echo $((6 * 7)) | tr 4 x; ls /nix/store | wc -l"));
        assertEquals("succeeded", sh.status(), describe(sh));
        assertEquals("x2\n" + bash().closure().size() + "\n", stdout(sh));
    }

    @Test
    void aShellSeesOnlyItsClosure() throws Exception {
        Environment own = python();
        Environment other = bash();
        List<String> foreign = onlyIn(other, own);
        SandboxSpec spec = Specs.fresh(own.storePath(), own.closure(), "unused", new byte[0], List.of("bash"),
                Map.of(), new byte[0], ShellTerminalTest.LIMITS, false);
        ShellTerminalTest.Screen screen = new ShellTerminalTest.Screen();
        Shell shell = shells.start(spec, new TerminalSize(120, 40), Duration.ofMinutes(1), screen);
        try {
            screen.await("sandbox:", 0);
            String probe = foreign.isEmpty() ? other.storePath() : foreign.getFirst();
            shell.write(("echo count=$(ls /nix/store | wc -l); ls " + probe + " >/dev/null 2>&1 || echo GONE-$((6 * 7))\n")
                    .getBytes(StandardCharsets.UTF_8));
            String text = screen.await("GONE-42\r\n", 0);
            assertTrue(text.contains("count=" + own.closure().size() + "\r\n"), text);
        } finally {
            shell.end("test over");
            shell.ended().get(1, java.util.concurrent.TimeUnit.MINUTES);
        }
    }

    @Test
    void wholeStoreShowsTheStoreWhenConfigured() throws Exception {
        NixExecConfig.Sandbox sandboxConfig = ConfigOverride.of(NixExecConfig.Sandbox.class, config.sandbox(),
                Map.of("storeView", "whole-store", "warmLaunchers", 0));
        NixExecConfig whole = ConfigOverride.of(NixExecConfig.class, config, Map.of("sandbox", sandboxConfig));
        LauncherPool pool = new LauncherPool(whole, paths, cgroups, uids);
        try {
            BwrapSandbox sandbox = new BwrapSandbox(whole, pool, new StoreViews(whole, paths), new UserModeNetwork(whole, new HostUids(whole)));
            Environment own = python();
            Environment other = bash();
            String code = "import os\nprint(len(os.listdir('/nix/store')) > " + own.closure().size() + ", os.path.exists('"
                    + other.storePath() + "/bin/bash'))";
            SandboxResult result = sandbox.run(Specs.fresh(own.storePath(), own.closure(), Language.PYTHON.fileName(),
                    code.getBytes(StandardCharsets.UTF_8), Language.PYTHON.command(), Map.of(), new byte[0],
                    ShellTerminalTest.LIMITS, false), RunGate.OPEN)
                    .filter(e -> e instanceof SandboxEvent.Exited).map(e -> ((SandboxEvent.Exited) e).result())
                    .toUni().await().atMost(Duration.ofMinutes(1));
            assertEquals("True True\n", result.stdout().text(), result.stderr().text());
        } finally {
            pool.close();
        }
    }

    private StoreViews.Lease lease(Environment env) throws Exception {
        return views.lease(Specs.fresh(env.storePath(), env.closure(), "unused", new byte[0], List.of("bash"),
                Map.of(), new byte[0], ShellTerminalTest.LIMITS, false));
    }

    @Test
    void aViewIsTheServicesReadOnlyLinksToTheStore() throws Exception {
        Environment env = python();
        try (StoreViews.Lease lease = lease(env)) {
            Path view = ((StoreMount.ClosureView) lease.mount()).dir();
            assertEquals(System.getProperty("user.name"), Files.getOwner(view, LinkOption.NOFOLLOW_LINKS).getName());
            assertEquals("r-xr-xr-x", PosixFilePermissions.toString(Files.getPosixFilePermissions(view)));
            try (Stream<Path> list = Files.list(view)) {
                assertEquals(names(env.closure()), list.map(p -> p.getFileName().toString())
                        .collect(Collectors.toCollection(TreeSet::new)));
            }
            Path python3 = Path.of(env.storePath(), "bin/python3").toRealPath();
            Path inView = view.resolve(Path.of("/nix/store").relativize(python3));
            assertTrue(Files.isSameFile(python3, inView), "a file in the view is the store's own inode");
            try (Stream<Path> all = Files.walk(view)) {
                for (Path p : all.filter(p -> Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)).toList()) {
                    assertFalse(PosixFilePermissions.toString(Files.getPosixFilePermissions(p)).contains("w"),
                            "no directory of a view is writable: " + p);
                }
            }
        }
    }

    @Test
    void concurrentFirstRunsShareOneView() throws Exception {
        Environment env = bash();
        ExecutorService pool = Executors.newFixedThreadPool(6);
        try {
            List<Callable<StoreMount>> tasks = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                tasks.add(() -> {
                    try (StoreViews.Lease lease = lease(env)) {
                        return lease.mount();
                    }
                });
            }
            Set<StoreMount> mounts = new java.util.HashSet<>();
            for (Future<StoreMount> f : pool.invokeAll(tasks)) {
                mounts.add(f.get());
            }
            assertEquals(1, mounts.size(), mounts.toString());
            assertTrue(mounts.iterator().next() instanceof StoreMount.ClosureView, mounts.toString());
        } finally {
            pool.shutdownNow();
        }
        try (Stream<Path> list = Files.list(paths.storeViewsDir())) {
            assertFalse(list.anyMatch(p -> p.getFileName().toString().startsWith(".building-")), "no half-built view is left");
        }
    }

    /** A view whose store path Nix collected goes, once nobody holds it; a held one stays. */
    @Test
    void aSweepRemovesAViewThatLostAStorePathOnceReleased() throws Exception {
        Environment env = bash();
        Path view;
        StoreViews.Lease held = lease(env);
        try {
            view = ((StoreMount.ClosureView) held.mount()).dir();
            // as if Nix had collected a path of the closure (the view is read-only to its owner too)
            Files.setPosixFilePermissions(view, PosixFilePermissions.fromString("rwxr-xr-x"));
            Files.createDirectory(view.resolve("00000000000000000000000000000000-collected"));
            Files.setPosixFilePermissions(view, PosixFilePermissions.fromString("r-xr-xr-x"));
            views.sweep();
            assertTrue(Files.isDirectory(view), "a view in use is never removed");
        } finally {
            held.close();
        }
        Path python3 = Path.of(python().storePath(), "bin/python3").toRealPath();
        views.sweep();
        assertFalse(Files.exists(view, LinkOption.NOFOLLOW_LINKS), "the stale view is removed");
        assertEquals("r-xr-xr-x", PosixFilePermissions.toString(Files.getPosixFilePermissions(python3)),
                "removing a view leaves the store's files as they were");
        try (StoreViews.Lease again = lease(env)) {
            Path rebuilt = ((StoreMount.ClosureView) again.mount()).dir();
            assertEquals(view, rebuilt);
            assertTrue(Files.isDirectory(rebuilt.resolve(Path.of(env.storePath()).getFileName())), "built anew");
            assertNotEquals(Set.of(), names(env.closure()));
        }
    }
}
