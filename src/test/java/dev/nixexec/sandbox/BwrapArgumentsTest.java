package dev.nixexec.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BwrapArgumentsTest {

    private static final Limits LIMITS = new Limits(Duration.ofSeconds(5), 1 << 28, 64, 0, 1 << 20, 1 << 20, 1 << 20, 1 << 20);
    private static final String ENV = "/nix/store/aaaa-nixexec-env";

    private static SandboxSpec spec(Map<String, String> env, boolean network) {
        return Specs.fresh(ENV, List.of(ENV, "/nix/store/bbbb-python3"), "main.py", new byte[0],
                List.of("python3"), env, new byte[0], LIMITS, network);
    }

    private static List<String> argv(SandboxSpec spec, StoreMount store) {
        return Specs.bwrapArgv(Path.of("/usr/bin/bwrap"), spec, Path.of("/jobs/1/code"), Path.of("/jobs/1/etc"), store);
    }

    @Test
    void commandFollowsDoubleDashAndNothingElseDoes() {
        List<String> argv = argv(spec(Map.of("A", "--bind / /"), false), StoreMount.WHOLE_STORE);
        int dashes = argv.indexOf("--");
        assertEquals(List.of(ENV + "/bin/python3", "/code/main.py"), argv.subList(dashes + 1, argv.size()));
        assertEquals(1, Collections.frequency(argv, "--"));
    }

    @Test
    void argumentsFollowTheCodeFileEachItsOwnWord() {
        SandboxSpec spec = new SandboxSpec(ENV, List.of(ENV), "main.py", new byte[0], List.of("python3"), Map.of(),
                new byte[0], LIMITS, false, java.util.Optional.empty(), java.util.Optional.empty(),
                java.util.Optional.empty(), List.of("a b", "--bind", "$(x)"), List.of());
        List<String> argv = argv(spec, StoreMount.WHOLE_STORE);
        assertEquals(List.of(ENV + "/bin/python3", "/code/main.py", "a b", "--bind", "$(x)"),
                argv.subList(argv.indexOf("--") + 1, argv.size()));
    }

    @Test
    void isolatesEverything() {
        List<String> argv = argv(spec(Map.of(), false), StoreMount.WHOLE_STORE);
        for (String flag : List.of("--unshare-all", "--unshare-user", "--die-with-parent", "--new-session", "--clearenv",
                "--disable-userns", "--assert-userns-disabled")) {
            assertTrue(argv.contains(flag), flag);
        }
        assertEquals("ALL", argv.get(argv.indexOf("--cap-drop") + 1));
        assertFalse(argv.contains("--share-net"));
        assertEquals("/", argv.get(argv.lastIndexOf("--remount-ro") + 1));
        // /dev, an unsized tmpfs, goes read-only right after its sized /dev/shm is made
        int dev = argv.indexOf("--remount-ro");
        assertEquals("/dev", argv.get(dev + 1));
        assertTrue(dev > argv.indexOf("/dev/shm") && argv.indexOf("/dev/shm") > argv.indexOf("--dev"), argv.toString());
        assertFalse(argv.contains("/etc/resolv.conf"));
    }

    @Test
    void userVariablesAreSetEnvValuesAndCannotReplaceFixedOnes() {
        List<String> argv = argv(spec(Map.of("GREETING", "$(id) ; rm -rf /"), false), StoreMount.WHOLE_STORE);
        int i = argv.indexOf("GREETING");
        assertEquals("--setenv", argv.get(i - 1));
        assertEquals("$(id) ; rm -rf /", argv.get(i + 1));
        Map<String, String> env = BwrapArguments.environment(spec(Map.of("PATH", "/evil"), false));
        assertEquals(ENV + "/bin", env.get("PATH"));
    }

    /** Interpreters write through (docs/sandbox.md); the caller's own setting wins, and its RUBYOPT follows the prelude. */
    @Test
    void interpretersAreToldNotToBufferUnlessTheCallerSaysOtherwise() {
        Map<String, String> env = BwrapArguments.environment(spec(Map.of(), false));
        assertEquals("1", env.get("PYTHONUNBUFFERED"));
        assertEquals("-M5;$|=1", env.get("PERL5OPT"));
        assertEquals("io.stdout:setvbuf('no')", env.get("LUA_INIT"));
        assertEquals("-r/code/.stdout-sync.rb", env.get("RUBYOPT"));
        Map<String, String> own = BwrapArguments.environment(spec(Map.of("PERL5OPT", "-Mstrict", "RUBYOPT", "-w"), false));
        assertEquals("-Mstrict", own.get("PERL5OPT"));
        assertEquals("-r/code/.stdout-sync.rb -w", own.get("RUBYOPT"));
    }

    /** A job gets a new session; only a shell on the service's own terminal keeps it, and nothing else changes. */
    @Test
    void onlyAShellOnItsOwnTerminalKeepsItsSession() {
        SandboxSpec spec = spec(Map.of(), false);
        List<String> job = BwrapArguments.options(spec, Path.of("/run/x/code"), Path.of("/run/x/etc"), StoreMount.WHOLE_STORE,
                true);
        List<String> shell = BwrapArguments.options(spec, Path.of("/run/x/code"), Path.of("/run/x/etc"), StoreMount.WHOLE_STORE,
                false);
        assertTrue(job.contains("--new-session"), job.toString());
        List<String> jobWithoutSession = new java.util.ArrayList<>(job);
        jobWithoutSession.remove("--new-session");
        assertEquals(jobWithoutSession, shell);
    }

    /** A networked run keeps its own namespace (the user-mode stack joins it) and asks the resolver of its own etc files. */
    @Test
    void aNetworkedRunKeepsItsOwnNamespace() {
        List<String> argv = argv(spec(Map.of(), true), StoreMount.WHOLE_STORE);
        assertFalse(argv.contains("--share-net"), argv.toString());
        assertTrue(argv.contains("--unshare-all"), argv.toString());
        int resolv = argv.indexOf("/etc/resolv.conf");
        assertEquals(List.of("--ro-bind", "/jobs/1/etc/resolv.conf"), argv.subList(resolv - 2, resolv));
        assertEquals("nameserver 10.0.2.3\nnameserver 198.51.100.53\n",
                BwrapArguments.etcFiles(List.of("10.0.2.3", "198.51.100.53")).get("resolv.conf"));
    }

    @Test
    void eachPathBindsEachPathAndNotTheStore() {
        SandboxSpec spec = spec(Map.of(), false);
        List<String> argv = argv(spec, new StoreMount.EachPath(spec.closure()));
        assertFalse(argv.contains("/nix/store"));
        assertTrue(argv.contains("/nix/store/bbbb-python3"));
        List<String> view = argv(spec, new StoreMount.ClosureView(Path.of("/views/abc")));
        int bind = view.indexOf("/views/abc");
        assertEquals(List.of("--ro-bind", "/views/abc", "/nix/store"), view.subList(bind - 1, bind + 2),
                "one read-only bind of the view at /nix/store");
        assertFalse(view.contains("/nix/store/bbbb-python3"));
        List<String> whole = argv(spec(Map.of(), false), StoreMount.WHOLE_STORE);
        assertTrue(whole.contains("/nix/store"));
        assertFalse(whole.contains("/nix/store/bbbb-python3"));
    }

    @Test
    void tmpAndWorkspaceAreSized() {
        List<String> argv = argv(spec(Map.of(), false), StoreMount.WHOLE_STORE);
        int tmp = argv.indexOf("/tmp");
        assertEquals("--tmpfs", argv.get(tmp - 1));
        assertEquals(Long.toString(LIMITS.tmpBytes()), argv.get(tmp - 2));
        int workspace = argv.indexOf("/workspace");
        assertEquals("--tmpfs", argv.get(workspace - 1));
        assertEquals(Long.toString(LIMITS.workspaceBytes()), argv.get(workspace - 2));
    }

    @Test
    void aSessionsPersistentPathsAreBoundWritableOnlyWhereAllowedAndTmpGoesReadOnlyOtherwise() {
        SandboxSpec session = new SandboxSpec(ENV, List.of(ENV), "main.sh", new byte[0], List.of("bash"), Map.of(),
                new byte[0], LIMITS, false, java.util.Optional.empty(), java.util.Optional.empty(),
                java.util.Optional.of(new PersistentPaths(Path.of("/jobs/ws-1"), java.util.Set.of("/workspace", "/cache"))),
                List.of(), List.of());
        List<String> argv = argv(session, StoreMount.WHOLE_STORE);
        assertEquals("--bind", argv.get(argv.indexOf("/jobs/ws-1/workspace") - 1));
        assertEquals("/workspace", argv.get(argv.indexOf("/jobs/ws-1/workspace") + 1));
        assertEquals("--ro-bind", argv.get(argv.indexOf("/jobs/ws-1/home") - 1));
        assertEquals("/home/sandbox", argv.get(argv.indexOf("/jobs/ws-1/home") + 1));
        assertEquals("--bind", argv.get(argv.indexOf("/jobs/ws-1/cache") - 1));
        assertTrue(Collections.indexOfSubList(argv, List.of("--remount-ro", "/tmp"))
                > Collections.indexOfSubList(argv, List.of("--tmpfs", "/tmp")), argv.toString());
        assertEquals("/home/sandbox", BwrapArguments.environment(session).get("HOME"));
        assertEquals(java.util.Optional.of(Path.of("/jobs/ws-1")), session.runOwned(), "the run's uid is given the root");
        assertEquals(-1, Collections.indexOfSubList(argv, List.of("--tmpfs", "/workspace")));
    }
}
