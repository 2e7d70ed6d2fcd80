package dev.nixexec.nix;

import static dev.nixexec.testing.Api.ADMIN;
import static dev.nixexec.testing.Api.as;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.nixexec.config.NixExecConfig;
import dev.nixexec.execution.ExecutionEngine;
import dev.nixexec.execution.ExecutionRequest;
import dev.nixexec.execution.ExecutionResult;
import dev.nixexec.execution.RequestedLimits;
import dev.nixexec.testing.Runs;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Sharing across the fleet with the real Nix: worker A builds an environment and publishes it,
 * signed, to the shared cache; worker B, which lacks it and cannot build at all ({@code max-jobs=0}:
 * any build fails), gets it from the cache. A cache signed by a key B does not trust gives B
 * nothing. Every store path involved is this run's own ({@link FleetFixture}), so removing A's
 * copy from the host's store (to make B a node that never saw it) touches no other test's paths.
 */
@QuarkusTest
@TestProfile(FleetSharingIT.Fleet.class)
// the node list first: it waits for the builds ahead, so the other tests' builds do not run beside them
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class FleetSharingIT {

    public static class Fleet implements QuarkusTestProfile {
        @Override
        public List<TestResourceEntry> testResources() {
            return List.of(new TestResourceEntry(FleetFixture.class));
        }

        @Override
        public java.util.Map<String, String> getConfigOverrides() {
            return java.util.Map.of("nixexec.environments.prebuild", String.join(",", PREBUILD));
        }
    }

    /** One that builds (a profile), and one of each way to fail: an unknown package, an unknown profile, no language. */
    static final List<String> PREBUILD = List.of("bash @strict",
            "bash nosuchpackage", "ruby @no-such-profile", "cobol hello");

    /** A build on a node with this option fails: what B has, it did not build. */
    private static final String NO_BUILDS = "max-jobs=0";

    @Inject
    NixExecConfig config;

    @Inject
    ObjectMapper json;

    @Inject
    ExecutionEngine engine;

    @Test
    @Order(2)
    void aJobWithTheNetworkCanNeitherReadTheSigningKeyNorWriteTheCache() throws Exception {
        Path key = config.environments().signingKeyFile().orElseThrow();
        Path cache = config.environments().sharedCache().orElseThrow();
        assertTrue(Files.isRegularFile(key) && Files.isDirectory(cache), "nothing to look for");
        // bash with the environment built ahead (a hit), not python: a python environment of this run's own
        // fixture would be a 30 s build of its own; the paths come as arguments, never as code
        String code = String.join("\n",
                "state() { if [ -e \"$1\" ]; then echo present; else echo absent; fi; }",
                "if (echo x > \"$2/poison.narinfo\") 2>/dev/null; then w=wrote; else w=refused; fi",
                "echo \"$(state \"$1\") $(state \"$2\") $w\"");
        ExecutionResult result = Runs.run(engine, new ExecutionRequest("bash", code, List.of("coreutils", "bash", "cacert"),
                java.util.Map.of(), "", Optional.empty(), true, RequestedLimits.NONE, List.of(key.toString(), cache.toString())));
        assertEquals("succeeded", result.status(), dev.nixexec.testing.Runs.describe(result));
        assertEquals("absent absent refused\n", dev.nixexec.testing.Runs.stdout(result));
        assertFalse(Files.exists(cache.resolve("poison.narinfo")));
    }

    @Test
    @Order(1)
    void theEnvironmentsBuiltAheadShowInTheNodeList() throws Exception {
        List<java.util.Map<String, Object>> mine = List.of();
        long deadline = System.nanoTime() + java.time.Duration.ofMinutes(8).toNanos();
        while (System.nanoTime() < deadline) {
            List<java.util.Map<String, Object>> nodes = as(ADMIN).get("/v1/nodes").then().statusCode(200)
                    .extract().jsonPath().getList("");
            mine = nodes.stream().map(n -> (List<java.util.Map<String, Object>>) n.get("environments"))
                    .filter(e -> e.size() == PREBUILD.size()).findFirst().orElse(List.of());
            if (!mine.isEmpty() && mine.stream().noneMatch(e -> "building".equals(e.get("status")))) {
                break;
            }
            Thread.sleep(500);
        }
        java.util.Map<String, String> status = new java.util.TreeMap<>();
        java.util.Map<String, String> detail = new java.util.TreeMap<>();
        for (java.util.Map<String, Object> e : mine) {
            assertEquals("prebuild", e.get("source"), e.toString());
            status.put((String) e.get("name"), (String) e.get("status"));
            detail.put((String) e.get("name"), (String) e.get("detail"));
        }
        assertEquals(java.util.Map.of("bash @strict", "built",
                "bash nosuchpackage", "failed", "ruby @no-such-profile", "failed", "cobol hello", "failed"), status,
                "the node list: " + mine);
        assertTrue(detail.get("bash @strict").startsWith("/nix/store/"), detail.toString());
        assertTrue(detail.get("bash nosuchpackage").contains("unknown package 'nosuchpackage'"), detail.toString());
        assertTrue(detail.get("ruby @no-such-profile").contains("no built-in profile"), detail.toString());
        assertTrue(detail.get("cobol hello").contains("not a language"), detail.toString());
        // built ahead: the first job asking for it is a hit
        ExecutionResult hit = Runs.run(engine, ExecutionRequest.of("bash", "echo ahead")
                .withPackages("coreutils", "bash", "cacert"));
        assertEquals("ahead\n", dev.nixexec.testing.Runs.stdout(hit), dev.nixexec.testing.Runs.describe(hit));
        assertTrue(hit.environment().orElseThrow().cacheHit(), "built ahead, yet built again");
    }

    @Test
    @Order(3)
    void anEnvironmentBuiltOnOneWorkerIsCopiedFromTheCacheByAnotherThatCannotBuild() throws Exception {
        FleetFixture.Fleet fleet = FleetFixture.create();
        Set<String> storeBefore = storeEntries();
        EnvironmentRequest request = EnvironmentRequest.of(Language.BASH, List.of(PackageName.parse("hello")));

        FleetWorker a = FleetWorker.of(config, json, fleet.dir().resolve("a"), fleet, Optional.of(fleet.secretKey()),
                List.of(), List.of());
        Environment built = a.cache().get(request);
        assertFalse(built.cacheHit());
        // a second upload queues behind the first and finds it done: A's publishing is over
        assertTrue(a.fleet().publish(built.storePath()).join(), "A could not publish");
        assertTrue(Files.exists(narinfo(fleet, built.storePath())), "the environment is not in the fleet cache");

        // B never saw it: A's GC root goes, then A's paths (all new in this run) leave the host's store
        List<String> closure = built.closure();
        for (String path : closure) {
            assertFalse(storeBefore.contains(Path.of(path).getFileName().toString()),
                    path + " existed before this test: not this run's own, so it is not deleted");
        }
        Files.delete(a.paths().cacheDir().resolve("gcroots").resolve(built.cacheKey()));
        List<String> delete = new ArrayList<>(List.of("nix-store", "--delete"));
        delete.addAll(closure);
        FleetFixture.run(delete);
        assertFalse(Files.exists(Path.of(built.storePath())), "A's environment is still in the store");

        // B trusting only a rogue key: the cache's signatures do not count, and B cannot build
        FleetWorker rogue = FleetWorker.of(config, json, fleet.dir().resolve("b-rogue"), fleet, Optional.empty(),
                List.of(fleet.roguePublicKey()), List.of(NO_BUILDS));
        EnvironmentException refused = assertThrows(EnvironmentException.class, () -> rogue.cache().get(request));
        assertEquals("build_failed", refused.code(), refused.getMessage());
        assertFalse(Files.exists(Path.of(built.storePath())), "a path signed by an untrusted key was accepted");

        // B trusting the fleet's key: copied, not built
        FleetWorker b = FleetWorker.of(config, json, fleet.dir().resolve("b"), fleet, Optional.empty(),
                List.of(fleet.publicKey()), List.of(NO_BUILDS));
        Environment copied = b.cache().get(request);
        assertFalse(copied.cacheHit());
        assertEquals(built.storePath(), copied.storePath());
        assertEquals(built.closure(), copied.closure());
        assertTrue(Files.isSymbolicLink(b.paths().cacheDir().resolve("gcroots").resolve(copied.cacheKey())),
                "B keeps no GC root for it");
        assertEquals("Hello, world!\n", FleetFixture.run(List.of(copied.storePath() + "/bin/hello")));
        assertTrue(b.cache().get(request).cacheHit(), "the next request on B is a hit");
    }

    @Test
    @Order(4)
    void aPublishingWorkerNeedsAKeyOnlyItsOwnerCanRead() throws Exception {
        FleetFixture.Fleet fleet = FleetFixture.create();
        Files.setPosixFilePermissions(fleet.secretKey(), java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
        IllegalStateException refused = assertThrows(IllegalStateException.class, () -> FleetWorker.of(config, json,
                fleet.dir().resolve("a"), fleet, Optional.of(fleet.secretKey()), List.of(), List.of()));
        assertTrue(refused.getMessage().contains("readable by others"), refused.getMessage());
    }

    private static Path narinfo(FleetFixture.Fleet fleet, String storePath) {
        return fleet.cache().resolve(Path.of(storePath).getFileName().toString().substring(0, 32) + ".narinfo");
    }

    private static Set<String> storeEntries() throws IOException {
        try (Stream<Path> entries = Files.list(Path.of("/nix/store"))) {
            return new HashSet<>(entries.map(p -> p.getFileName().toString()).toList());
        }
    }
}
